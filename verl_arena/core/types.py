# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Plain data: candidates, verdicts, the match log and the result of ranking one group."""

from __future__ import annotations

import hashlib
import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from functools import cached_property
from typing import Any, Literal

from verl_arena.core.errors import ConfigError

__all__ = ["Candidate", "GroupResult", "Match", "PairVerdict"]

#: Key of ``Candidate.meta`` holding a candidate's format reward (Tournament-GRPO eq. 9), if it has one.
FORMAT_REWARD_KEY = "format_reward"
#: ``meta`` key by which a tournament tells the judge that a candidate forfeits its matches (the value says why)
FORFEIT_KEY = "forfeit"
#: ``Candidate.meta`` key by which a tournament asks a one-order judge (:mod:`~verl_arena.judges.one_order`) to show a
#: pair in the order it did not draw (a re-ask, set on both candidates of the pair; the judge takes it off)
OTHER_ORDER_KEY = "other_order"
#: ``Candidate.meta`` key by which a tournament asks the judge to judge a candidate's *control* instead of it: neutral
#: text of its size in the judge's tokens (:mod:`~verl_arena.core.evidence`); a judge that does not know the key judges
#: the candidate itself, so the control fails wherever the candidate does and nobody is blamed
CONTROL_KEY = "control"
#: ``Candidate.meta`` key marking a candidate as one of its group's anchors (``anchor_set``, ``source="marked"``): a
#: reference from the data, a frozen policy's answer or an anchor pool's, judged against but never trained on
ANCHOR_KEY = "anchor"
#: ``GroupResult.details`` key listing the positions of the candidates the group carried marked as anchors (for replay)
MARKED_ANCHORS_KEY = "marked_anchors"
#: The ``Candidate.meta`` keys that change what a judge or a reward scheme makes of a candidate.
JUDGED_META = ("rubrics", "answer_key", "no_answer", FORMAT_REWARD_KEY, FORFEIT_KEY)


@dataclass(frozen=True)
class Candidate:
    """One rendered trajectory of a group.

    Args:
        id: unique within its group.
        answer: the final answer.
        path: the process that led to it (reasoning, tool calls, optionally tool outputs).
        meta: anything else; ``meta["format_reward"]`` is used by the ``minmax`` reward.
    """

    id: str
    answer: str
    path: str = ""
    meta: Mapping[str, Any] = field(default_factory=dict, hash=False)

    @property
    def answer_length(self) -> int:
        """Characters of the final answer; 0 for a candidate without one (``meta["no_answer"]``)."""
        return 0 if self.meta.get("no_answer") else len(self.answer)

    def to_record(self) -> dict[str, Any]:
        """The candidate as a judge reads it, for logs: id, answer, path and the meta keys in ``JUDGED_META``."""
        meta = {k: self.meta[k] for k in JUDGED_META if k in self.meta}
        return {"id": self.id, "answer": self.answer, "path": self.path, "meta": meta}

    @cached_property
    def digest(self) -> str:
        """SHA-256 of the content (path and answer), independent of ``id`` and ``meta``."""
        h = hashlib.sha256()
        h.update(self.path.encode("utf-8", "surrogatepass"))
        h.update(b"\x00")
        h.update(self.answer.encode("utf-8", "surrogatepass"))
        return h.hexdigest()


@dataclass(frozen=True)
class PairVerdict:
    """A pairwise judgment of candidate A (shown first) against candidate B.

    Higher is better; the candidate with the higher score wins and equal scores are a tie. A judge that only names a
    winner returns ``(1, 0)``, ``(0, 1)`` or ``(0.5, 0.5)``.

    Args:
        score_a: score of the first candidate.
        score_b: score of the second candidate.
        dimensions: per-dimension scores, e.g. ``{"a": {"feasibility": 8}, "b": {...}}``.
        raw: the judge's raw output.
        usage: token counts (``prompt_tokens``, ``completion_tokens``, ...).
        latency_s: wall time of the judgment.
        meta: anything else the judge wants logged.
        forfeit: the sides (``"a"``, ``"b"``) whose own content made the judgment impossible (the judge refused
            it, or its reply stayed unusable, truncated or never came, and judging that side alone failed the same
            way). A forfeiting side must score lower than a side that does not forfeit: it loses the match, and two
            forfeits tie. Judges use this so that a candidate never gains by breaking the judge.
    """

    score_a: float
    score_b: float
    dimensions: Mapping[str, Any] = field(default_factory=dict, hash=False)
    raw: str = ""
    usage: Mapping[str, int] = field(default_factory=dict, hash=False)
    latency_s: float = 0.0
    meta: Mapping[str, Any] = field(default_factory=dict, hash=False)
    forfeit: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "forfeit", tuple(sorted(set(self.forfeit))))
        if not set(self.forfeit) <= {"a", "b"}:
            raise ValueError(f"forfeit may only name the sides 'a' and 'b', got {self.forfeit!r}")

    @property
    def winner(self) -> Literal["a", "b", "tie"]:
        """Which side won: ``"a"``, ``"b"`` or ``"tie"``."""
        if self.score_a > self.score_b:
            return "a"
        if self.score_b > self.score_a:
            return "b"
        return "tie"

    def is_finite(self) -> bool:
        """Whether both scores are finite numbers."""
        return all(isinstance(s, numbers.Real) and math.isfinite(s) for s in (self.score_a, self.score_b))


