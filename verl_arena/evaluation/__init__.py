# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Evaluating trained agents with the judge runtime: win rates against a baseline with intervals and bias checks.

Modules: :mod:`.data` (tasks and outputs files), :mod:`.judging` (both orders, several judges, a resumable log),
:mod:`.report` (outcomes, per-dimension rates, agreement, position and length), :mod:`.stats` (the statistics),
:mod:`.env` (environment outcomes: success rates and the judge's agreement with them), :mod:`.arena` (a leaderboard of
many systems), :mod:`.html` (its page), :mod:`.rejudge` (a cheaper judge against the current one's verdicts).
"""
