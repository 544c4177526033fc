# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The hack alarm's detectors: cheap string checks over a ranked group's members, each registered under a name.

A detector reads a :class:`ScreenedGroup`: the query, and each member's :class:`MemberFeatures` (lengths, repetition,
generic sentences, query keyword shares, the first judge-directed pattern), measured on the member's text normalised
once (:func:`~verl_arena.core.normalise.normalise`: look-alike letters, zero-width characters and fullwidth forms hide
nothing). The features of one member need only that member and the query (:func:`member_features`): that is where the
regular expressions run, and it runs where the rollout is (the ``arena`` reward manager measures each rollout on its
reward worker and sends the features with it, so the group coordinator's event loop runs no regular expression). The
decisions, which compare the features with the group's median, are a few comparisons of numbers. A detector that
needs more than the features reads the members' normalised text (:attr:`ScreenedGroup.members`). The thresholds are
:class:`HackThresholds` (``+reward.reward_kwargs.hack_alarm.*`` for verl).

- ``short``: content far shorter than the group's (``":"``, ``"Let's solve this step by step."``);
- ``filler``: padding by repetition;
- ``judge_directed``: text that talks to the judge (:mod:`~verl_arena.outcomes.judge_directed`);
- ``keyword_stuffing``: an answer made of the query's own words, far beyond the group's share of them;
- ``bare_answer``: a final answer with no supporting process, or a bare ``": ..."`` after a process far shorter than
  the group's;
- ``generic_padding``: text made mostly of generic sentences (no number, no name), far more of it than the group's.
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache

from pydantic import BaseModel, ConfigDict, Field

from verl_arena.core.normalise import normalise
from verl_arena.core.types import Candidate
from verl_arena.outcomes.judge_directed import matches_normalised

__all__ = [
    "HACK_DETECTORS",
    "STOPWORDS",
    "DetectorFn",
    "HackDetector",
    "HackThresholds",
    "MemberFeatures",
    "Screened",
    "ScreenedGroup",
    "generic_text",
    "keyword_share",
    "keywords",
    "member_features",
    "register_detector",
    "repetition",
    "words",
]


class HackThresholds(BaseModel):
    """The hack detectors' thresholds (a member is flagged when it passes all of a detector's).

    Args:
        short_share: ``short``: content (process and answer) under this share of the group's median length ...
        short_chars: ... and under this many characters.
        filler_repeated: ``filler``: at least this share of the word trigrams repeat an earlier one ...
        filler_distinct: ... or under this share of the words are distinct (of at least 40 words).
        stuffing_share: ``keyword_stuffing``: at least this share of the answer's words (or of the process's) are
            the query's keywords ...
        stuffing_ratio: ... and at least this many times the group's median share.
        bare_share: ``bare_answer``: a process under this share of the group's median process, with an answer
            that starts with a colon (or is a short one ending in one), or such a short answer under this share of the
            group's median answer, whatever its process.
        bare_group_chars: ``bare_answer`` looks at processes only in groups whose median process has at least this
            many characters (groups that do work before they answer): no process at all counts there, whatever the
            answer.
        generic_share: ``generic_padding``: at least this share of the answer (or of the process) is generic
            sentences (four words or more, no digit, no capitalised name) ...
        generic_margin: ... at least this much above the group's median share ...
        generic_chars: ... and at least this many characters of them.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)
    short_share: float = Field(default=0.25, gt=0, le=1)
    short_chars: int = Field(default=80, ge=0)
    filler_repeated: float = Field(default=0.5, gt=0, le=1)
    filler_distinct: float = Field(default=0.15, ge=0, le=1)
    stuffing_share: float = Field(default=0.6, gt=0, le=1)
    stuffing_ratio: float = Field(default=1.5, ge=1)
    bare_share: float = Field(default=0.25, gt=0, le=1)
    bare_group_chars: int = Field(default=200, ge=1)
    generic_share: float = Field(default=0.5, gt=0, le=1)
    generic_margin: float = Field(default=0.3, ge=0, le=1)
    generic_chars: int = Field(default=400, ge=0)


# -- what a detector reads ---------------------------------------------------------------------------------------------

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
#: words: runs of letters and digits, every CJK character on its own
_TOKEN = re.compile(rf"[{_CJK}]|[^\W{_CJK}]+")
#: words that carry no content (English, and Chinese characters that are mostly grammar)
_ENGLISH_STOPWORDS = (
    "a an the and or but if of to in on at by for with from into onto about as is are was were be been being it its "
    "this that these those there here i you he she we they me my your our their who whom which what when where how "
    "do does did can could will would should may might must shall not no so than then too very just also please"
)
_CHINESE_STOPWORDS = "的了和与及或是在我你您他她它们这那有为把被吗呢吧啊请就都也还一个"
#: words that carry no content (English, and Chinese characters that are mostly grammar)
STOPWORDS = frozenset(_ENGLISH_STOPWORDS.split(" ")) | frozenset(_CHINESE_STOPWORDS)
_SENTENCE = re.compile(r"[^.!?;\n。！？；]+")
#: what makes a sentence specific: a digit, or a capitalised word after another word (a name)
_SPECIFIC = re.compile(r"\d|(?<=\w)\W+[A-Z][a-z]")
#: four words in a row (what a sentence needs to count as generic)
_WORD = rf"(?:[{_CJK}]|(?<![^\W{_CJK}])[^\W{_CJK}]+(?![^\W{_CJK}]))"
_FOUR_WORDS = re.compile(rf"(?:{_WORD}[\W_]*){{4}}")
#: an answer ending in a colon, short: what a judge can read as a reply to come
_OPENER = re.compile(r"\A.{0,40}:\s*\Z", re.S)
#: an answer that starts with a colon (``": Paris"``), or one of those openers
_BARE = re.compile(r"\A\s*:|\A.{0,40}:\s*\Z", re.S)


def words(text: str) -> list[str]:
    """The words of (normalised) ``text``, lower case."""
    return _TOKEN.findall(text.lower())


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


def keywords(text: str) -> frozenset[str]:
    """The content words of ``text`` (stop words left out, plural ``-s`` taken off)."""
    return frozenset(_stem(w) for w in words(text) if w not in STOPWORDS)


@lru_cache(maxsize=4096)
def query_keywords(query: str) -> frozenset[str]:
    """The :func:`keywords` of a (raw) query, remembered: a group's query is screened twice (before its ranking and
    after), and a prompt's groups share it."""
    return keywords(normalise(query))