MatchKind = Literal["compare", "select", "order", "bye"]


@dataclass(frozen=True)
class Match:
    """One entry of a group's match log. Indices refer to the group's candidates.

    Args:
        kind: ``"compare"`` (a pairwise judgment), ``"select"`` (a group judgment picking winners), ``"order"`` (a
            group judgment ordering everyone) or ``"bye"`` (a candidate advanced without a judge call).
        stage: which part of the topology, e.g. ``"seeding"``, ``"bracket"``, ``"losers"``, ``"swiss"``.
        round: round within the stage (1-based).
        level: sequential judge wave the match belongs to (1-based); judgments of one level run concurrently.
        players: candidate indices in presentation order; ``players[0]`` is slot A of a compare.
        winners: who advanced or won; empty for a tied compare; for an order, every player, best first.
        scores: per-player scores of a compare (same order as ``players``); ``None`` if failed or not a compare.
        k: number of winners asked for (select only).
        repeat: repeat index (``multi_round`` only).
        failed: the judgment raised ``JudgeError`` and the fallback decided the outcome.
        error: ``"reason: message"`` of the failure (kept on a failed judgment later settled as a forfeit).
        input_related: the failure may have come from what the judge was shown (see ``JudgeError``); ``False`` is the
            judge's own trouble (rate limits, load, an endpoint down).
        forfeited: players that forfeited this judgment because the tournament found them stalling the judge (a
            compare's forfeits are also read from its verdict).
        verdict: the judge's full verdict, when there is one.
        usage: what the judge spent on this judgment, every request counted (asks, asks again, tracing a failure).
        judge_fault: the failure is the judge's own fault (``JudgeError.judge_fault``, or failures concentrated on
            one candidate that the judge repeated when asked again, see :mod:`~verl_arena.core.stalls`): the group is
            voided for it.
    """

    kind: MatchKind
    stage: str
    round: int
    level: int
    players: tuple[int, ...]
    winners: tuple[int, ...] = ()
    scores: tuple[float, ...] | None = None
    k: int = 0
    repeat: int = 0
    failed: bool = False
    error: str | None = None
    input_related: bool = False
    forfeited: tuple[int, ...] = ()
    verdict: PairVerdict | None = None
    usage: Mapping[str, int] = field(default_factory=dict, hash=False)
    judge_fault: bool = False

    @property
    def reason(self) -> str:
        """The failure's reason: ``error`` up to its first colon (``"error"`` when it names none)."""
        return (self.error or "error").split(":", 1)[0]

    @property
    def forfeits(self) -> tuple[int, ...]:
        """Players who lost this judgment because their own content broke (or stalled) the judge."""
        if self.verdict is None or not self.verdict.forfeit:
            return self.forfeited
        sides = tuple(p for side, p in zip("ab", self.players, strict=False) if side in self.verdict.forfeit)
        return tuple(sorted(set(sides) | set(self.forfeited)))

    @property
    def is_tie(self) -> bool:
        """A compare with no winner."""
        return self.kind == "compare" and not self.winners

    @property
    def winner(self) -> int | None:
        """The winner of a compare, ``None`` for a tie."""
        return self.winners[0] if self.kind == "compare" and self.winners else None

    def score_of(self, player: int) -> float | None:
        """The score ``player`` received in this compare, ``None`` if there is none."""
        if self.scores is None:
            return None
        return self.scores[self.players.index(player)]

    def replay_key(self) -> tuple[Any, ...]:
        """What identifies this judgment within its group, independent of log order."""
        return (self.kind, self.stage, self.repeat, self.round, self.players, self.k)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        d = asdict(self)
        d["players"] = list(self.players)
        d["winners"] = list(self.winners)
        d["scores"] = None if self.scores is None else list(self.scores)
        d["usage"] = dict(self.usage)
        d["forfeited"] = list(self.forfeited)
        if d["verdict"] is not None:
            d["verdict"]["forfeit"] = list(self.verdict.forfeit)
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Match:
        """Inverse of :meth:`to_dict`."""
        verdict = d.get("verdict")
        return cls(
            kind=d["kind"],
            stage=d["stage"],
            round=int(d["round"]),
            level=int(d["level"]),
            players=tuple(int(p) for p in d["players"]),
            winners=tuple(int(w) for w in d.get("winners", ())),
            scores=None if d.get("scores") is None else tuple(float(s) for s in d["scores"]),
            k=int(d.get("k", 0)),
            repeat=int(d.get("repeat", 0)),
            failed=bool(d.get("failed", False)),
            error=d.get("error"),
            verdict=None if verdict is None else PairVerdict(**verdict),
            usage=dict(d.get("usage") or {}),
            input_related=bool(d.get("input_related", False)),
            forfeited=tuple(int(p) for p in d.get("forfeited", ())),
            judge_fault=bool(d.get("judge_fault", False)),
        )


