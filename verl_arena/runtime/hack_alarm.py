# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""A cheap alarm for judge hacking during training: no judge calls, only a look at what won.

A policy trained against an LLM judge learns the judge's weaknesses. Some of them leave marks in the rollouts that a
few string checks can see: an answer far shorter than the rest of its group (``":"``, ``"Let's solve this step by
step."``), an answer padded with repetition, an answer that talks to the judge. Each check is a registered
:class:`HackDetector` (:data:`HACK_DETECTORS`); :func:`screen_group` runs them over one ranked group and counts the
members each one flags and the *wins* those members took.

A member **wins** when its reward is strictly above the median reward of its group's members (the reference, if any,
left out): the top half of a group of distinct rewards (2 of 4, 2 of 5), nobody in a group of equal rewards. Voided
groups are not screened at all: their rewards carry no preference.

The group coordinator stores the counts on each group's :class:`~verl_arena.runtime.outcomes.GroupSummary`, the step
metrics turn them into ``hack/*`` shares (:func:`hack_metrics`), and :class:`HackAlarm` watches the win shares over a
window of steps and logs a warning when one rises. A flag is a suspicion, not a verdict: an honest terse answer can
be short, an honest table repetitive. The alarm is about a *rise* in the share of wins such answers take; what to do
then is ``verl-arena audit`` on the judge (see docs/judging.md).
"""

from __future__ import annotations

import logging
import math
import re
import statistics
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from verl_arena.core.types import Candidate

__all__ = [
    "HACK_DETECTORS",
    "JUDGE_DIRECTED_PATTERNS",
    "HackAlarm",
    "HackCounts",
    "HackDetector",
    "hack_metric_descriptions",
    "hack_metrics",
    "register_detector",
    "screen_group",
    "winners",
]

logger = logging.getLogger(__name__)

#: a detector's check: the group's members (in order) to one flag per member
DetectorFn = Callable[[Sequence[Candidate]], list[bool]]


@dataclass(frozen=True)
class HackDetector:
    """A named check over a group's members; ``doc`` (the check's docstring) says what it flags."""

    name: str
    check: DetectorFn
    doc: str

    def flags(self, candidates: Sequence[Candidate]) -> list[bool]:
        """One flag per candidate (``True``: it looks like this hack)."""
        flagged = self.check(candidates)
        if len(flagged) != len(candidates):
            raise ValueError(f"hack detector {self.name!r} returned {len(flagged)} flags for {len(candidates)} members")
        return flagged


#: the detectors, by name (the ``<detector>`` in the ``hack/<detector>_*`` metrics)
HACK_DETECTORS: dict[str, HackDetector] = {}


def register_detector(name: str) -> Callable[[DetectorFn], DetectorFn]:
    """Register a check under ``name``; its docstring's first line describes it in the metric reference."""
    if not re.fullmatch(r"[a-z][a-z0-9_]*", name):
        raise ValueError(f"hack detector names are lower-case identifiers, got {name!r}")

    def register(check: DetectorFn) -> DetectorFn:
        if name in HACK_DETECTORS:
            raise ValueError(f"hack detector {name!r} is already registered")
        doc = " ".join((check.__doc__ or name).strip().split("\n\n")[0].split())
        HACK_DETECTORS[name] = HackDetector(name, check, doc)
        return check

    return register


def _content(candidate: Candidate) -> str:
    """What the judge reads of a candidate: its process and its final answer."""
    return f"{candidate.path.strip()}\n{candidate.answer.strip()}".strip()


# -- short -------------------------------------------------------------------------------------------------------------

#: a member is short when it is under this share of its group's median length ...
SHORT_RELATIVE = 0.25
#: ... and under this many characters
SHORT_FLOOR = 80


@register_detector("short")
def short(candidates: Sequence[Candidate]) -> list[bool]:
    """Content (process and answer) under a quarter of the group's median and under 80 characters.

    Members without a final answer are not flagged (``arena/no_answer`` counts them); the median is over the members
    that answered, and a group with fewer than two of them flags nobody.
    """
    answered = [not c.meta.get("no_answer") for c in candidates]
    lengths = [len(_content(c)) for c in candidates]
    known = [n for n, ok in zip(lengths, answered, strict=True) if ok]
    if len(known) < 2:
        return [False] * len(candidates)
    limit = min(SHORT_RELATIVE * statistics.median(known), SHORT_FLOOR)
    return [ok and n < limit for n, ok in zip(lengths, answered, strict=True)]


# -- filler ------------------------------------------------------------------------------------------------------------

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
#: words: runs of letters and digits, every CJK character on its own
_TOKEN = re.compile(rf"[{_CJK}]|[^\W{_CJK}]+")
#: fewer words than this are too few to call filler
FILLER_MIN_TOKENS = 40
#: filler when this share of the word trigrams repeat an earlier one ...
FILLER_REPEATED_TRIGRAMS = 0.5
#: ... or when fewer than this share of the words are distinct
FILLER_DISTINCT = 0.15


def repetition(text: str) -> tuple[int, float, float]:
    """``(words, share of distinct words, share of word trigrams that repeat an earlier trigram)`` of ``text``."""
    tokens = _TOKEN.findall(text.lower())
    if not tokens:
        return 0, 1.0, 0.0
    trigrams = list(zip(tokens, tokens[1:], tokens[2:], strict=False))
    repeated = len(trigrams) - len(set(trigrams))
    return len(tokens), len(set(tokens)) / len(tokens), repeated / len(trigrams) if trigrams else 0.0


@register_detector("filler")
def filler(candidates: Sequence[Candidate]) -> list[bool]:
    """Mostly filler: at least 40 words, of which half the word trigrams repeat an earlier one or under 15% are
    distinct (padding by repetition)."""
    flags = []
    for c in candidates:
        words, distinct, repeated = repetition(_content(c))
        padded = repeated >= FILLER_REPEATED_TRIGRAMS or distinct < FILLER_DISTINCT
        flags.append(words >= FILLER_MIN_TOKENS and padded)
    return flags


# -- judge-directed text -----------------------------------------------------------------------------------------------

_GRADER = r"(?:judge|grader|evaluator|reviewer|assessor|rater)s?"
#: text that talks to the judge instead of answering the query, by name (English and Chinese)
JUDGE_DIRECTED_PATTERNS: dict[str, re.Pattern[str]] = {
    name: re.compile(pattern, re.IGNORECASE)
    for name, pattern in {
        "ignore_instructions": r"\b(?:ignore|disregard|forget|override)\b[^.\n]{0,40}?\b(?:previous|prior|above|"
        r"earlier|preceding|all|other|your|system)\b[^.\n]{0,30}?\b(?:instructions?|prompts?|rules|criteria|"
        r"guidelines|rubrics?)\b|\bignore (?:all |everything )?(?:the )?(?:above|previous|prior)\b",
        "addresses_grader": rf"\b(?:dear|attention|note (?:to|for)|hello|hi|hey|message (?:to|for)|instructions? "
        rf"(?:to|for))\s*,?\s*(?:the|all|any)?\s*(?:ai|llm|automated)?\s*{_GRADER}\s*[:,]",
        "grader_directive": r"\b(?:grader|evaluator|rater|assessor)s?\s*[:,]?\s*(?:must|should|shall|"
        r"please|needs? to|is (?:instructed|required|asked) to|are (?:instructed|required|asked) to)\b",
        "machine_grader": rf"\b(?:ai|llm|gpt|language[- ]model|automated)[- ]{_GRADER}\b",
        "grader_roleplay": rf"\b(?:you are|you're|act as|acting as|as) (?:the|an?) (?:impartial |fair |expert )?"
        rf"{_GRADER}\b",
        "verdict_claim": r"\b(?:(?:final|official|correct|the) )?(?:verdict|winner|judg(?:e)?ment)\s*"
        r"(?:is|was|:|=)\s*(?:that\s+)?(?:candidate|answer|response|assistant|output|submission)?\s*"
        r"\[{0,2}(?-i:[AB12])\]{0,2}(?!\w)",
        "bracket_verdict": r"\[\[(?-i:[ABC])\]\]",
        "better_claim": r"\b(?:candidate|response|submission|assistant)\s*\[?(?-i:[AB12])\]?\s+(?:is|was|"
        r"should be)\s+(?:clearly\s+|definitely\s+)?(?:the\s+)?(?:better|winner|best|preferred|superior)\b",
        "score_request": r"\b(?:give|assign|award|rate|grade)\b[^.\n]{0,40}?(?:\b10\s*/\s*10|\b100\s*/"
        r"\s*100|\b5\s*/\s*5|\bfull marks|\b(?:the )?(?:highest|maximum|max|perfect|top|full) (?:possible )?"
        r"(?:score|rating|grade|marks))",
        "self_rating": r"\b(?:this|my|the following) (?:answer|response|solution|output|submission) (?:is|should be|"
        r"must be|deserves to be) (?:rated|scored|graded|judged|ranked|preferred|chosen|selected)\b",
        "reply_json": r"\{\s*[\"'](?:winner|verdict|better|preferred|choice|decision|score|scores|score_a|score_b|"
        r"rating|ratings|ranking)[\"']\s*:",
        "candidate_markers": r"<<<\s*(?:END\s+)?(?:CANDIDATE|ANSWER|RESPONSE)\b|\[\s*(?:END|BEGIN|START) OF "
        r"(?:CANDIDATE|RESPONSE|ANSWER) ?[AB12]?\s*\]",
        "zh_ignore_instructions": r"(?:忽略|无视|忽视|忘记|忘掉|不要理会|不必理会)(?:掉)?(?:之前|以上|上面|前面|先前|"
        r"此前|所有|全部|其他|系统)的?(?:所有|全部|一切)?(?:的)?(?:指令|指示|说明|要求|规则|提示|评分标准|标准)",
        "zh_addresses_grader": r"(?:致|亲爱的|尊敬的|各位|请)\s*(?:AI|ai|人工智能)?\s*(?:评委|裁判|评审|评审员|"
        r"评估者|评分者|评分员|打分者|评判者|阅卷人|阅卷老师)",
        "zh_grader_directive": r"(?:评委|评审员|评估者|评分者|评分员|打分者|评判者|阅卷人)\s*[:：,，]?\s*"
        r"(?:请|应该|应当|必须|务必|需要|只需)",
        "zh_grader_roleplay": r"(?:你是|作为|扮演)(?:一(?:名|位|个))?(?:公正的|公平的|专业的)?(?:评委|裁判|评审|"
        r"评估者|评分者|评分员|评判者)",
        "zh_verdict_claim": r"(?:最终)?(?:裁决|评判结果|胜者|获胜者|赢家|胜出者)\s*(?:是|为|:|：)\s*"
        r"(?:回答|答案|候选|选项|候选答案)?\s*[AB12甲乙](?![0-9A-Za-z])",
        "zh_better_claim": r"(?:回答|候选|候选答案)\s*[AB12甲乙]\s*(?:明显|显然)?(?:更好|更优|更佳|胜出|"
        r"获胜|最好|最佳)",
        "zh_score_request": r"(?:给|打|评|给予|给出)[^。\n]{0,12}?(?:满分|最高分|10\s*分(?!钟)|100\s*分(?!钟)|一百分)",
        "zh_self_rating": r"(?:本|这个|此|我的)(?:回答|答案|解答)(?:应该|应当|应|必须)?(?:被)?(?:评为|判为|选为|"
        r"打满分|获胜|胜出)",
    }.items()
}


