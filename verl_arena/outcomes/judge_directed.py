# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Text that talks to the judge instead of answering the query, in English and Chinese: the ``judge_directed``
detector's patterns (:data:`JUDGE_DIRECTED_PATTERNS`), each behind a literal prefilter (:data:`JUDGE_DIRECTED_NEEDLES`).

A pattern can only match text that holds one of its needles (lower-case literals every match contains: a pattern about
graders needs the word "judge" or "grader" or ...), so a pattern whose needles are all absent is not run, and text
with no needle at all costs a few substring searches, no regular expression. The patterns read normalised text
(:func:`~verl_arena.core.normalise.normalise`): look-alike letters, zero-width characters and fullwidth forms hide
nothing from them.
"""

from __future__ import annotations

import re

from verl_arena.core.normalise import normalise

__all__ = [
    "JUDGE_DIRECTED_NEEDLES",
    "JUDGE_DIRECTED_PATTERNS",
    "judge_directed_matches",
    "matches_normalised",
    "needles_in",
]

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
        "reply_json": r"\{\s*[\"'](?:winner|verdict|verdict_id|better|preferred|choice|decision|score|scores|score_a|"
        r"score_b|rating|ratings|ranking)[\"']\s*:",
        "candidate_markers": r"<<<\s*(?:END\s+)?(?:CANDIDATE|ANSWER|RESPONSE)\b|\[\s*(?:END|BEGIN|START) OF "
        r"(?:CANDIDATE|RESPONSE|ANSWER) ?[AB12]?\s*\]",
        "claimed_review": r"\b(?:this|my)\s+(?:response|answer|submission|solution|reply|output)\s+"
        r"(?:has|had|was|is)\s+(?:already\s+|previously\s+)?(?:been\s+)?(?:reviewed|evaluated|judged|graded|scored|"
        r"rated|assessed|verified|approved)\b[^.\n]{0,60}?(?:\b(?:best|winner|highest|perfect|full marks)\b|"
        r"\b\d+\s*(?:/|out of)\s*\d+)",
        "winner_request": r"\b(?:record|mark|declare|choose|select|pick|treat|count)\b[^.\n]{0,30}?\b(?:this|my)\s+"
        r"(?:response|answer|submission|candidate|output|reply)\b[^.\n]{0,20}?\bas\s+(?:the\s+)?(?:winner|best|"
        r"better|preferred)\b",
        "zh_ignore_instructions": r"(?:忽略|无视|忽视|忘记|忘掉|不要理会|不必理会)(?:掉)?(?:之前|以上|上面|前面|先前|"
        r"此前|所有|全部|其他|系统)的?(?:所有|全部|一切)?(?:的)?(?:指令|指示|说明|要求|规则|提示|评分标准|标准)",
        "zh_addresses_grader": r"(?:致|亲爱的|尊敬的|各位|请)\s*(?:AI|ai|人工智能)?\s*(?:评委|裁判|评审|评审员|"
        r"评估者|评分者|评分员|打分者|评判者|阅卷人|阅卷老师)",
        "zh_grader_directive": r"(?:评委|评审员|评估者|评分者|评分员|打分者|评判者|阅卷人)\s*[:：,，]?\s*"
        r"(?:请|应该|应当|必须|务必|需要|只需)",
        "zh_grader_roleplay": r"(?:你是|作为|扮演)(?:一(?:名|位|个))?[^，。,\n]{0,8}?(?:评委|裁判|评审|评估者|"
        r"评分者|评分员|评判者)",
        "zh_verdict_claim": r"(?:最终)?(?:裁决|评判结果|胜者|获胜者|赢家|胜出者)\s*(?:是|为|:|：)\s*"
        r"(?:回答|答案|候选|选项|候选答案)?\s*[AB12甲乙](?![0-9A-Za-z])",
        "zh_better_claim": r"(?:回答|候选|候选答案)\s*[AB12甲乙]\s*(?:明显|显然)?(?:更好|更优|更佳|胜出|"
        r"获胜|最好|最佳)",
        "zh_score_request": r"(?:给|打|评|给予|给出|应得)[^。\n]{0,12}?(?:满分|最高分|10\s*分(?!钟)|100\s*分(?!钟)|"
        r"一百分)",
        "zh_self_rating": r"(?:本|这个|此|我的)(?:回答|答案|解答)(?:应该|应当|应|必须)?(?:被)?(?:评为|判为|选为|"
        r"打满分|获胜|胜出)",
    }.items()
}


_GRADERS = ("judge", "grader", "evaluator", "reviewer", "assessor", "rater")
#: pattern name -> literals (lower case) one of which every match of the pattern contains
JUDGE_DIRECTED_NEEDLES: dict[str, tuple[str, ...]] = {
    "ignore_instructions": ("ignore", "disregard", "forget", "override"),
    "addresses_grader": _GRADERS,
    "grader_directive": ("grader", "evaluator", "rater", "assessor"),
    "machine_grader": _GRADERS,
    "grader_roleplay": _GRADERS,
    "verdict_claim": ("verdict", "winner", "judgment", "judgement"),
    "bracket_verdict": ("[[",),
    "better_claim": ("candidate", "response", "submission", "assistant"),
    "score_request": ("give", "assign", "award", "rate", "grade"),
    "self_rating": ("rated", "scored", "graded", "judged", "ranked", "preferred", "chosen", "selected"),
    "reply_json": ("{",),
    "candidate_markers": ("<<<", "of candidate", "of response", "of answer"),
    "claimed_review": (
        "reviewed",
        "evaluated",
        "judged",
        "graded",
        "scored",
        "rated",
        "assessed",
        "verified",
        "approved",
    ),
    "winner_request": ("winner", "best", "better", "preferred"),
    "zh_ignore_instructions": ("忽略", "无视", "忽视", "忘记", "忘掉", "不要理会", "不必理会"),
    "zh_addresses_grader": ("评委", "裁判", "评审", "评估者", "评分", "打分者", "评判者", "阅卷"),
    "zh_grader_directive": ("评委", "评审员", "评估者", "评分", "打分者", "评判者", "阅卷人"),
    "zh_grader_roleplay": ("你是", "作为", "扮演"),
    "zh_verdict_claim": ("裁决", "评判结果", "胜者", "赢家", "胜出者"),
    "zh_better_claim": ("回答", "候选"),
    "zh_score_request": ("分",),
    "zh_self_rating": ("评为", "判为", "选为", "打满分", "获胜", "胜出"),
}
_CHECKS = [(name, JUDGE_DIRECTED_NEEDLES[name], pattern) for name, pattern in JUDGE_DIRECTED_PATTERNS.items()]
_ALL = {needle for needles in JUDGE_DIRECTED_NEEDLES.values() for needle in needles}
_LATIN = sorted(n for n in _ALL if n.isascii())
_CHINESE = sorted(n for n in _ALL if not n.isascii())
#: any Chinese needle (one search tells whether any is there; which ones, the needles are asked one by one)
_ANY_CHINESE = re.compile("|".join(map(re.escape, _CHINESE)))


def needles_in(lowered: str) -> set[str]:
    """The needles found in ``lowered`` (normalised, lower-case text): a substring search each, the Chinese ones only
    where one search for any of them finds one."""
    found = {needle for needle in _LATIN if needle in lowered}
    if _ANY_CHINESE.search(lowered) is not None:
        found.update(needle for needle in _CHINESE if needle in lowered)
    return found


def matches_normalised(text: str, *, first: bool = False) -> list[str]:
    """The names of the patterns found in ``text``, already normalised (all of them, or only the first with
    ``first``): a pattern runs only where one of its needles is in the text."""
    present = needles_in(text.lower())
    found = []
    for name, needles, pattern in _CHECKS:
        if not present.isdisjoint(needles) and pattern.search(text):
            found.append(name)
            if first:
                break
    return found


def judge_directed_matches(text: str) -> list[str]:
    """The names of the :data:`JUDGE_DIRECTED_PATTERNS` found in ``text`` (normalised first)."""
    return matches_normalised(normalise(text))