@dataclass(frozen=True)
class GroupResult:
    """The outcome of ranking one group. Lists are in the order of the input candidates.

    Args:
        ids: candidate ids.
        ranks: 0 is best; tied candidates share the mean of their rank positions.
        rewards: per-candidate reward (ArenaRL eq. 6 or Tournament-GRPO eq. 8-9).
        advantages: rewards standardised within the group (ArenaRL eq. 7, Tournament-GRPO eq. 10).
        points: the topology's own score for each candidate (wins, tier, points, ...), what ``ranks`` come from.
        comparisons: number of ``judge.compare`` / ``judge.select`` calls, failed ones included.
        depth: number of sequential judge waves.
        degraded: some judgment failed and a fallback decided its outcome.
        failures: number of failed judgments.
        failure_reasons: failed judgments counted by ``JudgeError.reason``.
        voided: the group carries no signal (see :attr:`void_reason`): ranks and rewards are all equal and advantages
            are zero.
        matches: the match log, in the order the judgments were issued.
        topology: topology name.
        options: every option the result depends on (topology options, seed, policies), enough to replay.
        details: topology-specific extras, e.g. ``seed_order``.
        group_id: the caller's name for the group, if given.
        digest: a compact result's sums over its match log, which it was sent without (``matches`` is then empty;
            :mod:`~verl_arena.core.match_digest`); ``None`` for a result that has its match log.
    """

    ids: list[str]
    ranks: list[float]
    rewards: list[float]
    advantages: list[float]
    points: list[float]
    comparisons: int
    depth: int
    degraded: bool
    failures: int
    failure_reasons: dict[str, int]
    voided: bool
    matches: list[Match]
    topology: str
    options: dict[str, Any]
    details: dict[str, Any] = field(default_factory=dict)
    group_id: str | None = None
    digest: Any = field(default=None, compare=False, repr=False)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (the match log included)."""
        d = {k: v for k, v in self.__dict__.items() if k not in ("matches", "digest")}
        d["matches"] = [m.to_dict() for m in self.matches]
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> GroupResult:
        """Inverse of :meth:`to_dict`."""
        fields = dict(d)
        fields["matches"] = [Match.from_dict(m) for m in d["matches"]]
        return cls(**fields)

    @property
    def void_reason(self) -> str | None:
        """Why the group was voided: before its tournament finished (``"deadline"``, ...), or after it
        (``"failed_judgments"``: too many judgments failed; ``"judge_fault"``: most candidates would have been blamed
        for breaking the judge, which says the judge is at fault; ``"no_information"``: the judge's own verdicts did not
        depend on the content, none decisive or all following the slot, see :mod:`~verl_arena.core.information`);
        ``None`` when it was not."""
        if not self.voided:
            return None
        return self.details.get("void_reason") or self.details.get("voided_for") or "failed_judgments"

    @property
    def forfeited(self) -> list[bool]:
        """Per candidate: lost at least one match because its own content broke the judge (nobody, in a voided
        group: the judge is blamed there)."""
        out = [False] * len(self.ids)
        if self.voided:
            return out
        if self.digest is not None:
            for p in self.digest.forfeited:
                out[p] = True
            return out
        for m in self.matches:
            for p in m.forfeits:
                out[p] = True
        return out

    @property
    def forfeits(self) -> int:
        """Number of compares decided by a forfeit."""
        if self.digest is not None:
            return self.digest.forfeits
        return sum(bool(m.forfeits) for m in self.matches)


def check_candidates(candidates: Sequence[Candidate], group: str) -> None:
    """Raise ``ConfigError`` for an empty group, non-candidates or duplicate ids."""
    if len(candidates) == 0:
        raise ConfigError(f"{group}: no candidates (a group needs at least one)")
    seen: dict[str, int] = {}
    for i, c in enumerate(candidates):
        if not isinstance(c, Candidate):
            raise ConfigError(f"{group}: candidates[{i}] is a {type(c).__name__}, not a Candidate")
        if c.id in seen:
            raise ConfigError(f"{group}: duplicate candidate id {c.id!r} at positions {seen[c.id]} and {i}")
        seen[c.id] = i
