# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The private verl names the CPU backend relies on: each resolves in the installed verl, and a missing one is named
with verl's version."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("verl")

from verl_arena.integrations.verl.cpu import verl_private


def test_every_private_verl_name_resolves_and_a_missing_one_is_named():
    for name in verl_private.PRIVATE_NAMES:
        module, attribute = verl_private.resolve(name)
        assert hasattr(module, attribute)
    import verl

    said = rf"needs verl\.utils\.distributed:no_such_thing, which verl {re.escape(verl.__version__)} does not have"
    with pytest.raises(ImportError, match=said):
        verl_private.resolve("verl.utils.distributed:no_such_thing")
