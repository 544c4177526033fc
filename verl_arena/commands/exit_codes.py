# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The exit statuses of the ``verl-arena`` commands, in one place (the README and docs/judging.md list them).

======  =========================================================================================================
status  meaning
======  =========================================================================================================
0       done, and the result means what it says
1       the check found something: ``audit`` flagged a probe (``replay``: a group differs from its log; ``doctor``:
        a check failed; ``bench gaming``: an attack paid)
2       bad input: a file, an option or a configuration, named in the message; nothing was asked of the judge
3       the judge is unavailable or unusable: no endpoint answered the pre-flight request, or no judgment of the
        run succeeded (results are still written), or the audit is inconclusive; one line says why
130     interrupted by SIGINT (Ctrl-C), 143 by SIGTERM (128 + the signal's number); finished work is kept
141     stdout was closed by its reader (``verl-arena rank ... | head -1``): the rest of the printout is dropped
        quietly, as SIGPIPE would; the output files are complete
======  =========================================================================================================
"""

from __future__ import annotations

import signal

__all__ = ["BAD_INPUT", "FOUND", "JUDGE_UNAVAILABLE", "OK", "interrupted"]

OK = 0
FOUND = 1
BAD_INPUT = 2
JUDGE_UNAVAILABLE = 3


def interrupted(signal_name: str) -> int:
    """The status of a run stopped by the signal ``signal_name`` (``"SIGINT"``: 130, ``"SIGTERM"``: 143)."""
    return 128 + getattr(signal, signal_name).value
