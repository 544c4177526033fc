# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The ``verl-arena`` sub-commands, each module with its arguments beside the code it runs and the output it prints.

Each module has ``register(subparsers)``; :data:`COMMANDS` lists them in the order ``verl-arena --help`` shows.
"""

from verl_arena.commands import (
    audit,
    benchmarks,
    docs,
    environments,
    evaluation,
    judge_server,
    ranking,
    scale_benchmarks,
    show,
    training,
)

__all__ = ["COMMANDS"]

COMMANDS = (ranking, show, evaluation, audit, training, judge_server, environments, benchmarks, scale_benchmarks, docs)
