# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""What the commands that ask a judge (``rank``, ``eval``, ``audit``) do before and after their run.

Before: one pre-flight request to every endpoint (:func:`~verl_arena.judges.preflight.preflight`). An endpoint that
does not answer is named, with its cause, on one line; a judge none of whose endpoints answers stops the command with
status 3 before anything is judged, and so does a judge configured for a larger context than a server lists on
``/v1/models`` (:func:`~verl_arena.judges.served.fit_to_servers`), and so does an endpoint that gives no verdict in a
tiny comparison in the judge's template (:mod:`~verl_arena.judges.competence`: what came back is said).
``--no-preflight`` skips the checks.

Without a judge endpoint such a command starts the built-in mock judge, whose ``--mock-latency`` is checked while the
arguments are parsed (:func:`mock_latency`).

After: a run in which the judge never answered (every group voided, every judgment failed) is no result: its files
are written, and the command exits 3 with one line of the causes (failed judgments by reason, and each endpoint's
failures by cause).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from verl_arena.commands.exit_codes import JUDGE_UNAVAILABLE

__all__ = [
    "Preflight",
    "add_mock_latency_argument",
    "add_preflight_argument",
    "judge_stat",
    "judge_unusable",
    "mock_latency",
    "preflight_judges",
]

#: the forms a mock judge's latency takes
LATENCY_FORMS = "SECONDS, uniform:LOW:HIGH or lognormal:MEDIAN:SIGMA"


def add_preflight_argument(parser: argparse.ArgumentParser) -> None:
    """``--no-preflight``, for a command that asks a judge."""
    parser.add_argument(
        "--no-preflight",
        action="store_true",
        help="do not send the one pre-flight request to every judge endpoint before the run (by default a judge none "
        "of whose endpoints answers stops the command with status 3)",
    )