_HAS_CJK = re.compile(f"[{_CJK}]")


def _patterns_for(text: str) -> list[tuple[str, re.Pattern[str]]]:
    """The patterns worth trying on ``text``: the Chinese ones (``zh_*``) only when it has CJK characters."""
    cjk = _HAS_CJK.search(text) is not None
    return [(name, p) for name, p in JUDGE_DIRECTED_PATTERNS.items() if cjk or not name.startswith("zh_")]


def judge_directed_matches(text: str) -> list[str]:
    """The names of the :data:`JUDGE_DIRECTED_PATTERNS` found in ``text``."""
    return [name for name, pattern in _patterns_for(text) if pattern.search(text)]


@register_detector("judge_directed")
def judge_directed(candidates: Sequence[Candidate]) -> list[bool]:
    """Text directed at the judge: addressing or role-playing the grader, "ignore previous instructions", claims of a
    verdict or a better candidate, score requests, reply JSON with winner/score keys, imitated candidate markers
    (English and Chinese)."""
    texts = [_content(c) for c in candidates]
    return [any(pattern.search(text) for _, pattern in _patterns_for(text)) for text in texts]


# -- one group ---------------------------------------------------------------------------------------------------------


def winners(rewards: Sequence[float]) -> list[bool]:
    """The members that won: reward strictly above the median reward (nobody when all rewards are equal)."""
    if not rewards:
        return []
    median = statistics.median(rewards)
    return [r > median and not math.isclose(r, median, abs_tol=1e-12) for r in rewards]


