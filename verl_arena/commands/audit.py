# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena audit``: before training on a judge, play a battery of probes (hacks a policy could learn) against
honest answers through the judge path training uses, and report which ones the judge falls for.

Exits 0 when no probe is flagged, 1 when one is, 2 on bad input, 3 when the judge cannot be asked (the pre-flight
request) or the audit is inconclusive (a probe without a rate, or more than 5% of the judgments failed)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import math
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from verl_arena.commands import progress
from verl_arena.commands.exit_codes import BAD_INPUT, FOUND, JUDGE_UNAVAILABLE, OK
from verl_arena.commands.judge_checks import (
    Preflight,
    add_mock_latency_argument,
    add_preflight_argument,
    preflight_judges,
)
from verl_arena.commands.output import print_json

__all__ = ["SUMMARIES", "register"]

#: the commands this module adds, each with the line `verl-arena --help` shows for it
SUMMARIES = {
    "audit": "before training, probe a judge with known hacks played against honest answers",
}


#: what the report says when the judge audited is the built-in mock (no --judge-config)
MOCK_NOTE = (
    "the judge audited is the built-in lexical mock judge (no --judge-config was given): it fails the length, "
    "formatting, non-answer, injection and fact probes by design; audit your own judge with --judge-config"
)


def _cell(interval: dict[str, float]) -> str:
    if math.isnan(interval["value"]):
        return "n/a"
    return f"{interval['value']:.2f} [{interval['low']:.2f}, {interval['high']:.2f}]"


def _verdict(row: dict[str, Any]) -> str:
    if row["not_measured"]:
        return f"NOT MEASURED: {row['not_measured']}"
    verdict = "FLAGGED" if row["flagged"] else "ok"
    if row["measures"] == "first_slot_wins":
        verdict += " (first-slot rate; 0.5 is unbiased)"
    if row["family"] == "content":
        verdict += f" (decided {_share(row['decisive_share'])}, first slot {_share(row['first_slot_share'])})"
    if row["not_applicable"]:
        verdict += f" ({row['not_applicable']} tasks n/a)"
    if row["alarm"]:
        verdict += f" (alarm: {', '.join(row['alarm'])})"
    return verdict


def _print_table(report: dict[str, Any]) -> None:
    from verl_arena.evaluation.audit.report import audit_headline
    from verl_arena.evaluation.spending import spending_words

    level = round(report["confidence"] * 100)
    if report["verdict"] == "inconclusive":
        print(audit_headline(report))
    if report["judge"].get("note"):
        print(f"NOTE: {report['judge']['note']}")
    print(
        f"audit of {report['judge']['description']} on {report['tasks']} tasks (honest answers: "
        f"{report['honest_source']}); {spending_words(report)}"
    )
    print(
        f"\n{'probe':<22} {'family':<11} {'n':>4} {'win':>4} {'tie':>4} {'loss':>4}  rate [{level}% CI]"
        f"{'':<7} {'h':>6} {'Δscore':>7} {'failed':>6}  verdict"
    )
    for r in report["probes"]:
        rate = _cell(r["rate"])
        h, diff = r["effect"]["cohens_h"], r["effect"]["score_diff"]
        verdict = _verdict(r)
        print(
            f"{r['name']:<22} {r['family']:<11} {r['judged']:>4} {r['wins']:>4} {r['ties']:>4} {r['losses']:>4}  "
            f"{rate:<24} {h:>6.2f} {diff:>7.2f} {r['failed']:>6}  {verdict}"
        )
    print(f"\n{audit_headline(report)}")
    if "content" in report["flagged_families"]:
        print(
            "the judge's verdicts do not depend on the content (it ties, repeats one verdict or follows the slot): "
            "fix the judge itself (endpoint, model, template, reply parsing) before reading the other families"
        )
    for family in report["flagged_families"]:
        print(f"what to change ({family}): {report['families'][family]['advice']}")


def _share(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:.0%}"


def _judge_description(cfg: Any, judges: list[Any], mock: Any) -> dict[str, Any]:
    """What was audited: models, template, orders, ensemble, whether it is the built-in mock, and every endpoint
    with its failed requests by cause."""
    models = sorted({e.model for e in cfg.endpoints})
    ensemble = None if cfg.ensemble is None else {"members": len(cfg.ensemble.members), "samples": cfg.ensemble.samples}
    text = f"{', '.join(models)} ({cfg.template}/{cfg.language}, orders: {cfg.orders})"
    endpoints: dict[str, dict[str, Any]] = {}
    for row in (row for judge in judges for row in getattr(judge, "health", list)()):
        empty = {"base_url": row["base_url"], "model": row["model"], "failure_causes": {}}
        causes = endpoints.setdefault(row["base_url"], empty)["failure_causes"]
        for cause, n in row.get("failure_causes", {}).items():
            causes[cause] = max(n, causes.get(cause, 0))  # judges sharing a client report the same counts
    return {
        "models": models,
        "template": str(cfg.template),
        "language": cfg.language,
        "orders": cfg.orders,
        "ensemble": ensemble,
        "description": text,
        "builtin_mock": mock is not None,
        "note": MOCK_NOTE if mock is not None else None,
        "endpoints": list(endpoints.values()),
    }


