# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""What a ranked group means for the trainer: pure, framework-neutral training-signal logic (no I/O but the judgment
log, no Ray, no verl).

- :mod:`~verl_arena.outcomes.members`: what each member of a ranked group is answered (reward, advantage, whether it
  votes), and the group's summary;
- :mod:`~verl_arena.outcomes.env`: environment outcomes combined with the tournament;
- :mod:`~verl_arena.outcomes.group_filter`: which ranked groups the trainer's group filter drops;
- :mod:`~verl_arena.outcomes.step_metrics`: the per-step ``arena/*`` metrics;
- :mod:`~verl_arena.outcomes.hack_alarm` (with its :mod:`~verl_arena.outcomes.hack_detectors` and
  :mod:`~verl_arena.outcomes.judge_directed` patterns): wins by rollouts that look like known judge hacks;
- :mod:`~verl_arena.outcomes.judge_alarm`: a judge whose verdicts stopped depending on the content.
"""
