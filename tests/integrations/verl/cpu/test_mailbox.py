# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""A weight sync's mailbox: a taker waits for the post, and the module a Ray worker imports to start it stays light."""

from __future__ import annotations

import asyncio

from helpers import fresh_python

from verl_arena.integrations.verl.cpu.mailbox import WeightMailbox


def test_a_taker_waits_for_the_weights_and_every_taker_gets_them():
    async def scenario():
        mailbox = WeightMailbox()
        early = asyncio.ensure_future(mailbox.take())
        await asyncio.sleep(0.05)
        assert not early.done()  # nothing posted yet
        await mailbox.post(["weights"])
        return await early, await mailbox.take()

    assert asyncio.run(scenario()) == (["weights"], ["weights"])


def test_the_mailbox_module_imports_neither_verl_nor_torch():
    code = (
        "import sys\n"
        "import verl_arena.integrations.verl.cpu.mailbox\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('verl', 'torch')))"
    )
    done = fresh_python(code, timeout=60)
    assert done.returncode == 0 and done.stdout.split() == ["[]"], done.stderr[-2000:]
