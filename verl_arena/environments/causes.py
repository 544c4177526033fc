# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""What an environment session decided about a failure it could not play through, by cause
(:mod:`~verl_arena.environments.session`), and what each decision means for the rollout."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["CAUSES", "MAX_RECOVERIES", "Cause", "Verdict", "verdict"]

Verdict = Literal["error", "crash"]
#: the most fresh episodes one episode opens to go on after failures that were not its action's (it is replayed to its
#: state on each); beyond, the failure counts as the server's (``recoveries``)
MAX_RECOVERIES = 4


@dataclass(frozen=True)
class Cause:
    """What a decision means for the episode's rollout: ``error`` (the server failed for everyone: it does not vote)
    or ``crash`` (its action broke the server: ranked below every honest failure)."""

    verdict: Verdict
    meaning: str


#: every decision a session takes about a failure it cannot play through, by name
CAUSES: dict[str, Cause] = {
    "start": Cause("error", "the server failed before the agent acted (opening the episode or starting its task)"),
    "down": Cause(
        "error",
        "the server served no control episode for env.recover_s, and the failing action never reached it, or a "
        "private server showed the action harmless",
    ),
    "recoveries": Cause("error", f"the episode was lost more than {MAX_RECOVERIES} times to failures not its own"),
    "fails_again": Cause(
        "crash", "replayed at the same state, the action failed again, and a control episode after it works"
    ),
    "takes_down": Cause(
        "crash", "replayed at the same state, the action failed again, and the server failed a control episode too"
    ),
    "unresolved": Cause(
        "error",
        "the server had the action when it failed and served no control episode for env.recover_s, and no private "
        "server (env.sandbox) replayed the action: it may have taken the server down, but nothing shows it",
    ),
}


def verdict(cause: str) -> Verdict:
    """What the decision ``cause`` means for the rollout (``""`` or an unknown cause: the server's failure)."""
    known = CAUSES.get(cause)
    return known.verdict if known is not None else "error"
