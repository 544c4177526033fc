# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The reference pages written from the code and from runs, never by hand (``verl-arena docs``):

- :mod:`~verl_arena.reference.configuration`: ``docs/configuration.md``, every option and metric, from the
  configuration models;
- :mod:`~verl_arena.reference.benchmarks`: ``docs/benchmarks.md`` and its plots, from a run of every benchmark.
"""