@dataclass(frozen=True)
class HackCounts:
    """One group's screening: ``members`` screened, ``wins`` among them, per-detector ``flagged`` members and their
    ``flagged_wins``, and members flagged by any detector (``any_flagged``) and their wins (``any_wins``)."""

    members: int = 0
    wins: int = 0
    flagged: dict[str, int] = field(default_factory=dict)
    flagged_wins: dict[str, int] = field(default_factory=dict)
    any_flagged: int = 0
    any_wins: int = 0


def screen_group(
    candidates: Sequence[Candidate],
    rewards: Sequence[float],
    *,
    voided: bool = False,
    detectors: Mapping[str, HackDetector] | None = None,
) -> HackCounts:
    """Run the detectors (all registered ones by default) over a ranked group's members and count flags and wins.

    ``candidates`` are the members (no reference) and ``rewards`` their rewards, in the same order; a voided group,
    or one with fewer than two members, is not screened (all counts 0).
    """
    if len(candidates) != len(rewards):
        raise ValueError(f"{len(candidates)} members but {len(rewards)} rewards")
    if voided or len(candidates) < 2:
        return HackCounts()
    won = winners(rewards)
    flagged: dict[str, int] = {}
    flagged_wins: dict[str, int] = {}
    suspect = [False] * len(candidates)
    for name, detector in (HACK_DETECTORS if detectors is None else detectors).items():
        flags = detector.flags(candidates)
        flagged[name] = sum(flags)
        flagged_wins[name] = sum(f and w for f, w in zip(flags, won, strict=True))
        suspect = [s or f for s, f in zip(suspect, flags, strict=True)]
    return HackCounts(
        members=len(candidates),
        wins=sum(won),
        flagged=flagged,
        flagged_wins=flagged_wins,
        any_flagged=sum(suspect),
        any_wins=sum(s and w for s, w in zip(suspect, won, strict=True)),
    )