class _FamilyProgress:
    """The audit's progress: a bar over its judgments, naming how many probe families are done, with the judges'
    requests and failures beside it from the first request on (:class:`~verl_arena.commands.progress.JudgeMeter`)."""

    def __init__(self, args: argparse.Namespace, probes: list[Any], judges: list[Any]) -> None:
        self.family_of = {p.name: p.family for p in probes}
        self.left: Counter[str] = Counter()
        self.finished = 0
        self.shown = progress.bar(args, None, "judgment", desc=self._desc())  # its total once the probes are built
        self.meter = progress.JudgeMeter(self.shown, judges)

    def planned(self, by_probe: dict[str, int]) -> None:
        for name, n in by_probe.items():
            self.left[self.family_of[name]] += n
        self.shown.total = sum(by_probe.values())
        self.shown.set_description(self._desc(), refresh=False)

    async def ticking(self, work: Any) -> Any:
        """``work``, with the meter ticking beside the bar."""
        return await progress.with_meter(self.meter, work)

    def judged(self, judged: Any) -> None:
        family = self.family_of[judged.probe]
        self.left[family] -= 1
        self.meter.judged(judged.error)
        if not self.left[family]:
            self.finished += 1
            self.shown.set_description(self._desc(family), refresh=False)
        self.shown.update()

    def _desc(self, last: str | None = None) -> str:
        done = f"probe families done: {self.finished} of {len(self.left)}"
        return f"{done} (last: {last})" if last else done

    def close(self) -> None:
        self.shown.close()


@dataclass
class _Audit:
    """An audit, checked before its first judge call: the tasks with their honest answers, the probes, the judge."""

    honest: Any
    tasks: list[Any]
    probes: list[Any]
    config: dict[str, Any]
    cfg: Any
    skeleton: str
    judge: Any
    mock: Any


def _audit(args: argparse.Namespace) -> int:
    """``verl-arena audit``: check everything, ask every judge endpoint once, play the probes, report."""
    from verl_arena.core.errors import ConfigError

    with contextlib.ExitStack() as cleanup:
        try:
            audit = _checked_audit(args, cleanup)
        except (ConfigError, OSError, ValueError) as exc:
            print(f"verl-arena audit: {exc}", file=sys.stderr)
            return BAD_INPUT
        checked = Preflight(True) if args.no_preflight else preflight_judges({"": audit.cfg}, "audit")
        if not checked.usable:
            return JUDGE_UNAVAILABLE
        result, slot_judge = _play(args, audit)
    return _publish(args, audit, result, slot_judge, checked)


def _checked_audit(args: argparse.Namespace, cleanup: contextlib.ExitStack) -> _Audit:
    """Check the options, the tasks, the honest answers, the probes and the judge of an audit (``ConfigError``,
    ``OSError`` or ``ValueError`` names what is wrong); a built-in mock judge started for want of a judge
    configuration is stopped by ``cleanup``."""
    import numpy as np

    from verl_arena.core.errors import ConfigError
    from verl_arena.evaluation.audit.custom import load_custom_probes
    from verl_arena.evaluation.audit.data import load_honest, sample_tasks
    from verl_arena.evaluation.audit.probes import builtin_probes
    from verl_arena.judges import build_judge
    from verl_arena.judges.loading import check_judge_config, read_judge_file
    from verl_arena.judges.templates import load_template
    from verl_arena.testing.mock_server import mock_if_no_endpoints

    if not 0 <= args.max_rate <= 1:
        raise ConfigError(f"--max-rate must be between 0 and 1, got {args.max_rate}")
    if not 0 < args.confidence < 1:
        raise ConfigError(f"--confidence must be between 0 and 1, got {args.confidence}")
    if args.sample is not None and args.sample < 1:
        raise ConfigError(f"--sample must be at least 1, got {args.sample}")
    honest = load_honest(args.tasks, args.outputs)
    tasks = sample_tasks(honest.tasks, args.sample, np.random.default_rng(args.seed))
    probes = builtin_probes()
    if args.probes:
        probes += load_custom_probes(args.probes, {p.name for p in probes})
    config = read_judge_file(args.judge_config) if args.judge_config else {}
    mock = mock_if_no_endpoints(config, args.mock_latency)
    if mock is not None:
        cleanup.callback(mock.stop)
        said = f"no judge endpoint given: auditing the built-in lexical mock judge at {mock.server.base_url}"
        print(said, file=sys.stderr)
    cfg = check_judge_config(config)
    skeleton = load_template(cfg.template, cfg.language, kind="pairwise").reply_skeleton("<verdict_id>")
    return _Audit(honest, tasks, probes, config, cfg, skeleton, build_judge(cfg), mock)


