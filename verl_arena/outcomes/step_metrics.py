# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""What the arena did in each training step, summed up for the trainer's logger.

The group coordinator answers every rollout with a member outcome. :class:`StepMetrics` collects those answers by the
training step that produced the rollout and turns them into a few numbers per step (counts
where a mean means nothing, means where a count means nothing), under the ``arena/`` prefix (``hack/`` for the hack
detectors' screening of the winners, :mod:`~verl_arena.outcomes.hack_alarm`). Every ranked group's full result goes
to the judgment log (:mod:`~verl_arena.outcomes.judgment_log`).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterator, Mapping
from typing import Any

from verl_arena.environments.causes import CAUSES
from verl_arena.outcomes.exits import CAUSE_CLASSES, CAUSE_WORDS
from verl_arena.outcomes.group_metrics import GROUP_METRIC_DESCRIPTIONS, group_metric_values
from verl_arena.outcomes.hack_alarm import hack_metric_descriptions, hack_metrics
from verl_arena.outcomes.hack_screen import screen_metrics
from verl_arena.outcomes.heldout import HELDOUT_METRICS, HeldoutTally, heldout_metrics
from verl_arena.outcomes.judge_alarm import JUDGE_ALARM_METRICS

__all__ = ["STEP_METRICS", "StepMetrics", "summarize"]


def _cause_metric(cause: str) -> str:
    """The step metric counting the environment sessions' decisions ``cause``: ``env/errors_down``,
    ``env/crashes_takes_down``, ..."""
    return f"env/{'crashes' if CAUSES[cause].verdict == 'crash' else 'errors'}_{cause}"


#: the per-step metrics computed here, and what each one is
_COMPUTED = {
    "arena/rollouts": "rollouts answered",
    "arena/groups": "groups ranked",
    "arena/judgments": "judgments the tournaments made (pairwise or group, failed ones included): asked_judgments + "
    "cache_hits + shortcut_judgments",
    "arena/judgments_per_group": "mean judgments per group",
    "arena/asked_judgments": "judgments that went to the judge (they sent a request, or failed before one could leave)",
    "arena/cache_hits": "judgments the judge answered from its verdict cache, without a request",
    "arena/shortcut_judgments": "judgments decided without a request or the cache: a rollout without a final answer, "
    "identical rollouts, a forfeit of a rollout known to break the judge or found stalling it",
    "arena/judge_requests": "HTTP requests sent to the judge, answered or failed (retries, re-asks, the tracing of "
    "failures and liveness pings included): what the judge server counts; an asked pairwise judgment is two with "
    "order swapping, more when it is asked again or traced",
    "arena/judge_retries": "of judge_requests, those that repeated a failed attempt",
    "arena/failed_judgments": "judgments that failed and were settled by the fallback",
    "arena/asked_again": "failed judgments asked again after their round: the judge's own trouble (load, rate limits) "
    "is asked again once and the answer used, only what fails again counts in failed_judgments (failures concentrated "
    "on one rollout are then replayed beside controls: arena/exit_*)",
    "arena/exit_forfeits": "rollouts that forfeited on evidence: the judge failed where they took part (concentrated "
    "failures of any cause, or judgments straggling behind their round), their judgments replayed failed again while "
    "controls of their size in the judge's tokens were answered",
    "arena/unproven_forfeits": "ALARM: rollouts that forfeited on a suspicion the group's deadline left no time to "
    "prove (their judgments straggled while controls of their size were answered; a judge busy for everyone): ranked "
    "below the rest of their group, counted apart from the proven ones; rising, the judge is too slow for the "
    "deadline",
    "arena/exit_voids": "groups voided as the judge's fault because the evidence put the failures on the judge: a "
    "control of the suspected rollout's size failed too (counted in arena/judge_fault_groups as well)",
    "arena/exit_cleared": "suspicions the evidence cleared: a replay of the failed judgments was answered (chance; the "
    "fallback stood)",
    **{
        f"arena/exit_{kind}s_{cause}": f"of arena/exit_{kind}s"
        + (" and arena/unproven_forfeits" if kind == "forfeit" else "")
        + f", those whose failures were {CAUSE_WORDS[cause]}"
        for kind in ("forfeit", "void")
        for cause in CAUSE_CLASSES
    },
    "arena/prefetched": "judgments asked ahead of their group's tournament, before its last rollout arrived (eager "
    "judging: the first-wave compares whose two rollouts were there)",
    "arena/prefetch_unused": "of arena/prefetched, those the tournament never asked for (waste: a rollout left out, an "
    "incomplete group, a group voided before it reached the judge)",
    "arena/degraded_groups": "groups with at least one failed judgment",
    "arena/voided_groups": "groups voided (equal rewards, zero advantages)",
    "arena/judge_fault_groups": "ALARM: groups voided as the judge's fault: most of their rollouts would have been "
    "blamed for breaking the judge, the judge kept miscopying verdict ids or repeated one of its own, or its failures "
    "concentrated on one rollout failed again beside a control of that rollout's size that failed too; the judge is "
    "broken, overloaded or misconfigured (its context, reply budget or timeout)",
    "arena/saturated_groups": "groups voided because the judge could not finish them by their deadline: at once, "
    "before any request, when its measured speed said so, or still waiting for it at the deadline; the judge is slower "
    "than the load (more capacity, a longer deadline, or fewer groups in flight)",
    "arena/judge_unavailable_groups": "ALARM: groups voided because every endpoint of the judge was refusing or "
    "cooling down when they would have been voided as saturated or at their deadline: the judge is down, not slow "
    "(its server, base_url, key or network)",
    "arena/no_information_groups": "ALARM: groups voided because the judge's own verdicts carried no information about "
    "the content (none decisive, or all following the slot the candidates were shown in): a judge that always ties, "
    "gives one constant verdict or picks a slot",
    "arena/judge_verdicts": "pairwise verdicts the judge itself gave (not failed, no shortcut or forfeit)",
    "arena/tie_share": "share of those verdicts that tied (near 1: the judge no longer tells the candidates apart)",
    "arena/decisive_share": "share of the judge's own judgments, failed ones included, that it decided (a pairwise "
    "verdict that did not tie, an answered group judgment)",
    "arena/single_verdicts": "decisive verdicts of the judge in one presentation order (each order of an order-swapped "
    "pair, every group judgment)",
    "arena/first_slot_share": "share of those that went to the candidate shown first (a group judgment: to the order "
    "shown): about 0.5 for a fair pairwise judge with order swapping, 1 for a judge that follows the slot (without "
    "order swapping the topology's order moves it: seeded single elimination shows the better seed first)",
    **JUDGE_ALARM_METRICS,  # when the judge's verdicts stop depending on the content (judge_alarm)
    "arena/incomplete_groups": "groups ranked with fewer members than expected",
    "arena/dropped_groups": "groups marked for the trainer's group filter to drop (drop_groups)",
    "arena/drop_guarded_groups": "groups kept, not dropped, because too many recent groups were (drop_max_share)",
    "arena/order_disagreement": "mean share of pairs whose two orders disagreed",
    "arena/judge_agreement": "with a judge ensemble: mean share of member pairs naming the same winner (only then)",
    "arena/length_corr": "mean Spearman correlation of reward with answer length in a group (rising: length hacking)",
    "arena/prompt_tokens": "judge prompt tokens",
    "arena/completion_tokens": "judge completion tokens",
    "arena/estimated_prompt_tokens": "judge prompt tokens estimated, not reported: requests whose reply never came "
    "(timed out, or given up on; the server may have read them)",
    "arena/unreported_requests": "those requests",
    "arena/cached_tokens": "judge prompt tokens the judge server served from its prefix cache (vLLM, SGLang and some "
    "APIs report them)",
    "arena/cached_token_share": "cached over prompt tokens: what prefix caching saved of the judge's prefill (0 when "
    "the server reports nothing)",
    "arena/forfeits": "rollouts that broke the judge and lost for it",
    "arena/no_answer": "rollouts without a final answer",
    "arena/duplicates": "rollouts delivered again",
    "arena/late": "rollouts that arrived after their group closed",
    "arena/overflow": "rollouts turned away because too many groups waited",
    "arena/non_voting": "rollouts answered as not voting (late, turned away, or their environment failed for "
    "everyone): left out of their group's ranking and statistics (advantage 0)",
    "arena/wait_s_mean": "mean seconds a rollout waited for its group's result",
    "arena/wait_s_max": "longest such wait",
    "arena/rank_s_mean": "mean seconds a group's tournament took (its time with the judge)",
    "arena/judge_busy_s": "wall seconds during which at least one of the step's groups was with the judge",
    "arena/judge_exposed_s": "of those, the seconds after the step's last rollout arrived: the judge time the step "
    "waits for (in streaming mode the rest ran while other rollouts were still generating)",
    "arena/judge_hidden_share": "share of judge_busy_s before the step's last rollout arrived (hidden behind rollout)",
    "arena/group_exposed_s_mean": "mean over the step's groups of the seconds from a group's last rollout reaching the "
    "coordinator to the group's answers: the judge time its rollouts wait for beyond the slowest of them (about the "
    "tournament's depth in judge latencies; what eager judging and the tail-hiding schedule try to shorten)",
    "arena/group_exposed_s_max": "the longest such wait of one group in the step",
    "arena/horizon": "interaction-turn limit of the step's rollouts (ScalingInter-RL curriculum)",
    "env/success_rate": "with arena_env_agent: share of episodes that reached the goal (environment failures aside)",
    "env/turns": "with arena_env_agent: mean turns per episode",
    "env/errors": "with arena_env_agent: episodes the environment's failure for everyone ended (they do not vote)",
    "env/crashes": "with arena_env_agent: episodes whose action broke the environment: replayed at the same state on "
    "a server that served the replay, it failed again (ranked below every honest failure)",
    **{
        _cause_metric(name): f"with arena_env_agent: of {_cause_metric(name).split('_')[0]}, those decided {name}: "
        f"{cause.meaning}"
        for name, cause in CAUSES.items()
    },
    "env/recovered": "with arena_env_agent: fresh episodes the step's episodes went on with, after failures that were "
    "not their action's (a restart, an episode the server ended, a server blocked for a while): replayed to the same "
    "state, the failing action went through",
    "env/replays": "with arena_env_agent: failing actions sent again, each once, to find whose failure they were",
    "env/judge_agreement": "with arena_env_agent: mean share, per group, of (successful, failed) episode pairs the "
    "judge ranked the right way round (the judge's fidelity on verifiable tasks)",
    "arena/verifiable_judged_groups": "with verifiable: groups the judge ranked, whose verifiable scores all tied "
    "(or, with judge=tiers, within their tiers of equal score)",
    "arena/verifiable_decided_groups": "with verifiable: groups ranked by their verifiable scores alone, without a "
    "judge call",
    "arena/verifiable_saved_judgments": "with verifiable: judge calls the topology would have made for the step's "
    "groups that the verifiable scores made unnecessary",
    "arena/scorer_errors": "with verifiable: rollouts whose verifiable scorer raised or returned no number (ranked "
    "below every honest score, never judged)",
    "arena/scorer_fault_groups": "ALARM: with verifiable, groups voided because the scorer failed for every rollout: "
    "the scorer is broken or misconfigured (its data_source, ground truth or import)",
    "arena/budget_degraded_groups": "with step_budget: groups ranked with a cheaper fallback topology than "
    "configured, because the step's remaining judge calls or prompt tokens could not pay for it (which: "
    "arena/budget_limited_by_*)",
    "arena/budget_voided_groups": "with step_budget: groups voided (zero advantages) because the step's remaining "
    "judge calls or prompt tokens could not pay even for the cheapest fallback; the budget's doing, never the "
    "rollouts'",
    "arena/budget_calls_used": "with step_budget: judge calls the step's groups made of the budget (every shard of "
    "the judge pool together)",
    "arena/budget_prompt_tokens_used": "with step_budget: judge prompt tokens the step's budgeted groups sent, as the "
    "judge reported them (what step_budget.prompt_tokens is charged)",
    "arena/budget_limited_by_calls": "with step_budget: groups degraded or voided because step_budget.calls could "
    "not pay for their configured topology",
    "arena/budget_limited_by_prompt_tokens": "with step_budget: groups degraded or voided because "
    "step_budget.prompt_tokens could not pay for their configured topology (both limits short: counted under each)",
    "arena/anchored_groups": "with anchor_set and source: marked or pool: groups judged against anchors they carried "
    "(from the data, or an anchor pool's)",
    "arena/anchors": "with anchor_set and source: marked or pool: the anchors those groups met (judged against, never "
    "ranked for a reward)",
    "arena/anchor_judgments": "with anchor_set and source: marked or pool: judgments of a rollout against one of those "
    "anchors (counted in arena/judgments too)",
    **hack_metric_descriptions(),  # hack/*: wins by rollouts that look like known judge hacks (hack_alarm)
    **HELDOUT_METRICS,  # hack/heldout_*: the held-out judge's agreement with the training judge (heldout_judge)
}


#: every per-step metric and what it is: those computed here, then the group stages' per-group metrics
#: (:mod:`~verl_arena.outcomes.group_metrics`, each registered beside the stage that reports it)
class _Descriptions(Mapping[str, str]):
    """Several description tables read as one, in their order, as they are now."""

    def __init__(self, *tables: Mapping[str, str]) -> None:
        self._tables = tables

    def __getitem__(self, name: str) -> str:
        for table in self._tables:
            if name in table:
                return table[name]
        raise KeyError(name)

    def __iter__(self) -> Iterator[str]:
        return (name for table in self._tables for name in table)

    def __len__(self) -> int:
        return sum(len(table) for table in self._tables)


STEP_METRICS: Mapping[str, str] = _Descriptions(_COMPUTED, GROUP_METRIC_DESCRIPTIONS)

_GROUP_SUMS = {
    "arena/judgments": "judgments",
    "arena/asked_judgments": "asked_judgments",
    "arena/cache_hits": "cache_hits",
    "arena/shortcut_judgments": "shortcut_judgments",
    "arena/judge_requests": "judge_requests",
    "arena/judge_retries": "judge_retries",
    "arena/failed_judgments": "failed_judgments",
    "arena/asked_again": "asked_again",
    "arena/exit_forfeits": "exit_forfeits",
    "arena/unproven_forfeits": "unproven_forfeits",
    "arena/exit_voids": "exit_voids",
    "arena/exit_cleared": "exit_cleared",
    "arena/degraded_groups": "degraded",
    "arena/voided_groups": "voided",
    "arena/incomplete_groups": "incomplete",
    "arena/drop_guarded_groups": "drop_guarded",
    "arena/prompt_tokens": "prompt_tokens",
    "arena/completion_tokens": "completion_tokens",
    "arena/cached_tokens": "cached_tokens",
    "arena/estimated_prompt_tokens": "estimated_prompt_tokens",
    "arena/unreported_requests": "unreported_requests",
    "arena/prefetched": "prefetched_judgments",
    "arena/prefetch_unused": "prefetch_unused",
}
_VOID_COUNTS = {
    "arena/judge_fault_groups": "judge_fault",
    "arena/saturated_groups": "saturated",
    "arena/judge_unavailable_groups": "unavailable",
    "arena/no_information_groups": "no_information",
    "arena/scorer_fault_groups": "scorer_fault",
}
_MEMBER_SUMS = {
    "arena/forfeits": "forfeit",
    "arena/no_answer": "no_answer",
    "arena/duplicates": "duplicate",
    "arena/late": "late",
    "arena/overflow": "overflow",
}


class StepMetrics:
    """Member outcomes collected by training step (``None``: a step the trainer did not name).

    Args:
        max_steps: steps kept before the oldest are dropped (nobody asked for them).
    """

    def __init__(self, max_steps: int = 1000) -> None:
        self.max_steps = max_steps
        self._answers: dict[int | None, list[tuple[str, Any]]] = defaultdict(list)

    def add(self, step: int | None, group_id: str, outcome: Any) -> None:
        """Record one member's :class:`~verl_arena.outcomes.members.MemberOutcome`, or the held-out judge's
        :class:`~verl_arena.outcomes.heldout.HeldoutTally` of a group (it travels with the answers, so the shards'
        answers gathered together carry it)."""
        self._answers[step].append((group_id, outcome))
        while len(self._answers) > self.max_steps:
            del self._answers[min(self._answers, key=lambda s: -1 if s is None else s)]

    def pop(self, upto: int | None = None) -> dict[str, float]:
        """The metrics of every step up to ``upto`` (all steps when ``None``), forgetting them."""
        answers = self.take(upto)
        return summarize(answers) if answers else {}

    def take(self, upto: int | None = None) -> list[tuple[str, Any]]:
        """The ``(group_id, member outcome)`` answers of every step up to ``upto`` (all when ``None``), forgetting
        them: what :meth:`pop` summarizes, for summarizing the answers of several coordinators together."""
        steps = [s for s in self._answers if upto is None or s is None or s <= upto]
        return [a for s in steps for a in self._answers.pop(s)]


def summarize(answers: list[tuple[str, Any]]) -> dict[str, float]:
    """The ``arena/`` metrics of a list of ``(group_id, member outcome)`` (and the ``hack/heldout_*`` ones of the
    held-out judge's tallies among them)."""
    tallies = [o for _, o in answers if isinstance(o, HeldoutTally)]
    answers = [(g, o) for g, o in answers if not isinstance(o, HeldoutTally)]
    if not answers:
        return heldout_metrics(tallies)
    groups: dict[str, Any] = {}
    for group_id, outcome in answers:
        groups.setdefault(group_id, outcome.group)  # every member carries the same group summary
    ranked = [g for g in groups.values() if g.size >= 2]
    out = {"arena/rollouts": float(len(answers)), "arena/groups": float(len(ranked))}
    for name, attribute in _GROUP_SUMS.items():
        out[name] = float(math.fsum(getattr(g, attribute) for g in ranked))
    out["arena/dropped_groups"] = float(sum(bool(g.drop) for g in ranked))
    for kind in ("forfeit", "void"):
        for cause in CAUSE_CLASSES:
            out[f"arena/exit_{kind}s_{cause}"] = float(sum(g.exit_causes.get(f"{kind}_{cause}", 0) for g in ranked))
    for name, reason in _VOID_COUNTS.items():
        out[name] = float(sum(g.void_reason == reason for g in ranked))
    out.update(_judge_information(ranked))
    prompt = out["arena/prompt_tokens"]
    out["arena/cached_token_share"] = out["arena/cached_tokens"] / prompt if prompt else 0.0
    out["arena/judgments_per_group"] = out["arena/judgments"] / len(ranked) if ranked else 0.0
    out["arena/order_disagreement"] = math.fsum(g.order_disagreement for g in ranked) / len(ranked) if ranked else 0.0
    corrs = [g.length_corr for g in ranked if g.length_corr is not None]
    if corrs:
        out["arena/length_corr"] = math.fsum(corrs) / len(corrs)
    ensemble = sum(g.ensemble_judgments for g in ranked)
    if ensemble:
        out["arena/judge_agreement"] = math.fsum(g.ensemble_agreement * g.ensemble_judgments for g in ranked) / ensemble
    for name, attribute in _MEMBER_SUMS.items():
        out[name] = float(sum(bool(getattr(o, attribute)) for _, o in answers))
    out["arena/non_voting"] = float(sum(not o.votes for _, o in answers))
    waits = [o.wait_s for _, o in answers]
    out["arena/wait_s_mean"] = math.fsum(waits) / len(waits)
    out["arena/wait_s_max"] = max(waits)
    out["arena/horizon"] = float(max(o.horizon for _, o in answers))
    out.update(_judge_timing(ranked, [o for _, o in answers]))
    played = [o for _, o in answers if o.env_success >= 0]
    if played:  # rollouts that played an environment (arena_env_agent)
        finished = [o for o in played if not o.env_error]
        out["env/success_rate"] = math.fsum(o.env_success for o in finished) / len(finished) if finished else 0.0
        out["env/turns"] = math.fsum(o.env_turns for o in played) / len(played)
        out["env/errors"] = float(sum(o.env_error for o in played))
        out["env/crashes"] = float(sum(o.env_crash for o in played))
        out.update(_env_causes(played))
        agreements = [g.env_agreement for g in ranked if g.env_agreement is not None]
        if agreements:
            out["env/judge_agreement"] = math.fsum(agreements) / len(agreements)
    out.update(_verifiable(ranked))
    out.update(_budget(ranked))
    out.update(_anchored(ranked))
    hack = hack_metrics([g.hack_counts() for g in ranked])
    screened = screen_metrics([o.screened for _, o in answers])
    if hack or screened["hack/screened"]:  # with the detectors' shares, or when one screened: none made up
        out.update({**hack, **screened})
    out.update(heldout_metrics(tallies))
    out.update(group_metric_values([g.metrics for g in ranked]))
    return out


def _env_causes(played: list[Any]) -> dict[str, float]:
    """The environment sessions' decisions by cause, and what they replayed."""
    out = {_cause_metric(name): float(sum(o.env_cause == name for o in played)) for name in CAUSES}
    out["env/recovered"] = math.fsum(o.env_recovered for o in played)
    out["env/replays"] = math.fsum(o.env_replays for o in played)
    return out


def _verifiable(ranked: list[Any]) -> dict[str, float]:
    """What the verifiable scores decided (only when the step's groups had them)."""
    scored = [g for g in ranked if g.verifiable]
    if not scored:
        return {}
    return {
        "arena/verifiable_judged_groups": float(sum(g.verifiable in ("judged", "tiers") for g in scored)),
        "arena/verifiable_decided_groups": float(sum(g.verifiable == "decided" for g in scored)),
        "arena/verifiable_saved_judgments": float(sum(g.verifiable_saved for g in scored)),
        "arena/scorer_errors": float(sum(g.scorer_errors for g in scored)),
    }


def _budget(ranked: list[Any]) -> dict[str, float]:
    """What the step budget did (only when the step's groups drew on one)."""
    budgeted = [g for g in ranked if g.budgeted]
    if not budgeted:
        return {}
    return {
        "arena/budget_degraded_groups": float(sum(g.budget_degraded for g in budgeted)),
        "arena/budget_voided_groups": float(sum(g.void_reason == "budget" for g in budgeted)),
        "arena/budget_calls_used": float(sum(g.budget_calls for g in budgeted)),
        "arena/budget_prompt_tokens_used": float(sum(g.budget_prompt_tokens for g in budgeted)),
        **{
            f"arena/budget_limited_by_{limit}": float(sum(limit in g.budget_limited_by.split("+") for g in budgeted))
            for limit in ("calls", "prompt_tokens")
        },
    }


def _anchored(ranked: list[Any]) -> dict[str, float]:
    """The anchors the step's groups carried and the judgments against them (only when some group had any)."""
    anchored = [g for g in ranked if g.anchors]
    if not anchored:
        return {}
    return {
        "arena/anchored_groups": float(len(anchored)),
        "arena/anchors": float(sum(g.anchors for g in anchored)),
        "arena/anchor_judgments": float(sum(g.anchor_judgments for g in anchored)),
    }


def _judge_information(ranked: list[Any]) -> dict[str, float]:
    """Whether the judge's own verdicts still depend on the content: its ties, its decisions and its first-slot wins
    (a share only where it has a denominator)."""
    judgments = sum(g.judge_judgments for g in ranked)
    verdicts = sum(g.judge_verdicts for g in ranked)
    single = sum(g.single_verdicts for g in ranked)
    out = {"arena/judge_verdicts": float(verdicts), "arena/single_verdicts": float(single)}
    if judgments:
        out["arena/decisive_share"] = sum(g.judge_decisive for g in ranked) / judgments
    if verdicts:
        out["arena/tie_share"] = sum(g.judge_ties for g in ranked) / verdicts
    if single:
        out["arena/first_slot_share"] = sum(g.first_slot_wins for g in ranked) / single
    return out


def _judge_timing(ranked: list[Any], outcomes: list[Any]) -> dict[str, float]:
    """When the step's groups were with the judge, against when its rollouts arrived (see :data:`STEP_METRICS`)."""
    out: dict[str, float] = {}
    if ranked:  # each group's wait for the judge after its own last rollout
        waits = [g.exposed_s for g in ranked]
        out["arena/group_exposed_s_mean"] = math.fsum(waits) / len(waits)
        out["arena/group_exposed_s_max"] = max(waits)
    spans = [(g.judged_at, g.judged_at + g.judge_s) for g in ranked if g.judged_at > 0]
    if not spans:
        return out
    busy = _covered(spans)
    out |= {"arena/rank_s_mean": math.fsum(b - a for a, b in spans) / len(spans), "arena/judge_busy_s": busy}
    arrivals = [o.arrived_at for o in outcomes if o.arrived_at > 0 and not (o.duplicate or o.late)]
    if arrivals:
        last = max(arrivals)
        exposed = _covered([(max(a, last), b) for a, b in spans if b > last])
        out["arena/judge_exposed_s"] = exposed
        out["arena/judge_hidden_share"] = 1.0 - exposed / busy if busy > 0 else 1.0
    return out


def _covered(spans: list[tuple[float, float]]) -> float:
    """The length of the union of the ``(start, end)`` intervals."""
    total, reach = 0.0, -math.inf
    for start, end in sorted(spans):
        if end > reach:
            total += end - max(start, reach)
            reach = end
    return total