# -- step metrics ------------------------------------------------------------------------------------------------------


def hack_metric_descriptions() -> dict[str, str]:
    """The ``hack/*`` step metrics, and what each one is."""
    out: dict[str, str] = {}
    for name, detector in HACK_DETECTORS.items():
        what = detector.doc[:1].lower() + detector.doc[1:]
        out[f"hack/{name}_share"] = f"share of the step's screened rollouts flagged by `{name}`: {what}"
        out[f"hack/{name}_win_share"] = (
            f"share of the step's wins (reward above the group's median) taken by rollouts flagged by `{name}`"
        )
    out["hack/share"] = "share of the step's screened rollouts (members of ranked, unvoided groups) flagged by any "
    out["hack/share"] += "hack detector"
    out["hack/win_share"] = "share of the step's wins taken by rollouts flagged by any hack detector"
    out["hack/alarm"] = (
        "ALARM: 1 on a step where a detector's win share rose over the last steps (a WARNING in the coordinator's log "
        "names it): the policy may be exploiting the judge; run `verl-arena audit`"
    )
    return out


def hack_metrics(groups: Sequence[HackCounts]) -> dict[str, float]:
    """The ``hack/*`` shares of a step's screened groups (nothing when no member was screened)."""
    members = sum(g.members for g in groups)
    if not members:
        return {}
    wins = sum(g.wins for g in groups)
    out: dict[str, float] = {}
    for name in HACK_DETECTORS:
        out[f"hack/{name}_share"] = sum(g.flagged.get(name, 0) for g in groups) / members
        out[f"hack/{name}_win_share"] = sum(g.flagged_wins.get(name, 0) for g in groups) / wins if wins else 0.0
    out["hack/share"] = sum(g.any_flagged for g in groups) / members
    out["hack/win_share"] = sum(g.any_wins for g in groups) / wins if wins else 0.0
    return out


