# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The errors verl-arena raises.

::

    ArenaError
     +-- ConfigError (also ValueError)          a bad option, named in the message
     +-- InvalidJudgeOutput (also ValueError)   a judge broke the protocol (NaN score, wrong number of winners)
     +-- JudgeError                             one judgment failed; topologies apply the fallback policy

``JudgeError`` is the only error a judge is expected to raise. Everything a judge can go through (timeouts, rate
limits, unparsable answers, refusals) becomes a ``JudgeError`` with a short ``reason``, and the tournament counts it
by that reason. A failure the judge traces to one candidate's content is not a ``JudgeError`` at all: the judge
returns a verdict in which that candidate forfeits (loses), so breaking the judge never pays.

``InvalidJudgeOutput`` is different: it means the judge *returned* something that is not a verdict, which is a bug
in the judge and is never papered over.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = ["ArenaError", "ConfigError", "InvalidJudgeOutput", "JudgeError", "closest", "did_you_mean"]


class ArenaError(Exception):
    """Base class of every error raised by verl-arena."""


class ConfigError(ArenaError, ValueError):
    """An option or input is invalid; the message names the field (and the group, when there is one)."""


class InvalidJudgeOutput(ArenaError, ValueError):
    """A judge returned something that breaks the judge protocol."""


class JudgeError(ArenaError):
    """A judgment failed.

    Args:
        message: what went wrong, for humans. Must never contain secrets.
        reason: a short machine-readable cause used to count failures, e.g. ``"timeout"``, ``"rate_limit"``,
            ``"parse"``, ``"refused"``.
        attempts: how many attempts were made before giving up.
        input_related: the failure may have been caused by what the judge was shown rather than by the judge's
            infrastructure: a refusal, a reply that stays unusable or comes back truncated, a request rejected as
            malformed or too long, a timeout while the judge kept answering other requests. A judge that can tell
            which candidate caused it makes that candidate lose (see ``PairVerdict.forfeit``); the tournament only
            sees the failures nobody could be blamed for.
        usage: tokens spent on the failed judgment (``prompt_tokens``, ``completion_tokens``, ...).
        judge_fault: the judge itself misbehaved where nothing it was shown gives it a reason to (e.g. it kept
            miscopying the judgment's ``verdict_id``): its other verdicts in the group are in doubt too, so the group
            is voided as the judge's fault (``void_reason`` ``judge_fault``) instead of settling the judgment by the
            fallback.
    """

    def __init__(
        self,
        message: str = "judgment failed",
        *,
        reason: str = "error",
        attempts: int = 1,
        input_related: bool = False,
        usage: dict[str, int] | None = None,
        judge_fault: bool = False,
    ) -> None:
        super().__init__(message)
        self.reason = reason
        self.attempts = attempts
        self.input_related = input_related
        self.usage = dict(usage or {})
        self.judge_fault = judge_fault


def closest(word: object, choices: Iterable[str]) -> str | None:
    """The one of ``choices`` that ``word`` is a likely misspelling of, if any."""
    close = difflib.get_close_matches(str(word), list(choices), n=1, cutoff=0.6)
    return close[0] if close else None


def did_you_mean(word: object, choices: Iterable[str]) -> str:
    """``"did you mean 'swiss'?"`` when ``word`` is a likely misspelling of one of ``choices``, else ``""``.

    For the messages of :class:`ConfigError`: a typo in an option's name or value gets the closest valid one.
    """
    match = closest(word, choices)
    return f"did you mean {match!r}?" if match else ""
