# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""What ``verl-arena eval`` prints: the win-rate report, the arena's standings, the judge's agreement with the
environment, and the win-rate plot."""

from __future__ import annotations

import math
from typing import Any

__all__ = ["plot_winrates", "print_arena", "print_report"]


def _ci(interval: dict[str, float]) -> str:
    if math.isnan(interval["value"]):
        return "n/a"
    return f"{interval['value']:.3f} [{interval['low']:.3f}, {interval['high']:.3f}]"


def _length(value: float | None) -> str:
    """A mean answer length in characters, ``n/a`` without one."""
    return "n/a" if value is None or math.isnan(value) else f"{value:.0f}"


def _env_cell(env: dict[str, Any] | None) -> str:
    """A system's env success rate and the tasks it rests on, for a table (``-`` without the column)."""
    if env is None or not env["tasks"]:
        return "-"
    return f"{env['success_rate']:.2f} of {env['tasks']}"


def _print_env_agreement(agreement: dict[str, Any] | None, level: int) -> None:
    """The judge's agreement with the environment, where the outputs carry env outcomes."""
    if agreement is None:
        return
    if not agreement["pairings"]:
        print(
            f"\njudge vs environment: no judged pairing where exactly one system succeeded "
            f"({agreement['comparable']} pairings with both outcomes)"
        )
        return
    print(
        f"\njudge vs environment ({agreement['pairings']} judged pairings where exactly one system succeeded): "
        f"prefers the one that succeeded in {_ci(agreement['rate'])} ({level}% CI)"
    )
    if len(agreement["by_judge"]) > 1:
        for judge, r in agreement["by_judge"].items():
            print(f"  {judge:<16} {_ci(r['rate'])} of {r['pairings']}")
    rate = agreement["rate"]["value"]
    if not math.isnan(rate) and rate < 0.5:
        print(
            "  WARNING: the judge prefers the failed outcome more often than not: it rewards something other than "
            "getting the task done"
        )


def print_report(report: dict[str, Any]) -> None:
    """The win-rate report as tables."""
    from verl_arena.evaluation.spending import spending_words  # imported when it prints, not when the CLI parses

    level = round(report["confidence"] * 100)
    print(
        f"{report['tasks']} tasks; baseline {report['baseline']}; judges: {', '.join(report['judges'])}; "
        f"{spending_words(report)}"
    )
    env = any(s["env"] is not None for s in report["systems"])
    by_name = {c["system"]: c for c in report["comparisons"]}
    print(
        f"\n{'system':<24} {'mean len':>8}  {'win rate [' + str(level) + '% CI]':<24} {'length-controlled':<24} "
        f"{'valid':>6} {'missing':>8} {'empty':>6}" + (f"  {'env success':>14}" if env else "")
    )
    for s in report["systems"]:
        c = by_name.get(s["name"])
        rate = "baseline" if c is None else _ci(c["mean"]["rate"])
        controlled = "-" if c is None or c["length"] is None else _ci(c["length"]["controlled"])
        cell = f"  {_env_cell(s['env']):>14}" if env else ""
        print(
            f"{s['name']:<24} {_length(s['mean_answer_length']):>8}  {rate:<24} {controlled:<24} "
            f"{s['valid_rate']:>6.2f} {s['missing']:>8} {s['empty']:>6}{cell}"
        )
    _print_env_agreement(report["env_agreement"], level)
    for c in report["comparisons"]:
        _print_comparison(c, level)


def _judge_row(judge: str, r: dict[str, Any]) -> str:
    """One judge's line of a comparison: its win rate, or why it has none."""
    w, pos = r["win_rate"], r["position"]
    if r.get("not_measured"):
        return f"  {judge:<16} {'n/a':>5} {'':>6} {'':>6} {'':>6}  n/a: not measured, {r['not_measured']}"
    undecided = f"  ({r['undecided_tasks']} undecided)" if r["undecided_tasks"] else ""
    return (
        f"  {judge:<16} {w['tasks']:>5} {w['wins']:>6.2f} {w['ties']:>6.2f} {w['losses']:>6.2f}  "
        f"{_ci(w['rate']):<28} {_ci(pos['first_slot_rate'])} of {pos['decisive']}{undecided}"
    )


