# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl_arena.slime``: the paths its docstring gives slime's flags. Each flag is one slime declares, each path loads
through slime's own ``load_function`` to the hook the integration defines, and every name the module exports is such
a path. What the hooks do inside slime's rollout is in ``tests/integrations/slime/``, with slime's own contract tests.

slime is found through ``SLIME_PATH``; without it these tests skip with that reason.
"""

from __future__ import annotations

import re
import sys

import pytest
from helpers import SKIP_REASON, SLIME

import verl_arena.slime as hooks
from verl_arena.integrations.slime import filters, rewards, rollout

pytestmark = pytest.mark.skipif(SLIME is None, reason=SKIP_REASON)

#: the literal block of flags in the module docstring
BLOCK = hooks.__doc__.split("::", 1)[1].split("\n\n", 2)[1]


def test_every_flag_the_docstring_gives_is_one_slime_declares():
    flags = re.findall(r"(?<!\S)--[a-z][\w-]*", BLOCK)
    assert len(flags) == 9 and "--custom-config-path" in flags and "--rollout-function-path" in flags
    # slime's argument parser needs SGLang to be imported; its source declares every flag as a quoted string
    declared = set(re.findall(r"\"(--[a-z][\w-]*)\"", (SLIME / "slime" / "utils" / "arguments.py").read_text()))
    assert set(flags) <= declared, set(flags) - declared


def test_every_path_loads_through_slime_to_the_integrations_hook_and_every_export_is_one():
    if str(SLIME) not in sys.path:
        sys.path.insert(0, str(SLIME))
    from slime.utils.misc import load_function

    paths = [*re.findall(r"verl_arena\.slime\.\w+", BLOCK), rollout.EVAL_RM_PATH]  # eval_rollout hands slime eval_rm
    defined = {**vars(rewards), **vars(rollout), **vars(filters)}
    for path in paths:
        name = path.rsplit(".", 1)[1]
        assert load_function(path) is defined[name], path
    assert sorted(path.rsplit(".", 1)[1] for path in paths) == sorted(hooks.__all__)