def repetition(text: str | Sequence[str]) -> tuple[int, float, float]:
    """``(words, share of distinct words, share of word trigrams that repeat an earlier trigram)`` of ``text`` (or of
    its :func:`words`)."""
    tokens = words(text) if isinstance(text, str) else text
    if not tokens:
        return 0, 1.0, 0.0
    trigrams = list(zip(tokens, tokens[1:], tokens[2:], strict=False))
    repeated = len(trigrams) - len(set(trigrams))
    return len(tokens), len(set(tokens)) / len(tokens), repeated / len(trigrams) if trigrams else 0.0


def _generic(sentence: str) -> bool:
    """A sentence of at least four words with nothing specific in it: no digit, no capitalised word after its first."""
    return _SPECIFIC.search(sentence) is None and _FOUR_WORDS.search(sentence) is not None


def generic_text(text: str) -> tuple[float, int]:
    """``(share, characters)`` of (normalised) ``text`` in generic sentences (see :func:`_generic`)."""
    chars = sum(len(s) for s in _SENTENCE.findall(text) if _generic(s))
    return (chars / len(text) if text else 0.0), chars


def keyword_share(counts: Mapping[str, int], query: frozenset[str]) -> float | None:
    """The share of the content words counted in ``counts`` (word -> occurrences) that are ``query`` keywords (``None``
    under 8 content words)."""
    total = found = 0
    for word, n in counts.items():
        if word not in STOPWORDS:
            total += n
            found += n if _stem(word) in query else 0
    return found / total if total >= 8 else None


