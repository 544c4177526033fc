# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Evaluating trained agents and judges with the judge runtime: win rates against a baseline with intervals and bias
checks, a leaderboard of many systems, re-judging, and the judge audit.

Modules: :mod:`.data` (tasks and outputs files), :mod:`.judging` (both orders, several judges, a resumable log),
:mod:`.report` (outcomes, per-dimension rates, agreement, position and length), :mod:`.stats` (the statistics),
:mod:`.env` (environment outcomes: success rates and the judge's agreement with them), :mod:`.length` (length
control), :mod:`.leaderboard` (a leaderboard of many systems, ``verl-arena eval arena``), :mod:`.rejudge` (a cheaper
judge against the current one's verdicts), :mod:`.tournament_view` (one group's tournament from a judgment log), the
pages (:mod:`.winrate_html`, :mod:`.leaderboard_html`, :mod:`.tournament_html`, drawn with one report kit,
:mod:`.html_kit`) and :mod:`.audit` (``verl-arena audit``: known hacks against honest answers, before training).
"""
