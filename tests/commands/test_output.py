# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""What every ``--json`` prints: strict JSON."""

from __future__ import annotations

from helpers import strict_json

from verl_arena.commands.output import print_json


def test_json_output_is_strict_json(capsys):
    import math
    from dataclasses import dataclass

    @dataclass
    class Rate:
        value: float
        low: float

    print_json({"rate": Rate(math.nan, -math.inf), "rows": [1.5, math.inf, (2, math.nan)], "name": "ok"})
    assert strict_json(capsys.readouterr().out) == {
        "rate": {"value": None, "low": None},
        "rows": [1.5, None, [2, None]],
        "name": "ok",
    }