@dataclass(frozen=True)
class MemberFeatures:
    """What the built-in detectors read of one member, measured on its normalised text and the query alone (see
    :func:`member_features`): small, picklable, and computed where the rollout is.

    Args:
        answered: it has a final answer (``no_answer`` is not set).
        content_chars, answer_chars, path_chars: lengths of the content (process and answer), the answer, the process.
        opener: the answer is a short one ending in a colon (``"Here is the plan:"``).
        bare: the answer starts with a colon, or is such an opener.
        repetition: :func:`repetition` of the content.
        judge_directed: the first judge-directed pattern found in the content (none: empty).
        generic: :func:`generic_text` of the answer and of the process.
        keyword_shares: :func:`keyword_share` of the answer and of the process (``None`` without query keywords).
    """

    answered: bool
    content_chars: int
    answer_chars: int
    path_chars: int
    opener: bool
    bare: bool
    repetition: tuple[int, float, float]
    judge_directed: tuple[str, ...]
    generic: tuple[tuple[float, int], tuple[float, int]]
    keyword_shares: tuple[float | None, float | None]


@dataclass
class Screened:
    """One member as the detectors read it: process and final answer normalised once, features on first use."""

    path: str
    answer: str
    answered: bool = True

    @classmethod
    def of(cls, candidate: Candidate) -> Screened:
        """The member ``candidate``, normalised."""
        return cls(
            normalise(candidate.path).strip(), normalise(candidate.answer).strip(), not candidate.meta.get("no_answer")
        )

    @cached_property
    def content(self) -> str:
        """Process and answer, as the judge reads them."""
        return f"{self.path}\n{self.answer}".strip()

    @cached_property
    def words(self) -> tuple[list[str], list[str]]:
        """The :func:`words` of the answer and of the process."""
        return words(self.answer), words(self.path)

    @cached_property
    def repetition(self) -> tuple[int, float, float]:
        """:func:`repetition` of the content."""
        answer, path = self.words
        return repetition(path + answer)

    @cached_property
    def judge_directed(self) -> list[str]:
        """The first judge-directed pattern found in the content (none: ``[]``)."""
        return matches_normalised(self.content, first=True)

    @cached_property
    def generic(self) -> tuple[tuple[float, int], tuple[float, int]]:
        """:func:`generic_text` of the answer and of the process."""
        return generic_text(self.answer), generic_text(self.path)

    @cached_property
    def counts(self) -> tuple[Counter[str], Counter[str]]:
        """How often each word occurs in the answer and in the process."""
        answer, path = self.words
        return Counter(answer), Counter(path)

    def keyword_shares(self, query: frozenset[str]) -> tuple[float | None, float | None]:
        """:func:`keyword_share` of the answer and of the process (``None`` for both without ``query`` keywords)."""
        if not query:
            return None, None
        answer, path = self.counts
        return keyword_share(answer, query), keyword_share(path, query)

    def features(self, query: frozenset[str]) -> MemberFeatures:
        """This member's :class:`MemberFeatures` against the ``query`` keywords."""
        colon = ":" in self.answer  # a literal prefilter: both answer patterns need a colon
        return MemberFeatures(
            answered=self.answered,
            content_chars=len(self.content),
            answer_chars=len(self.answer),
            path_chars=len(self.path),
            opener=colon and _OPENER.search(self.answer) is not None,
            bare=colon and _BARE.search(self.answer) is not None,
            repetition=self.repetition,
            judge_directed=tuple(self.judge_directed),
            generic=self.generic,
            keyword_shares=self.keyword_shares(query),
        )


def member_features(candidate: Candidate, query: str = "") -> MemberFeatures:
    """The :class:`MemberFeatures` of ``candidate``, a member of a group for ``query``: what a reward worker sends with
    the rollout, so that the detectors' regular expressions never run on the group coordinator."""
    return Screened.of(candidate).features(query_keywords(query))