def mock_latency(value: str) -> str:
    """The argparse ``type`` of a mock judge's latency: the value as given, or a usage error naming its forms."""
    from verl_arena.testing.mock_server import MockJudgeConfig

    try:
        MockJudgeConfig(latency=value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be {LATENCY_FORMS}, got {value!r}") from None
    return value


def add_mock_latency_argument(parser: argparse.ArgumentParser, default: float) -> None:
    """``--mock-latency``, for a command that starts the built-in mock judge when no judge endpoint is given."""
    parser.add_argument(
        "--mock-latency",
        type=mock_latency,
        default=default,
        help=f"latency of the built-in mock judge: {LATENCY_FORMS} ({default:g})",
    )


async def _preflight_all(configs: Mapping[str, Any]) -> dict[str, list[Any]]:
    from verl_arena.judges.preflight import preflight  # imported when a command runs, not when the CLI parses

    names = list(configs)
    found = await asyncio.gather(*(preflight(configs[name]) for name in names))
    return dict(zip(names, found, strict=True))


async def _context_refusal(config: Any) -> tuple[str | None, int]:
    """Why the judge's configured context does not fit what its servers list on ``/v1/models``, if it does not, and
    how many servers were asked."""
    from verl_arena.core.errors import ConfigError
    from verl_arena.judges.config import parse_judge_config
    from verl_arena.judges.served import fit_to_servers, models_queries

    members = parse_judge_config(config).member_configs()
    asked = sum(models_queries(m) for m in members)
    try:
        await asyncio.gather(*(fit_to_servers(m) for m in members))
    except ConfigError as exc:
        return str(exc), asked
    return None, asked


@dataclass(frozen=True)
class Preflight:
    """What the checks before a run found and cost.

    Args:
        usable: every judge can be asked and judges.
        requests: chat requests the checks sent (one per endpoint; two more per endpoint the tiny comparison asked).
        model_queries: ``GET /models`` reads of the servers' context windows.
        usage: the tokens the server reported for those requests.
    """

    usable: bool
    requests: int = 0
    model_queries: int = 0
    usage: Counter[str] = field(default_factory=Counter)

    def charge(self, report: dict[str, Any], judges: Iterable[Any] = ()) -> None:
        """Add what the checks cost to a report, apart from the run's own judgments (``preflight``: their requests,
        ``GET /models`` reads and tokens), and the ``GET /models`` reads the ``judges`` made themselves
        (``model_queries``)."""
        report["preflight"] = {"requests": self.requests, "model_queries": self.model_queries, **self.usage}
        report["model_queries"] = sum(
            judge_stat(j.stats(), "judge", "model_queries") for j in judges if hasattr(j, "stats")
        )


def judge_stat(stats: Mapping[str, Any], section: str, key: str) -> int:
    """One counter of a judge's ``stats()`` (``stats[section][key]``), an ensemble's members added up."""
    members = stats.get("members")
    if members is not None:
        return sum(judge_stat(m, section, key) for m in members)
    return int((stats.get(section) or {}).get(key, 0))


def preflight_judges(configs: Mapping[str, Any], command: str) -> Preflight:
    """Ask every endpoint of every judge (``name -> configuration``; a single judge's name is ``""``) one tiny
    question, then one tiny comparison in both orders (:mod:`~verl_arena.judges.competence`); print one line for each
    endpoint that did not answer, one more for each judge none of whose endpoints did, one for each judge configured
    for a larger context than a server lists, and one for each endpoint that gave no verdict. Says whether every judge
    can be asked and judges, and what the checks sent."""
    usable, requests, queries, usage = True, 0, 0, Counter()
    for name, checks in asyncio.run(_preflight_all(configs)).items():
        judge = f"judge {name!r}" if name else "the judge"
        requests += sum(c.status is not None for c in checks)
        for check in checks:
            usage.update(check.usage)
        failed = [c for c in checks if not c.answered]
        for check in failed:
            print(f"verl-arena {command}: cannot ask {judge} at {check.describe()}", file=sys.stderr)
        if checks and len(failed) == len(checks):
            usable = False
            print(
                f"verl-arena {command}: no endpoint of {judge} answered a pre-flight request, so nothing was judged "
                "(fix the judge configuration, or skip this check with --no-preflight)",
                file=sys.stderr,
            )
            continue
        if failed:
            print(
                f"verl-arena {command}: going on with the {len(checks) - len(failed)} endpoint(s) of {judge} that "
                "answered",
                file=sys.stderr,
            )
        refused, asked = asyncio.run(_context_refusal(configs[name]))
        queries += asked
        if refused is not None:
            usable = False
            print(f"verl-arena {command}: {judge}: {refused}", file=sys.stderr)
            continue
        answering = {(c.base_url, c.model) for c in checks if c.answered}
        competent, sent = _competent(configs[name], judge, command, usage, answering if checks else None)
        usable, requests = usable and competent, requests + sent
    return Preflight(usable, requests, queries, usage)


def _competent(
    config: Any, judge: str, command: str, usage: Counter[str], answering: set[tuple[str, str]] | None
) -> tuple[bool, int]:
    """Whether every endpoint of ``judge`` that answered (``answering``) gave verdicts in the tiny comparison (one
    line for each that did not, and for each warning), and the requests it sent (their tokens added to ``usage``)."""
    from verl_arena.judges.competence import check_competence

    usable = True
    checks = asyncio.run(check_competence(config, answering))
    for check in checks:
        usage.update(check.usage)
        if not check.judged:
            usable = False
            print(
                f"verl-arena {command}: {judge} cannot judge at {check.describe()} (use a model that follows the "
                "template, or more max_tokens; skip this check with --no-preflight or competence_check: false)",
                file=sys.stderr,
            )
        elif check.cause:
            print(f"verl-arena {command}: warning: {judge} at {check.describe()}", file=sys.stderr)
    return usable, sum(c.requests for c in checks)


def judge_unusable(
    command: str, what: str, failures: Mapping[str, int], endpoints: list[Mapping[str, Any]] | None = None
) -> int:
    """Print the one line of a run in which the judge never answered (``what`` happened, then the causes) and
    return status 3."""
    from verl_arena.judges.causes import summarize_failures

    print(f"verl-arena {command}: judge unusable: {what}; {summarize_failures(failures, endpoints)}", file=sys.stderr)
    return JUDGE_UNAVAILABLE
