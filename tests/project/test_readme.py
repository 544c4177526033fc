# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The README: its two commands are where .ci/run looks for them, its verl overrides validate, it stays short."""

from __future__ import annotations

import re

import pytest
from helpers import ROOT

README = (ROOT / "README.md").read_text()


def test_exactly_two_marked_commands():
    blocks = re.findall(r"<!-- (\w+)-command -->\n```bash\n(.*?)\n```", README, re.S)
    assert [name for name, _ in blocks] == ["main", "test"]
    for _, command in blocks:
        assert "\n" not in command and "-c constraints-cpu.txt" in command


def test_the_verl_overrides_in_the_readme_compose_and_validate(monkeypatch):
    pytest.importorskip("verl")
    import shlex

    from helpers import verl_config

    from verl_arena.integrations.verl.reward_manager import check_trainer_config

    section = README[README.index("## Training with verl") :]
    block = re.search(r"```bash\n(.*?)```", section, re.S).group(1)
    words = shlex.split(block.replace("\\\n", " "))
    overrides = [w for w in words if "=" in w]
    monkeypatch.setenv("DASHSCOPE_API_KEY", "sk-readme")
    config = verl_config([*overrides, "actor_rollout_ref.rollout.n=8"])
    arena, group_size = check_trainer_config(config)
    assert (arena.topology, arena.judge.template, group_size) == ("seeded_single_elimination", "travel", 8)


def test_the_readme_stays_short_and_leaves_the_detail_to_docs():
    """What it is, the two commands, one training snippet, links: the detail lives in docs/ (and CHANGELOG.md)."""
    assert len(README.splitlines()) < 200
    assert re.findall(r"^```(\w*)$", README, re.M).count("python") == 0
    assert "[CHANGELOG.md](CHANGELOG.md)" in README and "[docs/commands.md](docs/commands.md)" in README