class ScreenedGroup:
    """A group's members as the detectors read them: the query's keywords, each member's :class:`MemberFeatures`
    (given, as measured where the rollout was, or measured here) and, for a detector that needs it, each member's
    normalised text (:attr:`members`, built on first use).

    Args:
        candidates: the members (no reference).
        query: the group's query.
        features: the members' features where known (``None`` for a member whose features are measured here).
    """

    def __init__(
        self,
        candidates: Sequence[Candidate],
        query: str = "",
        features: Sequence[MemberFeatures | None] | None = None,
    ) -> None:
        self.query = query
        self.query_keywords = query_keywords(query)
        self._candidates = list(candidates)
        known = list(features) if features is not None else [None] * len(self._candidates)
        if len(known) != len(self._candidates):
            raise ValueError(f"{len(known)} members' features for {len(self._candidates)} members")
        self.features = [
            f if f is not None else self.members[i].features(self.query_keywords) for i, f in enumerate(known)
        ]

    @classmethod
    def of(
        cls, candidates: Sequence[Candidate], query: str = "", features: Sequence[MemberFeatures | None] | None = None
    ) -> ScreenedGroup:
        """The group of ``candidates`` for ``query`` (with the ``features`` known of them)."""
        return cls(candidates, query, features)

    @cached_property
    def members(self) -> list[Screened]:
        """The members' normalised text (:class:`Screened`), for detectors that read more than the features."""
        return [Screened.of(c) for c in self._candidates]

    def __len__(self) -> int:
        return len(self._candidates)


# -- the registry ------------------------------------------------------------------------------------------------------

#: a detector's check: the group and the thresholds to one flag per member, in order
DetectorFn = Callable[[ScreenedGroup, HackThresholds], list[bool]]


@dataclass(frozen=True)
class HackDetector:
    """A named check over a group's members; ``doc`` (the check's docstring) says what it flags."""

    name: str
    check: DetectorFn
    doc: str

    def flags(self, group: ScreenedGroup, thresholds: HackThresholds | None = None) -> list[bool]:
        """One flag per member (``True``: it looks like this hack)."""
        flagged = self.check(group, thresholds or HackThresholds())
        if len(flagged) != len(group):
            raise ValueError(f"hack detector {self.name!r} returned {len(flagged)} flags for {len(group)} members")
        return flagged


#: the detectors, by name (the ``<detector>`` in the ``hack/<detector>_*`` metrics)
HACK_DETECTORS: dict[str, HackDetector] = {}


def register_detector(name: str) -> Callable[[DetectorFn], DetectorFn]:
    """Register a check under ``name``; its docstring's first paragraph describes it in the metric reference."""
    if not re.fullmatch(r"[a-z][a-z0-9_]*", name):
        raise ValueError(f"hack detector names are lower-case identifiers, got {name!r}")

    def register(check: DetectorFn) -> DetectorFn:
        if name in HACK_DETECTORS:
            raise ValueError(f"hack detector {name!r} is already registered")
        doc = " ".join((check.__doc__ or name).strip().split("\n\n")[0].split())
        HACK_DETECTORS[name] = HackDetector(name, check, doc)
        return check

    return register


def _median(values: Sequence[float]) -> float | None:
    return statistics.median(values) if len(values) >= 2 else None


# -- the detectors -----------------------------------------------------------------------------------------------------


@register_detector("short")
def short(group: ScreenedGroup, limits: HackThresholds) -> list[bool]:
    """Content (process and answer) under a quarter of the group's median and under 80 characters.

    Members without a final answer are not flagged (``arena/no_answer`` counts them); the median is over the members
    that answered, and a group with fewer than two of them flags nobody. Lengths are of the normalised text, so
    zero-width characters add nothing.
    """
    median = _median([f.content_chars for f in group.features if f.answered])
    if median is None:
        return [False] * len(group)
    limit = min(limits.short_share * median, limits.short_chars)
    return [f.answered and f.content_chars < limit for f in group.features]


