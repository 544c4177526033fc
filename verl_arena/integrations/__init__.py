# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Integrations with RL frameworks: ``verl`` (plugin, reward manager, advantage estimator, agent loops)."""