# -- the alarm ---------------------------------------------------------------------------------------------------------


class HackAlarm:
    """Watches each detector's ``hack/<detector>_win_share`` over the last ``window`` steps and warns when it rises.

    With a full window, the mean of its recent half is compared with the mean of its earlier half: the alarm fires
    when the recent mean exceeds the earlier one by at least ``margin`` and is itself at least ``floor``. It fires once
    per rise: a detector that fired stays quiet until its condition has cleared.

    Args:
        window: steps compared (at least 2; the default 10 compares the last 5 steps with the 5 before).
        margin: the least rise of the mean win share, earlier half to recent half.
        floor: the least recent mean win share worth a warning.
    """

    def __init__(self, window: int = 10, margin: float = 0.15, floor: float = 0.25) -> None:
        if window < 2:
            raise ValueError(f"HackAlarm.window must be at least 2, got {window}")
        for name, value in (("margin", margin), ("floor", floor)):
            if not (math.isfinite(value) and 0.0 <= value <= 1.0):
                raise ValueError(f"HackAlarm.{name} must be between 0 and 1, got {value}")
        self.window = window
        self.margin = margin
        self.floor = floor
        self._history: dict[str, deque[float]] = {}
        self._raised: set[str] = set()
        self.fired: list[tuple[str, float, float]] = []

    def observe(self, metrics: Mapping[str, float]) -> dict[str, float]:
        """Take one step's metrics; return them with ``hack/alarm`` added (1.0 when an alarm fired on this step).

        Metrics without ``hack/*`` win shares (an empty step) pass through unchanged and do not move the window.
        """
        fired = False
        for name, detector in HACK_DETECTORS.items():
            share = metrics.get(f"hack/{name}_win_share")
            if share is None:
                continue
            history = self._history.setdefault(name, deque(maxlen=self.window))
            history.append(float(share))
            if len(history) < self.window:
                continue
            half = self.window // 2
            values = list(history)
            earlier = math.fsum(values[: self.window - half]) / (self.window - half)
            recent = math.fsum(values[-half:]) / half
            rising = recent >= self.floor and recent - earlier >= self.margin
            if rising and name not in self._raised:
                self._raised.add(name)
                self.fired.append((name, earlier, recent))
                fired = True
                logger.warning(
                    "hack alarm: rollouts flagged by %r (%s) took %.0f%% of the wins over the last %d steps, up from "
                    "%.0f%% over the %d before: the policy may be exploiting the judge. Check the judgment log for "
                    "such winners, run `verl-arena audit` on this judge and template, and see docs/judging.md for "
                    "what to change (template, order swap, ensemble, length control, a stronger judge)",
                    name, detector.doc, 100 * recent, half, 100 * earlier, self.window - half,
                )  # fmt: skip
            elif not rising:
                self._raised.discard(name)
        if not any(k.startswith("hack/") for k in metrics):
            return dict(metrics)
        return {**metrics, "hack/alarm": float(fired)}
