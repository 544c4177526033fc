# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Finished answers kept in bundles (verl_arena/runtime/answer_bundles.py), in Ray's real key-value store: the groups
put in one turn are one record, a restarted coordinator finds its predecessor's, a bundle goes with its last group."""

from __future__ import annotations

import asyncio
import uuid

import pytest

ray = pytest.importorskip("ray")

from ray.experimental import internal_kv  # noqa: E402

from verl_arena.runtime.actors import RayKVStore  # noqa: E402
from verl_arena.runtime.answer_bundles import BundledStore  # noqa: E402

KV = "verl_arena"  # the key-value namespace the store writes in


def records(prefix: str) -> list[bytes]:
    return internal_kv._internal_kv_list(f"{prefix}/".encode(), namespace=KV)


def test_the_puts_of_one_turn_are_one_record_and_a_full_bundle_starts_another(ray_local):
    prefix = f"test-bundles-{uuid.uuid4().hex[:8]}"
    store = BundledStore(RayKVStore(prefix), limit=2)

    async def scenario():
        await asyncio.gather(*(store.put(f"g{i}", f"answers {i}".encode()) for i in range(5)))
        await store.put("g5", b"answers 5")  # a later turn: a bundle of its own
        return sorted(await store.keys()), await store.get("g3"), await store.get("nope")

    try:
        keys, got, missing = asyncio.run(scenario())
        assert keys == [f"g{i}" for i in range(6)] and got == b"answers 3" and missing is None
        assert len(records(prefix)) == 4  # 2 + 2 + 1 of the first turn, then 1
    finally:
        internal_kv._internal_kv_del(f"{prefix}/".encode(), del_by_prefix=True, namespace=KV)


def test_a_successor_reads_its_predecessors_bundles_and_a_bundle_goes_with_its_last_group(ray_local):
    prefix = f"test-bundles-{uuid.uuid4().hex[:8]}"

    async def first_life():
        store = BundledStore(RayKVStore(prefix))
        await asyncio.gather(*(store.put(g, g.encode() * 2) for g in ("a", "b", "c")))
        await store.put("d", b"dd")

    async def second_life():  # a restarted coordinator: a new store over the same prefix
        store = BundledStore(RayKVStore(prefix))
        found = sorted(await store.keys()), await store.get("b"), await store.get("d")
        await store.put("e", b"ee")  # its own bundle, never over a predecessor's
        for group in ("a", "b"):
            await store.delete(group)
        left_after_two = len(records(prefix))
        await store.delete("c")  # the last group of the first bundle: the record goes
        return found, left_after_two, sorted(await store.keys())

    try:
        asyncio.run(first_life())
        assert len(records(prefix)) == 2
        (keys, b, d), left_after_two, keys_after = asyncio.run(second_life())
        assert keys == ["a", "b", "c", "d"] and b == b"bb" and d == b"dd"
        assert left_after_two == 3 and keys_after == ["d", "e"] and len(records(prefix)) == 2
    finally:
        internal_kv._internal_kv_del(f"{prefix}/".encode(), del_by_prefix=True, namespace=KV)


class _Refusing:
    """A key-value store that refuses every write and has nothing (a GCS that cannot take records)."""

    async def get(self, key: str) -> bytes | None:
        return None

    async def put(self, key: str, value: bytes) -> None:
        raise ConnectionError("the GCS refused the record")

    async def delete(self, key: str) -> None:
        return None

    async def keys(self) -> list[str]:
        return []


def test_every_put_of_a_refused_bundle_raises_and_none_is_kept():
    store = BundledStore(_Refusing())

    async def scenario():
        puts = await asyncio.gather(*(store.put(g, b"x") for g in ("a", "b")), return_exceptions=True)
        return puts, await store.keys()

    puts, keys = asyncio.run(scenario())
    assert all(isinstance(p, ConnectionError) for p in puts) and keys == []
