# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The verdict cache: keys that cannot collide by where the parts split, a sqlite store whose first writer wins and
which threads and processes share, and a judge's use of it (hits counted, verdicts stored as plain records).

What the judge's cache keys hold (order, template, rubric items) is in ``test_llm.py``."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest
from helpers import ROOT

from verl_arena import PairVerdict
from verl_arena.core.spending import tally
from verl_arena.judges.cache import JudgmentCache, VerdictCache, cache_key


def test_a_key_depends_on_every_part_and_on_where_the_parts_split():
    key = cache_key("compare", "query", "a", "b")
    assert key == cache_key("compare", "query", "a", "b") and len(key) == 64 and int(key, 16) >= 0
    others = [
        cache_key("compare", "query", "b", "a"),
        cache_key("compare", "querya", "", "b"),
        cache_key("compare", "query", "ab"),
        cache_key("compare", "query", "a", "b", ""),
    ]
    assert len({key, *others}) == 5
    assert cache_key("\ud800 a lone surrogate") != cache_key("")  # any text a candidate holds can be keyed


def test_the_store_counts_hits_and_misses_keeps_the_first_value_and_outlives_its_object(tmp_path):
    path = tmp_path / "new" / "dir" / "verdicts.sqlite"  # the directory is created
    cache = VerdictCache(path)
    assert cache.get("k") is None and (cache.hits, cache.misses) == (0, 1)
    cache.put("k", {"score_a": 7.5, "text": "京都"})
    cache.put("k", {"score_a": 1.0})  # a second writer of a key changes nothing
    assert cache.get("k") == {"score_a": 7.5, "text": "京都"} and (cache.hits, cache.misses) == (1, 1)
    reopened = VerdictCache(path)
    assert reopened.get("k") == {"score_a": 7.5, "text": "京都"} and len(reopened) == 1


def test_the_async_calls_reach_the_same_store(tmp_path):
    cache = VerdictCache(tmp_path / "v.sqlite")

    async def roundtrip():
        await cache.aput("k", [1, 2])
        return await cache.aget("k"), await cache.aget("missing")

    assert asyncio.run(roundtrip()) == ([1, 2], None) and cache.get("k") == [1, 2]


def test_threads_share_a_store_each_on_its_own_connection(tmp_path):
    cache = VerdictCache(tmp_path / "v.sqlite")

    def write(worker: int) -> int:
        for i in range(25):
            cache.put(cache_key(str(worker), str(i)), i)
        return len(cache)

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(write, range(4)))
    assert len(cache) == 100


#: one process's writes and reads of a shared cache (a separate interpreter: a test module cannot be imported by name
#: in a spawned worker, pytest imports it by path)
HAMMER = """
import sys
from verl_arena.judges.cache import VerdictCache, cache_key

cache = VerdictCache(sys.argv[1])
for i in range(150):
    cache.put(cache_key("k", str(i)), {"worker": sys.argv[2], "i": i})
    assert cache.get(cache_key("k", str(i)))["i"] == i
print(len(cache))
"""


@pytest.mark.slow
def test_cache_is_safe_across_processes(tmp_path):
    path = str(tmp_path / "shared.sqlite")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    workers = [
        subprocess.Popen([sys.executable, "-c", HAMMER, path, str(w)], stdout=subprocess.PIPE, text=True, env=env)
        for w in range(4)
    ]
    sizes = [int(worker.communicate(timeout=300)[0]) for worker in workers]
    assert [worker.returncode for worker in workers] == [0] * 4
    assert len(VerdictCache(path)) == 150 and max(sizes) == 150


def test_a_judge_without_a_cache_finds_and_keeps_nothing():
    counts: Counter[str] = Counter()
    verdicts = JudgmentCache(None, counts)

    async def roundtrip():
        await verdicts.put("k", PairVerdict(1.0, 0.0))
        return await verdicts.get("k")

    assert asyncio.run(roundtrip()) is None and not counts


def test_a_judge_stores_verdicts_as_records_and_counts_its_hits_where_its_spending_is_tallied(tmp_path):
    counts: Counter[str] = Counter()
    verdicts = JudgmentCache(VerdictCache(tmp_path / "v.sqlite"), counts)
    verdict = PairVerdict(7.0, 4.0, {"A": {"x": 7}}, "raw", {"prompt_tokens": 9}, 0.5, {"endpoint": "e"})

    async def roundtrip():
        await verdicts.put("pair", verdict)
        await verdicts.put("order", {"order": [2, 0, 1]})
        with tally() as spent:
            return await verdicts.get("pair"), await verdicts.get("order"), await verdicts.get("none"), spent

    pair, order, missing, spent = asyncio.run(roundtrip())
    assert pair == {
        "score_a": 7.0,
        "score_b": 4.0,
        "dimensions": {"A": {"x": 7}},
        "raw": "raw",
        "usage": {"prompt_tokens": 9},
        "latency_s": 0.5,
        "meta": {"endpoint": "e"},
    }
    assert order == {"order": [2, 0, 1]} and missing is None
    assert counts == {"cache_hits": 2} and spent == {"cache_hits": 2}
