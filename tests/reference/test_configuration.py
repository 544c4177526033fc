# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The configuration reference generator: option descriptions read from the ``Args:`` blocks of docstrings, and a
page with a row for every option under the key users write, each option once. (``tests/project/test_docs.py`` keeps
the committed ``docs/configuration.md`` equal to what this writes.)"""

from __future__ import annotations

import re

from verl_arena.core.topologies import TOPOLOGIES
from verl_arena.integrations.slime.config import SlimeArenaConfig
from verl_arena.integrations.verl.config import ArenaRewardConfig
from verl_arena.judges.config import EndpointConfig, JudgeConfig
from verl_arena.outcomes.step_metrics import STEP_METRICS
from verl_arena.reference.configuration import configuration_markdown, docstring_args
from verl_arena.runtime.options import ArenaOptions


class Documented:
    """Something with options.

    Args:
        seed: seeds the draw; see
            :class:`~verl_arena.core.tournament.Tournament` for ``seed``.
        low / high: the bounds, a | b.
        rounds, repeats: how often.
    """


def test_descriptions_come_from_the_args_block_joined_across_lines_and_written_as_markdown():
    args = docstring_args(Documented)
    assert args["seed"] == "seeds the draw; see `Tournament` for `seed`."
    assert args["low"] == args["high"] == "the bounds, a \\| b."  # a pipe would split the table's cell
    assert args["rounds"] == args["repeats"] == "how often."
    assert set(args) == {"seed", "low", "high", "rounds", "repeats"}
    assert docstring_args(object()) == docstring_args(re) == {}  # no Args block (or no docstring): no options


def rows(page: str, heading: str) -> list[str]:
    """The option keys of the tables in the part of the page under the ``## `` heading that starts with ``heading``."""
    part = next(p for p in page.split("\n## ") if p.startswith(heading))
    return re.findall(r"^\| `([^`]+)` \|", part, re.M)


def test_every_option_has_a_row_under_the_key_users_write_and_the_shared_ones_only_once():
    page = configuration_markdown()
    judge = rows(page, "The judge")
    assert set(JudgeConfig.model_fields) | {f"endpoints[].{name}" for name in EndpointConfig.model_fields} <= set(judge)
    shared = set(ArenaOptions.model_fields)
    assert shared <= set(rows(page, "Options every framework takes"))
    verl, slime = rows(page, "The verl reward manager's own"), rows(page, "The slime hooks' own")
    assert set(ArenaRewardConfig.model_fields) - shared <= set(verl) and not shared & set(verl)
    slime_own = set(SlimeArenaConfig.model_fields) - shared
    assert {f"arena_{name}" for name in slime_own} == set(slime)  # its own, under the key its YAML takes
    tournament = page.split("\n## The tournament\n")[1].split("\n## ")[0]
    assert all(f"### `{name}`" in tournament for name in TOPOLOGIES)
    assert set(STEP_METRICS) <= set(rows(page, "Metrics"))
