# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Finished answers kept in bundles: the groups a coordinator finishes in one turn of its event loop are written as one
record of the underlying store, not one record each.

A coordinator keeps every finished group's answers in Ray's key-value store before it answers the group's members, so
that a coordinator restarted by Ray can answer them again (:class:`~verl_arena.runtime.rendezvous.FinishedStore`). Each
record is a round trip to Ray's GCS: 512 groups of 16 finishing in 14 turns were 513 of them; bundled, they are 14
(the GCS's load, which grows with the cluster; the coordinator's own CPU changed within run-to-run noise).

A bundle is keyed ``bundles/<writer>-<n>`` (``writer``: drawn once per process, so a restarted coordinator never writes
over its predecessor's bundles) and holds ``{group id: answers}`` in msgpack. Only a restarted coordinator reads
bundles: on its first look-up it reads its predecessor's once and keeps their answers in memory (at most
``stored_groups`` of them, about 1.5 KB each). A bundle is deleted when every group in it has been.
"""

from __future__ import annotations

import asyncio
import uuid

import msgpack

from verl_arena.runtime.rendezvous import FinishedStore

__all__ = ["BUNDLE_LIMIT", "BundledStore"]

#: most groups in one bundle (a turn that finishes more writes several)
BUNDLE_LIMIT = 256
_BUNDLES = "bundles/"


class BundledStore:
    """A :class:`~verl_arena.runtime.rendezvous.FinishedStore` that writes the puts of one event-loop turn to ``inner``
    (another store of bytes by key, :class:`~verl_arena.runtime.actors.RayKVStore`) as one bundle (at most
    :data:`BUNDLE_LIMIT` groups each); a put returns once its bundle is written and raises its bundle's error."""

    def __init__(self, inner: FinishedStore, limit: int = BUNDLE_LIMIT) -> None:
        self.inner = inner
        self.limit = limit
        self._writer = uuid.uuid4().hex[:12]
        self._written = 0
        self._waiting: dict[str, bytes] = {}
        self._writing: asyncio.Future[None] | None = None
        self._bundle_of: dict[str, str] = {}  # group -> bundle key
        self._left: dict[str, set[str]] = {}  # bundle key -> groups in it not deleted
        self._recovered: dict[str, bytes] = {}  # the predecessor's answers, read once
        self._loaded = False
        self._loading: asyncio.Future[None] | None = None

    async def put(self, group_id: str, value: bytes) -> None:
        """Keep ``value`` as ``group_id``'s answers (with the other puts of this turn)."""
        await self._load()
        if len(self._waiting) >= self.limit and self._writing is not None:
            await asyncio.shield(self._writing)  # that bundle is full: this put starts or joins the next
            return await self.put(group_id, value)
        self._waiting[group_id] = value
        if self._writing is None:
            self._writing = asyncio.ensure_future(self._write_bundle())
        await asyncio.shield(self._writing)

    async def _write_bundle(self) -> None:
        await asyncio.sleep(0)  # every put of the turn that started this bundle joins it
        groups, self._waiting, self._writing = self._waiting, {}, None
        self._written += 1
        key = f"{_BUNDLES}{self._writer}-{self._written}"
        await self.inner.put(key, msgpack.packb(groups, use_bin_type=True))
        self._left[key] = set(groups)
        for group in groups:
            self._forget(group)
            self._bundle_of[group] = key

    async def get(self, group_id: str) -> bytes | None:
        """``group_id``'s answers, ``None`` if none are kept."""
        await self._load()
        if group_id in self._recovered:
            return self._recovered[group_id]
        key = self._bundle_of.get(group_id)
        if key is None:
            return None
        raw = await self.inner.get(key)
        return None if raw is None else _unpack(raw).get(group_id)

    async def delete(self, group_id: str) -> None:
        """Forget ``group_id``'s answers; its bundle goes once every group in it has."""
        await self._load()
        key = self._forget(group_id)
        if key is not None and not self._left[key]:
            del self._left[key]
            await self.inner.delete(key)

    async def keys(self) -> list[str]:
        """The groups whose answers are kept."""
        await self._load()
        return list(self._bundle_of)

    def _forget(self, group_id: str) -> str | None:
        self._recovered.pop(group_id, None)
        key = self._bundle_of.pop(group_id, None)
        if key is not None:
            self._left[key].discard(group_id)
        return key

    async def _load(self) -> None:
        """Learn, once, which groups the bundles already in ``inner`` hold (a restarted coordinator's predecessor's)."""
        if self._loaded:
            return
        if self._loading is None:
            self._loading = asyncio.ensure_future(self._read_index())
        try:
            await asyncio.shield(self._loading)
        except Exception:
            self._loading = None  # the next call tries again
            raise

    async def _read_index(self) -> None:
        keys = [k for k in await self.inner.keys() if k.startswith(_BUNDLES)]
        bundles = await asyncio.gather(*(self.inner.get(k) for k in keys))
        for key, raw in zip(keys, bundles, strict=True):
            if raw is None:
                continue
            groups = _unpack(raw)
            self._left[key] = set(groups)
            self._bundle_of.update(dict.fromkeys(groups, key))
            self._recovered.update(groups)
        self._loaded = True


def _unpack(raw: bytes) -> dict[str, bytes]:
    return msgpack.unpackb(raw, raw=False)
