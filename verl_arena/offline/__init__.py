# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Files in, ranks out: the engine behind ``verl-arena rank`` and ``verl-arena replay`` (ranking groups from files,
outside training).

- :mod:`~verl_arena.offline.files`: reading users' JSONL files strictly (shared with ``prepare`` and ``eval``), and the
  files our runs write line by line;
- :mod:`~verl_arena.offline.groups`: groups files, checked whole, then streamed one group at a time; how a group is
  named (its id, or its content);
- :mod:`~verl_arena.offline.runner`: ranking a stream of groups with a bounded number in flight;
- :mod:`~verl_arena.offline.resume`: which ranked groups a resumed run keeps, checked against the groups file;
- :mod:`~verl_arena.offline.results`: result lines and the judgment log, written as groups finish; replaying a log.
"""

from verl_arena.offline.groups import (
    Group,
    GroupRef,
    GroupsIndex,
    check_groups,
    group_digest,
    group_key,
    iter_groups,
    load_groups,
    parse_candidate,
)
from verl_arena.offline.results import (
    ReplayedGroup,
    ResultWriter,
    RunTally,
    check_output_paths,
    replay_log,
    summarize,
    write_replayed,
)
from verl_arena.offline.resume import Resumed, check_resume, run_settings
from verl_arena.offline.runner import groups_in_flight, rank_groups

__all__ = [
    "Group",
    "GroupRef",
    "GroupsIndex",
    "ReplayedGroup",
    "ResultWriter",
    "Resumed",
    "RunTally",
    "check_groups",
    "check_output_paths",
    "check_resume",
    "group_digest",
    "group_key",
    "groups_in_flight",
    "iter_groups",
    "load_groups",
    "parse_candidate",
    "rank_groups",
    "replay_log",
    "run_settings",
    "summarize",
    "write_replayed",
]
