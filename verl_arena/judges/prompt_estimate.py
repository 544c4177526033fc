# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""What a group's tournament will send the judge, in prompt tokens, known before its first request: the price a step
budget of prompt tokens (:mod:`~verl_arena.runtime.step_budget`) reserves for the group.

Each judgment is priced as the largest prompt it can be: its template's fixed part for the group's query (rendered with
empty candidates, chat-template overhead included, as :class:`~verl_arena.judges.budget.PromptBudget` counts it) plus
the largest candidates it can show, in full (two for a pairwise judgment, the whole group for a group judgment), never
more than the judge's prompt room (``context_tokens - max_tokens`` where ``context_tokens`` is set: the prompt budget
cuts candidates to fit it; unset, the judge follows the window its server reports, so no room is assumed). A
judgment sends two requests in both orders (pairwise), and each ensemble member and sample asks its own. Tokens
are counted as the judge's prompt budget counts them: with the judge's tokenizer when one is named, else the UTF-8
length, which no byte-level tokenizer exceeds.

So the estimate is an upper bound of a group's first asks; what it leaves out (retries and re-asks of a failed or
unparseable reply, the probes that trace a failure, rubric items written or shown, an answer key) is the slack the
budget absorbs afterwards: the step is charged what the judge reported, not what was estimated.

The *modest* price counts every candidate at most its group's lower median size. The step budget falls back on it
before it voids a group (:meth:`~verl_arena.runtime.step_budget.StepBudget.reserve`): a void is worth more than its
honest loss to a losing rollout (under GRPO its advantage is negative, a voided group's zero), so the rollouts that
lose must not be able to price their group out of the budget by writing more. What the longer candidates cost beyond
the modest price is charged when spent.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from verl_arena.core.types import Candidate
from verl_arena.judges.budget import PromptBudget, fixed_messages
from verl_arena.judges.config import JudgeConfig
from verl_arena.judges.context import JudgeContext
from verl_arena.judges.templates import Template, load_template

__all__ = ["PromptEstimate"]

#: the judge methods of a topology and the template kind each one renders
_KINDS = {"compare": "pairwise", "select": "select", "order": "order"}


class PromptEstimate:
    """Prices judgments in prompt tokens for one judge configuration.

    Args:
        config: the judge configuration (templates, tokenizer, context, order swap, ensemble).
    """

    def __init__(self, config: JudgeConfig) -> None:
        self.config = config
        self.budget = PromptBudget(config.context_tokens, config.max_tokens, config.tokenizer, config.max_field_chars)
        #: the most tokens a prompt may hold, where the configuration sets the context window
        self.room = self.budget.limit if "context_tokens" in config.model_fields_set else None
        self.templates: dict[str, Template] = {
            "pairwise": load_template(config.template, config.language, kind="pairwise"),
            "select": load_template(config.select_template, config.language, kind="select"),
            "order": load_template(config.order_template, config.language, kind="order"),
        }
        ensemble = config.ensemble
        #: requests one judgment sends before any retry: each ensemble member's samples ask once
        self.asks = len(ensemble.members) * ensemble.samples if ensemble is not None else 1

    def group_tokens(self, query: str, candidates: Sequence[Candidate], methods: Sequence[str], calls: int) -> int:
        """Prompt tokens of ``calls`` judgments of a group of ``candidates`` made with the judge ``methods`` of its
        topology (``"compare"``, ``"select"``, ``"order"``): each priced as the dearest of them."""
        return self.pricer(query, candidates)(methods, calls)

    def pricer(
        self, query: str, candidates: Sequence[Candidate], *, modest: bool = False
    ) -> Callable[[Sequence[str], int], int]:
        """:meth:`group_tokens` for one group, its candidates counted once for every topology it is priced with.
        ``modest``: every candidate counted at most the group's lower median size (the ``ceil(n / 2)``-th smallest),
        a price that no minority of the group, nor its losing half, can raise by writing more."""
        sizes = sorted((self._size(c) for c in candidates), reverse=True)
        if modest and sizes:
            median = sizes[len(sizes) // 2]  # sizes run largest first: ceil(n / 2) of them are at most this
            sizes = [min(size, median) for size in sizes]

        def price(methods: Sequence[str], calls: int) -> int:
            if calls <= 0 or len(sizes) < 2:
                return 0
            return calls * max(self._judgment(query, _KINDS[m], sizes) for m in methods)

        return price

    def _judgment(self, query: str, kind: str, sizes: list[int]) -> int:
        shown = sizes[:2] if kind == "pairwise" else sizes
        k = 1 if kind == "select" else 0
        fixed = self.budget.messages_tokens(
            fixed_messages(self.templates[kind], query, len(shown), JudgeContext(None), k)
        )
        prompt = fixed + sum(shown) if self.room is None else min(self.room, fixed + sum(shown))
        swapped = 2 if kind == "pairwise" and self.config.both_orders else 1
        return prompt * swapped * self.asks

    def _size(self, candidate: Candidate) -> int:
        capped = self.budget.capped(candidate)
        return self.budget.count(capped.path) + self.budget.count(capped.answer)
