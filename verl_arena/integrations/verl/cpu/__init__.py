# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Training with verl's real trainer on a CPU (opt-in): :mod:`.backend` (activated by ``VERL_PLATFORM=cpu``),
:mod:`.platform`, :mod:`.rollout` (generating with :mod:`.sampling`; a reward model served by :mod:`.chat_server`),
:mod:`.tiny_model` (a tiny random model built offline) and :mod:`.overrides` (a CPU run's trainer overrides, read
without importing verl). Importing this package activates nothing."""