def _print_comparison(c: dict[str, Any], level: int) -> None:
    print(f"\n{c['system']} vs {c['baseline']}")
    print(
        f"  {'judge':<16} {'tasks':>5} {'win':>6} {'tie':>6} {'loss':>6}  win rate [{level}% CI]        first slot wins"
    )
    for judge, r in c["by_judge"].items():
        print(_judge_row(judge, r))
    if len(c["by_judge"]) > 1:
        print(f"  {'mean of judges':<16} {c['mean']['tasks']:>5} {'':>6} {'':>6} {'':>6}  {_ci(c['mean']['rate'])}")
        for a in c["agreement"]:
            print(
                f"  agreement {a['judges'][0]} ~ {a['judges'][1]}: kappa {a['kappa']:.3f}, "
                f"same verdict on {a['agreement']:.0%} of tasks"
            )
    for judge, r in c["by_judge"].items():
        if r["dimensions"]:
            dims = ", ".join(f"{d} {_ci(w['rate'])}" for d, w in r["dimensions"].items())
            print(f"  dimensions ({judge}): {dims}")
    _print_length(c)


def _print_length(c: dict[str, Any]) -> None:
    """The length effect of a comparison, and why a length-controlled rate says nothing where it does not."""
    length = c["length"]
    if length is None:
        return
    controlled = _ci(length["controlled"])
    if length.get("uninformative"):
        controlled += f" (not informative: {length['uninformative']})"
    print(
        f"  length: correlation of outcome with answer-length difference {length['correlation']:+.3f}; "
        f"length-controlled win rate {controlled}; judge's length bias "
        f"{length['bias']:+.3f} logits per log length ratio (length_bias for training)"
    )
    if length["mostly_length"]:
        print(
            f"  WARNING: {c['system']}'s win over {c['baseline']} is mostly length: the win rate is clearly "
            "above or below 0.5, the length-controlled one is not"
        )


def plot_winrates(report: dict[str, Any], path: str) -> None:
    """A PNG of every measured win rate with its interval (``--plot``)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise SystemExit("verl-arena eval: --plot needs matplotlib (pip install 'verl-arena[plot]')") from None
    rows = [
        (f"{c['system']} ({judge})", r["win_rate"]["rate"])
        for c in report["comparisons"]
        for judge, r in c["by_judge"].items()
    ]
    rows += [
        (f"{c['system']} (length-controlled)", c["length"]["controlled"])
        for c in report["comparisons"]
        if c["length"] is not None
    ]
    rows = [(label, ci) for label, ci in rows if not math.isnan(ci["value"])]  # a rate not measured has no point
    fig, ax = plt.subplots(figsize=(7, 0.5 * len(rows) + 1.2))
    for i, (_, ci) in enumerate(rows):
        ax.errorbar(ci["value"], i, xerr=[[ci["value"] - ci["low"]], [ci["high"] - ci["value"]]], fmt="o", capsize=4)
    ax.axvline(0.5, color="grey", linestyle="--", linewidth=1)
    ax.set_yticks(range(len(rows)), [label for label, _ in rows])
    ax.set_xlim(0, 1)
    ax.set_xlabel(f"win rate against {report['baseline']} ({round(report['confidence'] * 100)}% CI)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _signed(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:+.2f}"


def _elo(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:.0f}"


def print_arena(result: dict[str, Any]) -> None:
    """The arena's standings as a table."""
    level = round(result["confidence"] * 100)
    print(
        f"{len(result['systems'])} systems, {result['tasks']} tasks; judges: {', '.join(result['judges'])}; "
        f"{result['judgments']} judgments in {result['rounds']} rounds (round robin: "
        f"{result['round_robin_judgments']}); stopped: {result['stopped']}"
    )
    env = any(row["env"] is not None for row in result["leaderboard"])
    print(
        f"\n{'#':>3} {'system':<24} {'Elo':>6}  {level}% interval  {'LC Elo':>6}  {level}% interval  "
        f"{'mean len':>8}  tasks judged" + (f"  {'env success':>14}" if env else "")
    )
    for i, row in enumerate(result["leaderboard"], 1):
        cell = f"  {_env_cell(row['env']):>14}" if env else ""
        print(
            f"{i:>3} {row['system']:<24} {row['elo']:>6.0f}  {row['elo_low']:>5.0f} to {row['elo_high']:<5.0f}"
            f"  {_elo(row['lc_elo']):>6}  {_elo(row['lc_elo_low']):>5} to {_elo(row['lc_elo_high']):<5}"
            f"  {_length(row['mean_answer_length']):>8}  {row['tasks_judged']:>12}{cell}"
        )
    length = result["length"]
    print(
        f"\nLC Elo: the same fit at equal answer lengths (length coefficient {_signed(length['coefficient'])} over "
        f"{length['pairings']} task pairings; positive: longer answers win); mean len: characters"
    )
    _print_env_agreement(result["env_agreement"], level)