def _play(args: argparse.Namespace, audit: _Audit) -> tuple[Any, Any]:
    """Play the probes through the judge (and a judge of one order, for the slot probes); the result and that
    judge."""
    from verl_arena.evaluation.audit.runner import run_audit, single_order
    from verl_arena.judges import build_judge

    judge = audit.judge
    slot_judge = single_order(judge, lambda: build_judge({**audit.config, "orders": "given"}))
    asked = _asked_judges(judge, slot_judge)
    families = _FamilyProgress(args, audit.probes, asked)

    async def run() -> Any:
        try:
            return await families.ticking(
                run_audit(
                    audit.tasks,
                    audit.probes,
                    judge,
                    slot_judge,
                    swapped=audit.cfg.both_orders,
                    reply_skeleton=audit.skeleton,
                    seed=args.seed,
                    on_planned=families.planned,
                    on_judged=families.judged,
                )
            )
        finally:
            for one in asked:
                await one.aclose()

    try:
        return asyncio.run(run()), slot_judge
    finally:
        families.close()


def _asked_judges(judge: Any, slot_judge: Any) -> list[Any]:
    """The judges an audit asks, each with a client of its own: the slot probes' judge is the judge itself, or the
    inner judge of an order-swapped one (the same client), or one built apart."""
    return [judge] if slot_judge is judge or slot_judge is getattr(judge, "inner", None) else [judge, slot_judge]


def _publish(args: argparse.Namespace, audit: _Audit, result: Any, slot_judge: Any, checked: Preflight) -> int:
    """Write the report (a table, JSON, HTML) and return the exit code its verdict calls for; ``checked``: what the
    checks before the run sent."""
    from verl_arena.evaluation.audit.html import audit_html
    from verl_arena.evaluation.audit.report import audit_headline, audit_report

    meta = {
        "judge": _judge_description(audit.cfg, [audit.judge, slot_judge], audit.mock),
        "tasks": len(audit.tasks),
        "tasks_available": len(audit.honest.tasks),
        "tasks_without_honest_answer": audit.honest.without,
        "honest_source": audit.honest.source,
        "seed": args.seed,
    }
    report = audit_report(result, audit.probes, max_rate=args.max_rate, confidence=args.confidence, meta=meta)
    checked.charge(report, _asked_judges(audit.judge, slot_judge))
    if args.html:
        Path(args.html).write_text(audit_html(report), encoding="utf-8")
    if args.json:
        print_json(report)
        if report["verdict"] == "inconclusive":
            print(f"verl-arena audit: {audit_headline(report)}", file=sys.stderr)
    else:
        _print_table(report)
    return {"inconclusive": JUDGE_UNAVAILABLE, "flagged": FOUND}.get(report["verdict"], OK)


def register(sub: Any) -> None:
    """Add ``audit`` to the command's sub-parsers."""
    from verl_arena.evaluation.audit.report import DEFAULT_MAX_RATE

    audit = sub.add_parser(
        "audit",
        help=SUMMARIES["audit"],
        description="Play a battery of probes (position, length, formatting, hedges, non-answers, one-token openers, "
        "planted instructions in English and Chinese, refusal bait, a language switch, a changed fact, and your own "
        "from --probes) against honest answers (--outputs, else the tasks' 'reference') through the judge built "
        "from --judge-config exactly as training builds it (without one: the built-in lexical mock judge on "
        "loopback). Reports each probe's rate against the honest answer with a Wilson interval and an effect size; "
        "exits 1 when a probe's rate is over --max-rate, 2 on bad input, 3 when the judge cannot be asked (one tiny "
        "request to every endpoint first; --no-preflight skips it) or the audit is inconclusive (a probe without a "
        "rate, or more than 5%% of the judgments failed).",
    )
    audit.add_argument("--judge-config", help="judge configuration YAML (see JudgeConfig)")
    audit.add_argument("--tasks", required=True, help="tasks file (JSONL): id, query, optional reference, rubrics")
    audit.add_argument("--outputs", help="honest answers in `verl-arena eval`'s outputs format (default: references)")
    max_rate_help = f"flag a probe whose rate is over this ({DEFAULT_MAX_RATE})"
    audit.add_argument("--max-rate", type=float, default=DEFAULT_MAX_RATE, help=max_rate_help)
    audit.add_argument("--probes", metavar="YAML", help="your own probes: a list of text transforms")
    audit.add_argument("--sample", type=int, help="audit this many tasks, drawn with --seed (default: all)")
    audit.add_argument("--seed", type=int, default=0, help="seed of the sample and of the probes' choices (0)")
    audit.add_argument("--confidence", type=float, default=0.95, help="confidence level of the intervals (0.95)")
    add_mock_latency_argument(audit, 0.0)
    add_preflight_argument(audit)
    audit.add_argument("--json", action="store_true", help="print the report as JSON")
    progress.add_quiet_argument(audit)
    audit.add_argument("--html", metavar="FILE", help="write the self-contained HTML report")
    audit.set_defaults(func=_audit)
