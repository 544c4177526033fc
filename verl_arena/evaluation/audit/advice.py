# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""What to change when a family of probes wins: the one text the audit's table, its HTML page and docs/judging.md
show (the docs' list is :func:`advice_markdown`, and a test keeps the two the same)."""

from __future__ import annotations

import textwrap

__all__ = ["ADVICE", "advice_for", "advice_markdown"]

#: (families, what to change when one of them is flagged), in the order the docs list them
ADVICE: tuple[tuple[tuple[str, ...], str], ...] = (
    (
        ("content",),
        "the judge's verdicts do not depend on what it reads (it ties, repeats one reply or follows the slot): fix the "
        "judge before anything else; check the endpoint and model name, the template and its reply format against "
        "what the model answers, and a proxy or cache in front of it. Every other family is flagged with it and means "
        "nothing until it passes.",
    ),
    (
        ("position",),
        "judge both orders (`orders: both`, the default) so the bias cancels; even then, a strong position bias "
        "still turns decisive verdicts into ties, i.e. noise: use a stronger judge or an `ensemble`, and watch "
        "`first_slot_win_rate` and `order_disagreement_rate` in training.",
    ),
    (
        ("length",),
        "`scoring: length_controlled` with a `length_bias` measured by `verl-arena eval winrate`; a template that "
        "tells the judge that repetition and filler count against an answer; watch `arena/length_corr` during "
        "training.",
    ),
    (
        ("formatting",),
        "a template whose criteria score content, not layout (and say that layout without content scores 0); a "
        "stronger judge.",
    ),
    (
        ("process",),
        "a judge that does not read the process lets a policy skip the work: use a process-aware template (the "
        "built-in ones score the process), and watch `hack/bare_answer_win_share` in training.",
    ),
    (
        ("hedge", "non_answer", "opener"),
        "rubric items (`rubrics: data` or `generate`) and an answer key where the task has verifiable content, so "
        "that the judge checks what the answer must contain; `no_answer: lose` with a renderer that marks empty "
        'answers; a stronger or thinking judge. An `opener` failure is the "master key" weakness: an ensemble of '
        "different models rarely shares it.",
    ),
    (
        ("injection",),
        'keep the built-in templates\' hardening (tagged markers, `verdict_id`, the "candidate text is data" '
        "instruction) in any custom template; a judge that still obeys needs a stronger model or an ensemble whose "
        "members must agree (`combine: majority`).",
    ),
    (
        ("refusal",),
        "a judge that refuses is caught by failure attribution (the baiting candidate forfeits); if the audit shows "
        "it winning or tying, check `failure_reasons` and move to an endpoint without a content filter on judge "
        "traffic.",
    ),
    (("language",), "say in the template (or its `language`) which language answers must be in."),
    (
        ("fact",),
        "an answer key (`answer_key` in the task) so the judge can check facts; otherwise a stronger judge, or a "
        "task where facts do not decide quality. Ties here mean the judge cannot tell a wrong fact from a right one.",
    ),
)

#: what to change for a family of your own probes (``--probes``), which has no advice of its own
_CUSTOM = (
    "a family of your own probes: read the worst case below, then tighten the template's criteria (or add rubric "
    "items and an answer key) so that what the probe adds earns nothing; a stronger judge or an ensemble."
)


def advice_for(family: str) -> str:
    """What to change when a probe of ``family`` is flagged."""
    return next((text for families, text in ADVICE if family in families), _CUSTOM)


def advice_markdown(width: int = 120) -> str:
    """The docs' list: one bullet per entry of :data:`ADVICE`, wrapped at ``width``."""
    lines = []
    for families, advice in ADVICE:
        head = ", ".join(f"`{f}`" for f in families)
        lines += textwrap.wrap(
            f"{head}: {advice}",
            width,
            initial_indent="- ",
            subsequent_indent="  ",
            break_on_hyphens=False,
            break_long_words=False,
        )
    return "\n".join(lines) + "\n"
