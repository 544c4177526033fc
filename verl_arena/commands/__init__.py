# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The ``verl-arena`` sub-commands, each module with its arguments beside the code it runs and the output it prints.

Each module has ``SUMMARIES`` (the commands it adds, each with its one line of ``verl-arena --help``) and
``register(subparsers)``, which adds their full parsers; :data:`COMMANDS` lists the modules in the order
``verl-arena --help`` shows. A module imports only the standard library and its sibling helpers when it is imported;
``register`` imports what its options need (choices, defaults), and each command what it runs, when it runs. The
``bench`` group's modules (:data:`~verl_arena.commands.benchmarks.BENCHES`) have the same shape one level down, and
:mod:`~verl_arena.commands.aliases` turns old spellings into new ones before anything is parsed.
"""

from verl_arena.commands import (
    audit,
    benchmarks,
    docs,
    environments,
    evaluation,
    judge_server,
    ranking,
    show,
    training,
)

__all__ = ["COMMANDS"]

COMMANDS = (ranking, show, evaluation, audit, training, judge_server, environments, benchmarks, docs)
