# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The commands' exit statuses: the constants are the table the module documents, and the pages users read list the
same numbers."""

from __future__ import annotations

import re

from helpers import ROOT

from verl_arena.commands import exit_codes
from verl_arena.commands.exit_codes import BAD_INPUT, FOUND, JUDGE_UNAVAILABLE, OK, interrupted


def _table() -> dict[int, str]:
    """The module docstring's table: status -> its meaning (the rows that start with a number)."""
    rows: dict[int, str] = {}
    last = None
    for line in (exit_codes.__doc__ or "").splitlines():
        found = re.match(r"(\d+)\s+(.*)", line)
        if found:
            last = int(found.group(1))
            rows[last] = found.group(2)
        elif last is not None and line.startswith(" "):
            rows[last] += " " + line.strip()
    return rows


def test_a_signal_stops_a_command_with_128_plus_its_number():
    assert (interrupted("SIGINT"), interrupted("SIGTERM"), interrupted("SIGPIPE")) == (130, 143, 141)


def test_the_documented_table_is_the_statuses_the_commands_return():
    table = _table()
    assert list(table) == [OK, FOUND, BAD_INPUT, JUDGE_UNAVAILABLE, interrupted("SIGINT"), interrupted("SIGPIPE")]
    assert (OK, FOUND, BAD_INPUT, JUDGE_UNAVAILABLE) == (0, 1, 2, 3)
    assert table[BAD_INPUT].startswith("bad input") and table[JUDGE_UNAVAILABLE].startswith("the judge is unavailable")
    assert f"{interrupted('SIGTERM')} by SIGTERM" in table[interrupted("SIGINT")]
    assert "stdout was closed by its reader" in table[interrupted("SIGPIPE")]


def test_the_pages_users_read_list_every_status():
    judging = (ROOT / "docs" / "judging.md").read_text(encoding="utf-8")
    commands = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")
    listed = judging[judging.index("**Exit statuses**") :].split("\n\n", 1)[0]
    listed_too = commands[commands.index("## Exit statuses") :].split("\n## ", 1)[0]
    statuses = [OK, FOUND, BAD_INPUT, JUDGE_UNAVAILABLE, *(interrupted(s) for s in ("SIGINT", "SIGTERM", "SIGPIPE"))]
    for status in statuses:
        assert re.search(rf"\b{status}\b", listed), f"docs/judging.md's exit statuses lack {status}"
        assert re.search(rf"\b{status}\b", listed_too), f"docs/commands.md's exit statuses lack {status}"
