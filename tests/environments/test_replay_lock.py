# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The replay lock of a server: its holders take turns, in one process and across processes, servers apart do not
wait for each other, and the lock ends with a holder that dies."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap

from verl_arena.environments.replay_lock import ReplayLock


def test_holders_of_one_server_take_turns_and_other_servers_do_not_wait(tmp_path):
    inside: list[str] = []
    overlaps: list[tuple[str, ...]] = []

    async def hold(lock: ReplayLock, name: str) -> None:
        async with lock.hold():
            inside.append(name)
            overlaps.append(tuple(inside))
            await asyncio.sleep(0.05)
            inside.remove(name)

    async def scenario() -> None:
        one = [ReplayLock("http://a:1", tmp_path) for _ in range(4)]  # each session makes its own
        other = ReplayLock("http://b:2", tmp_path)
        await asyncio.gather(*(hold(lock, f"a{i}") for i, lock in enumerate(one)), hold(other, "b"))

    asyncio.run(scenario())
    assert not any(len([n for n in names if n.startswith("a")]) > 1 for names in overlaps)  # a's holders alone
    assert any(len(names) == 2 for names in overlaps)  # b did not wait for a's holders
    assert ReplayLock("http://a:1", tmp_path).path != ReplayLock("http://b:2", tmp_path).path


def test_a_holder_in_another_process_excludes_this_one_until_it_dies(tmp_path):
    lock = ReplayLock("http://a:1", tmp_path)
    holder = textwrap.dedent(
        f"""
        import fcntl, os, sys, time
        fd = os.open({str(lock.path)!r}, os.O_CREAT | os.O_RDWR)
        fcntl.flock(fd, fcntl.LOCK_EX)
        print("held", flush=True)
        time.sleep(600)
        """
    )
    lock.path.parent.mkdir(parents=True, exist_ok=True)
    other = subprocess.Popen([sys.executable, "-c", holder], stdout=subprocess.PIPE, text=True)
    try:
        assert other.stdout is not None and other.stdout.readline().strip() == "held"

        async def scenario() -> str:
            waiting = asyncio.ensure_future(_held(lock))
            await asyncio.sleep(0.3)
            state = "waiting" if not waiting.done() else "held"
            other.kill()  # its lock ends with it
            await asyncio.wait_for(waiting, 30)
            return state

        assert asyncio.run(scenario()) == "waiting"
    finally:
        other.kill()
        other.wait()


async def _held(lock: ReplayLock) -> None:
    async with lock.hold():
        pass


def test_a_lock_file_that_cannot_be_opened_is_logged_once_and_the_replay_goes_on(tmp_path, caplog):
    (tmp_path / "a-file").write_text("")
    lock = ReplayLock("http://a:1", tmp_path / "a-file")  # its "directory" is a file: no lock file can be made

    async def twice() -> int:
        held = 0
        for _ in range(2):
            async with lock.hold():
                held += 1
        return held

    assert asyncio.run(twice()) == 2
    assert caplog.text.count("replays of one server are not serialised") == 1
