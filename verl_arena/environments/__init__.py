# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Environments that agents act in, served over HTTP with the AgentGym protocol.

- :mod:`~verl_arena.environments.textcraft`: TextCraft, a deterministic crafting game of our own (40 tasks in four
  difficulty levels), with :func:`parse_action` (a model reply's last ``Action:`` line) and :func:`solve` (a scripted
  good agent).
- :mod:`~verl_arena.environments.client`: the generic client of the protocol (episodes over HTTP), through an
  adapter;
- :mod:`~verl_arena.environments.session`: one episode that outlives the server's failures not its own, and finds
  whose failure each one was by replaying the failing action at the same state (:mod:`~verl_arena.environments.causes`:
  its decisions; :mod:`~verl_arena.environments.replay_lock`: one replay at a time per server;
  :mod:`~verl_arena.environments.sandbox`: a private server to replay on when the shared one stays down);
- :mod:`~verl_arena.environments.adapters`: the adapters registry (``env.adapter``) and each game's adapter;
- :mod:`~verl_arena.environments.server`: ``create_app``, the FastAPI server of the protocol (``/create``,
  ``/reset``, ``/step``, ``/observation``, ``/close``, ``/stats``) with bare or object replies, a route prefix,
  injectable faults (an action that fails, kills the process or blocks the server) and episodes it ends on its own
  (idle too long, evicted); what ``verl-arena env-server`` runs.
"""

from verl_arena.environments.textcraft import MAX_STEPS, TASKS, CraftingTask, StepResult, TextCraft, parse_action, solve

__all__ = ["MAX_STEPS", "TASKS", "CraftingTask", "StepResult", "TextCraft", "parse_action", "solve"]