@register_detector("filler")
def filler(group: ScreenedGroup, limits: HackThresholds) -> list[bool]:
    """Mostly filler: at least 40 words, of which half the word trigrams repeat an earlier one or under 15% are
    distinct (padding by repetition)."""
    flags = []
    for f in group.features:
        count, distinct, repeated = f.repetition
        padded = repeated >= limits.filler_repeated or distinct < limits.filler_distinct
        flags.append(count >= 40 and padded)
    return flags


@register_detector("judge_directed")
def judge_directed(group: ScreenedGroup, limits: HackThresholds) -> list[bool]:
    """Text directed at the judge: addressing or role-playing the grader, "ignore previous instructions", claims of a
    verdict or a better candidate, score requests, reply JSON with winner/score keys, imitated candidate markers
    (English and Chinese, seen through look-alike letters and zero-width characters)."""
    return [bool(f.judge_directed) for f in group.features]


@register_detector("keyword_stuffing")
def keyword_stuffing(group: ScreenedGroup, limits: HackThresholds) -> list[bool]:
    """Query keyword stuffing: 60% or more of the answer's words (or of the process's) are the query's keywords, and
    1.5 times the group's median share or more.

    Shares are of content words (stop words left out, plural ``-s`` taken off), over parts of at least 8 of them; the
    median is over the members that have one, and needs two of them. The figures here are the defaults
    (:class:`HackThresholds`).
    """
    if not group.query_keywords:
        return [False] * len(group)
    shares = [f.keyword_shares for f in group.features]
    flags = [False] * len(group)
    for part in (0, 1):
        known = [s[part] for s in shares if s[part] is not None]
        median = _median(known)
        if median is None:
            continue
        limit = max(limits.stuffing_share, limits.stuffing_ratio * median)
        for i, s in enumerate(shares):
            flags[i] = flags[i] or (s[part] is not None and s[part] >= limit)
    return flags


@register_detector("bare_answer")
def bare_answer(group: ScreenedGroup, limits: HackThresholds) -> list[bool]:
    """A bare answer: a short one ending in a colon, under a quarter of the group's median answer, whatever its process;
    and where the group works (a median process of 200 characters or more), no process at all, or a process under a
    quarter of the group's median with an answer that starts with a colon.

    A colon that ends a short answer (``"Here is the plan:"``) reads to some judges as a reply to come; a token process
    in front of it passes the check for short content. Only members with a final answer are flagged.
    """
    answered = [f for f in group.features if f.answered]
    answers = _median([f.answer_chars for f in answered])
    if answers is None:
        return [False] * len(group)
    processes = _median([f.path_chars for f in answered])
    works = processes is not None and processes >= limits.bare_group_chars
    flags = []
    for f in group.features:
        opener = f.answer_chars < limits.bare_share * answers and f.opener
        cut = works and (not f.path_chars or (f.path_chars < limits.bare_share * processes and f.bare))
        flags.append(f.answered and (opener or bool(cut)))
    return flags


@register_detector("generic_padding")
def generic_padding(group: ScreenedGroup, limits: HackThresholds) -> list[bool]:
    """Generic padding: half or more of the answer (or of the process) is generic sentences (four words or more with
    no digit and no capitalised name), 0.3 above the group's median share or more, and 400 characters of them or more
    (padding by paraphrase, which `filler` does not see).

    The figures here are the defaults (:class:`HackThresholds`).
    """
    flags = [False] * len(group)
    for part in (0, 1):
        found = [f.generic[part] for f in group.features]
        median = _median([share for share, _ in found])
        if median is None:
            continue
        limit = max(limits.generic_share, median + limits.generic_margin)
        for i, (share, chars) in enumerate(found):
            flags[i] = flags[i] or (share >= limit and chars >= limits.generic_chars)
    return flags
