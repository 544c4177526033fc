# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Environments that agents act in, served over HTTP with the AgentGym protocol.

- :mod:`~verl_arena.environments.textcraft`: TextCraft, a deterministic crafting game of our own (40 tasks in four
  difficulty levels), with :func:`parse_action` (a model reply's last ``Action:`` line) and :func:`solve` (a scripted
  good agent).
- :mod:`~verl_arena.environments.client`: the generic client of the protocol (episodes over HTTP, the control episode
  that tells an agent's failure from the environment's), through an adapter;
- :mod:`~verl_arena.environments.adapters`: the adapters registry (``env.adapter``) and each game's adapter;
- :mod:`~verl_arena.environments.server`: ``create_app``, the FastAPI server of the protocol (``/create``,
  ``/reset``, ``/step``, ``/observation``, ``/close``, ``/stats``) with bare or object replies, a route prefix and
  injectable faults; what ``verl-arena env-server`` runs.
"""

from verl_arena.environments.textcraft import MAX_STEPS, TASKS, CraftingTask, StepResult, TextCraft, parse_action, solve

__all__ = ["MAX_STEPS", "TASKS", "CraftingTask", "StepResult", "TextCraft", "parse_action", "solve"]
