# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena doctor``: is this environment ready to train with verl-arena?

verl swallows plugin import errors, so a broken install shows up only as "Unknown advantage estimator" deep inside a
training job. The doctor checks, each in a fresh interpreter so nothing already imported hides a problem:

- verl is installed in the supported range and importing it registers the plugin's estimator, reward manager and
  agent loops;
- optionally, the same inside a Ray worker;
- optionally, a judge configuration: it validates, its API-key variables are set, every endpoint answers the
  pre-flight request ``rank``, ``eval`` and ``audit`` send before a run, and each one that answers gives a verdict in
  both orders of the tiny comparison they (and the trainer's start) ask (:mod:`~verl_arena.judges.competence`).
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from verl_arena.judges.competence import Competence

__all__ = [
    "SUPPORTED_VERLS",
    "TESTED_VERLS",
    "Check",
    "installed_verl_check",
    "planned_checks",
    "run_checks",
    "verl_version_check",
]

_REGISTRATION = """
import json, verl
from verl.trainer.ppo.core_algos import ADV_ESTIMATOR_REGISTRY
from verl.experimental.reward_loop.reward_manager.registry import REWARD_MANAGER
from verl.experimental.agent_loop.agent_loop import _agent_loop_registry
from verl_arena.integrations.verl.plugin_loading import skip_reason
estimator = "tournament" in ADV_ESTIMATOR_REGISTRY
print(json.dumps({"verl": verl.__version__, "estimator": estimator, "reward_manager": "arena" in REWARD_MANAGER,
                  "agent_loops": sorted(k for k in _agent_loop_registry if k.startswith("arena_")),
                  "skipped": None if estimator else skip_reason()}))
"""

#: what a Ray worker's Python finds (``probe()``), run as a script by the workers' interpreter command and as a Ray task
_PROBE = """
def probe():
    import sys
    try:
        from verl_arena.integrations.verl.plugin_loading import skip_reason
    except ImportError as exc:
        return {"python": sys.executable, "missing": str(exc)}
    import verl
    from verl.trainer.ppo.core_algos import ADV_ESTIMATOR_REGISTRY
    from verl.experimental.reward_loop.reward_manager.registry import REWARD_MANAGER
    found = ["tournament" in ADV_ESTIMATOR_REGISTRY, "arena" in REWARD_MANAGER]
    return {"python": sys.executable, "found": found, "skipped": None if all(found) else skip_reason()}
"""

#: the probe as a script, run by the interpreter command the trainer gives its workers
_WORKER_PROBE = (
    _PROBE
    + """
import json
print(json.dumps(probe()))
"""
)

#: the probe in a Ray worker started with the trainer's worker interpreter (``runtime_env.py_executable``); verl main
#: turns Ray's own uv hook off the same way before it starts Ray
_IN_RAY = (
    _PROBE
    + """
import json, os, sys
os.environ.setdefault("RAY_ENABLE_UV_RUN_RUNTIME_ENV", "0")
import ray
py_executable, timeout = json.loads(sys.argv[1])
ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False,
         runtime_env={"py_executable": py_executable} if py_executable else None)
try:
    print(json.dumps(ray.get(ray.remote(probe).remote(), timeout=timeout)))
except ray.exceptions.GetTimeoutError:
    print(json.dumps({"python": py_executable or sys.executable, "never_started": timeout}))
ray.shutdown()
"""
)


@dataclass(frozen=True)
class Check:
    """One check's outcome: failed, passed, or passed with a note (something to know that stops nothing)."""

    name: str
    ok: bool
    detail: str
    note: bool = False


#: the verl releases the tests run against, and verl main (the next release) at the commit its CI job installs
TESTED_VERLS = ("0.9.1", "0.10.0.dev (verl main at 1dda039)")
#: the verls the plugin supports
SUPPORTED_VERLS = ">=0.9.1,<0.11"


def verl_version_check(version: str) -> Check:
    """Whether ``version`` is supported, and a note when the tests never ran against it."""
    from packaging.specifiers import SpecifierSet
    from packaging.version import Version

    parsed = Version(version)
    if not SpecifierSet(SUPPORTED_VERLS).contains(parsed, prereleases=True):
        return Check("verl version", False, f"{version}: not supported (supported: {SUPPORTED_VERLS})")
    tested = parsed.base_version == "0.9.1" or (parsed.release[:2] == (0, 10) and parsed.is_prerelease)
    if tested:
        return Check("verl version", True, f"{version} (tested: {', '.join(TESTED_VERLS)})")
    return Check("verl version", True, f"{version}: untested (tested: {', '.join(TESTED_VERLS)})", note=True)


def _python(code: str, timeout: float, *args: str) -> tuple[Any, str]:
    return _run([sys.executable, "-c", code, *args], timeout)


def _run(argv: list[str], timeout: float) -> tuple[Any, str]:
    """The JSON a command prints last, or ``None`` and why it printed none."""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except FileNotFoundError as exc:
        return None, f"cannot start {argv[0]!r}: {exc.strerror}"
    except subprocess.TimeoutExpired:
        return None, f"no answer within {timeout:.0f} s"
    if done.returncode != 0:
        return None, done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit {done.returncode}"
    return json.loads(done.stdout.strip().splitlines()[-1]), ""


#: the agent loops the plugin registers (kept here so the check needs no verl import in this process)
AGENT_LOOPS = ("arena_tool_agent", "arena_single_turn_agent", "arena_env_agent")


def installed_verl_check() -> Check:
    """:func:`verl_version_check` of the verl this process imports."""
    import verl

    return verl_version_check(verl.__version__)


def check_registration() -> list[Check]:
    """verl's version and the plugin's registrations, in a fresh interpreter."""
    found, error = _python(_REGISTRATION, 300)
    if found is None:
        return [Check("import verl", False, error)]
    loops = found["agent_loops"]
    return [
        verl_version_check(found["verl"]),
        Check(
            "advantage estimator 'tournament'",
            found["estimator"],
            "registered" if found["estimator"] else f"missing: {found['skipped'] or 'verl did not register it'}",
        ),
        Check(
            "reward manager 'arena'", found["reward_manager"], "registered" if found["reward_manager"] else "missing"
        ),
        Check("agent loops", set(loops) == set(AGENT_LOOPS), ", ".join(loops) or "missing"),
    ]


#: how long a Ray worker may take to start with the workers' interpreter (``uv run`` may first sync an environment)
WORKER_START_S = 120.0


def check_ray(py_executable: str | None = None) -> list[Check]:
    """The plugin's registrations inside a Ray worker, started with ``py_executable`` (the trainer's
    ``ray_kwargs.ray_init.runtime_env.py_executable``; ``None``: Ray's default, this Python) when given.

    That interpreter is first run here as the worker would run it, since a Ray worker that cannot start only hangs.
    """
    name = "registration in a Ray worker"
    if py_executable:
        with tempfile.TemporaryDirectory() as folder:
            script = Path(folder) / "verl_arena_worker_probe.py"
            script.write_text(_WORKER_PROBE)
            found, error = _run([*shlex.split(py_executable), str(script)], 300)
        if found is None:
            return [Check(name, False, f"the workers' interpreter {py_executable!r} fails here: {error}")]
        if "missing" in found or not all(found["found"]):
            return [_worker_check(name, found)]
    found, error = _python(_IN_RAY, 300 + WORKER_START_S, json.dumps([py_executable, WORKER_START_S]))
    if found is None:
        return [Check(name, False, error)]
    if "never_started" in found:
        return [
            Check(
                name,
                False,
                f"no Ray worker started with {found['python']!r} within {WORKER_START_S:.0f} s: it must run a Python "
                "with the driver's Ray version",
            )
        ]
    return [_worker_check(name, found)]


def _worker_check(name: str, found: dict[str, Any]) -> Check:
    if "missing" in found:
        return Check(
            name,
            False,
            f"the worker's Python ({found['python']}) cannot import verl-arena ({found['missing']}): install it in the "
            "environment every Ray worker runs in, on every node (with uv workers: uv add verl-arena in their project)",
        )
    if all(found["found"]):
        return Check(name, True, f"estimator and reward manager registered ({found['python']})")
    return Check(name, False, f"missing in {found['python']}: {found['skipped'] or 'verl did not register it'}")


def check_judge(path: str) -> list[Check]:
    """A judge configuration file: valid, keys set, and every endpoint answering the pre-flight request the commands
    send (:func:`~verl_arena.judges.preflight.preflight`: one tiny chat request, its cause in words if it fails)."""
    import asyncio

    from verl_arena.core.errors import ConfigError
    from verl_arena.judges.competence import check_competence
    from verl_arena.judges.loading import check_judge_config, read_judge_file
    from verl_arena.judges.preflight import preflight

    try:
        config = check_judge_config(read_judge_file(path))
    except ConfigError as exc:
        return [Check("judge configuration", False, str(exc))]
    checks = [Check("judge configuration", True, f"{len(config.endpoints)} endpoint(s), template {config.template}")]
    for endpoint in config.endpoints:
        if endpoint.hosted is not None:
            checks.append(Check(f"hosted judge {endpoint.hosted}", True, "resolved by the training job at start-up"))
    answers = asyncio.run(preflight(config))
    for answer in answers:
        checks.append(Check(f"endpoint {answer.base_url}", answer.answered, f"model {answer.model}: {answer.cause}"))
    answering = {(a.base_url, a.model) for a in answers if a.answered}
    return checks + [_competence_check(c) for c in asyncio.run(check_competence(config, answering))]


def _competence_check(competence: Competence) -> Check:
    """One endpoint's tiny comparison as a check: no verdict fails, a verdict for the non-answer is a note."""
    name = f"judging at {competence.base_url}"
    if not competence.judged:
        return Check(name, False, f"model {competence.model}: {competence.cause}")
    if competence.cause:
        return Check(name, True, f"model {competence.model}: {competence.cause}", note=True)
    how = "remembered from an earlier check" if competence.cached else f"{competence.requests} requests"
    return Check(name, True, f"model {competence.model}: a verdict in both orders of a tiny comparison ({how})")


def planned_checks(
    *, ray: bool = False, judge_config: str | None = None, py_executable: str | None = None
) -> list[tuple[str, Callable[[], list[Check]]]]:
    """The requested checks in order, each with what it does in words (for progress: each can take many seconds).
    ``py_executable`` (the workers' interpreter command) implies ``ray``."""
    steps: list[tuple[str, Callable[[], list[Check]]]] = [("importing verl in a fresh interpreter", check_registration)]
    if ray or py_executable:
        where = f" started with {py_executable!r}" if py_executable else ""
        steps.append((f"starting Ray and importing verl in a worker{where}", lambda: check_ray(py_executable)))
    if judge_config:
        steps.append((f"checking the judge of {judge_config}", lambda: check_judge(judge_config)))
    return steps


def run_checks(*, ray: bool = False, judge_config: str | None = None, py_executable: str | None = None) -> list[Check]:
    """All requested checks, in order."""
    steps = planned_checks(ray=ray, judge_config=judge_config, py_executable=py_executable)
    return [check for _, step in steps for check in step()]
