# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""A verdict cache in sqlite (stdlib), safe to share between processes.

Keys are SHA-256 digests of everything that determines a verdict: the judge's identity (models, template digest,
sampling parameters), the kind of judgment, the query, the candidates' content digests in the order shown, and any
rubric. Values are JSON. The database runs in WAL mode with a generous busy timeout, so reward workers on one node
can read and write it at once; every process (and thread) opens its own connection.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import sqlite3
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

from verl_arena.core.spending import note
from verl_arena.core.types import PairVerdict

__all__ = ["JudgmentCache", "VerdictCache", "cache_key"]


def cache_key(*parts: str) -> str:
    """SHA-256 over the parts, unambiguously separated."""
    h = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8", "surrogatepass")
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()


class VerdictCache:
    """Persistent key -> JSON store.

    Args:
        path: the sqlite file (created with its directory if missing).
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        self.hits = 0
        self.misses = 0
        with self._connection() as conn:
            conn.execute("CREATE TABLE IF NOT EXISTS verdicts (key TEXT PRIMARY KEY, value TEXT NOT NULL, at REAL)")

    def _connection(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None or getattr(self._local, "pid", None) != os.getpid():
            conn = sqlite3.connect(self.path, timeout=60.0, isolation_level=None, check_same_thread=True)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            self._local.conn, self._local.pid = conn, os.getpid()
        return conn

    def get(self, key: str) -> Any | None:
        """The stored value, or ``None``."""
        row = self._connection().execute("SELECT value FROM verdicts WHERE key = ?", (key,)).fetchone()
        if row is None:
            self.misses += 1
            return None
        self.hits += 1
        return json.loads(row[0])

    def put(self, key: str, value: Any) -> None:
        """Store ``value`` (JSON-serialisable) under ``key``; the first writer of a key wins."""
        self._connection().execute(
            "INSERT OR IGNORE INTO verdicts (key, value, at) VALUES (?, ?, ?)",
            (key, json.dumps(value, ensure_ascii=False), time.time()),
        )

    async def aget(self, key: str) -> Any | None:
        """``get`` in a worker thread, so a busy database never blocks the event loop."""
        return await asyncio.to_thread(self.get, key)

    async def aput(self, key: str, value: Any) -> None:
        """``put`` in a worker thread."""
        await asyncio.to_thread(self.put, key, value)

    def __len__(self) -> int:
        return int(self._connection().execute("SELECT COUNT(*) FROM verdicts").fetchone()[0])


class JudgmentCache:
    """A judge's use of a :class:`VerdictCache` (or of none): hits counted in the judge's ``cache_hits``, verdicts
    stored as plain JSON records.

    Args:
        cache: the verdict cache; ``None``: nothing is stored or found.
        counts: the judge's counters.
    """

    def __init__(self, cache: VerdictCache | None, counts: Counter[str]) -> None:
        self.cache = cache
        self.counts = counts

    async def get(self, key: str) -> Any | None:
        """The stored value, or ``None``."""
        if self.cache is None:
            return None
        value = await self.cache.aget(key)
        if value is not None:
            self.counts["cache_hits"] += 1
            note("cache_hits")
        return value

    async def put(self, key: str, value: PairVerdict | Any) -> None:
        """Store ``value`` (a verdict as its fields)."""
        if self.cache is None:
            return
        if isinstance(value, PairVerdict):
            value = {
                "score_a": value.score_a,
                "score_b": value.score_b,
                "dimensions": dict(value.dimensions),
                "raw": value.raw,
                "usage": dict(value.usage),
                "latency_s": value.latency_s,
                "meta": dict(value.meta),
            }
        await self.cache.aput(key, value)
