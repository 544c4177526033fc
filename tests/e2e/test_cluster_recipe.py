# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The recipes on a real Ray cluster, the way recipes/README.md runs them: ``recipes/cluster.sh head`` and
``recipes/cluster.sh worker`` start two raylets on this machine's loopback (one Ray directory, ports of their own,
token authentication on), ``recipes/cpu_smoke.sh`` with ``SUBMIT=1`` submits verl's real trainer with ``ray job
submit`` (the CPU setup, the built-in mock judge), and ``recipes/cluster.sh stop`` stops exactly this cluster.

Placement is pinned with custom resources so that it can be asserted: the trainer's logical GPU and the judge pool on
the head, the group coordinator on the worker, and verl's reward workers (round-robin over the nodes) on both; the
plugin is found on both nodes through the environment they were started in. Ray's state API says where each actor
ran. About two minutes on 2 cores; marked ``e2e``.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import ROOT

from verl_arena.bench.step import read_step_metrics

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("cluster_recipe")]  # one worker makes its fixture once

ray = pytest.importorskip("ray")
psutil = pytest.importorskip("psutil")

#: the custom resource of each node (what the arena's actors ask for to be placed there)
JUDGE_NODE, COORDINATOR_NODE = "arena_judge_node", "arena_coordinator_node"

STATE = """
import json, sys
from ray.util.state import list_actors, list_nodes
address = sys.argv[1]
nodes = {n.node_id: sorted(n.resources_total) for n in list_nodes(address=address, detail=True)}
actors = [{"class": a.class_name, "name": a.name, "node": a.node_id, "state": a.state}
          for a in list_actors(address=address, detail=True, limit=10_000)]
print(json.dumps({"nodes": nodes, "actors": actors}))
"""


def free_ports(count: int) -> list[int]:
    """``count`` distinct ports nobody listens on now."""
    sockets = [socket.socket() for _ in range(count)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def run(command: list[str], env: dict[str, str], timeout: float) -> subprocess.CompletedProcess:
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout)


def processes_of(directory: Path) -> list[int]:
    """The processes whose command line names the cluster's Ray directory."""
    found = []
    for process in psutil.process_iter(["cmdline"]):
        if any(str(directory) in word for word in (process.info["cmdline"] or [])[1:]):
            found.append(process.pid)
    return found


def listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


@pytest.fixture(scope="module")
def cluster() -> Iterator[dict[str, Any]]:
    """A head and a worker started by ``recipes/cluster.sh`` on loopback; stopped by it however the tests end."""
    directory = Path(tempfile.mkdtemp(prefix="vac_", dir="/tmp"))  # short: Ray's socket paths must stay short
    gcs, dashboard, client, head_agent, worker_agent = free_ports(5)
    env = {key: value for key, value in os.environ.items() if not key.startswith(("RAY_", "JUDGE_"))}
    # a token of its own, and RAY_AUTH_MODE unset, as on a machine where a local ray.init() left ~/.ray/auth_token:
    # Ray's head turns authentication on by itself, and the recipes must take every other node and client along
    env.update({"RAY_TEMP_DIR": str(directory), "RAY_PORT": str(gcs), "DASHBOARD_PORT": str(dashboard)})
    env.update({"RAY_AUTH_TOKEN": secrets.token_hex(32), "RAY_USAGE_STATS_ENABLED": "0"})
    script = ["bash", str(ROOT / "recipes" / "cluster.sh")]
    common = ["--node-ip-address", "127.0.0.1", "--num-cpus", "8", "--object-store-memory", str(200 * 2**20)]
    try:
        ports = ["--ray-client-server-port", str(client), "--dashboard-agent-listen-port", str(head_agent)]
        resources = ["--resources", json.dumps({JUDGE_NODE: 1})]
        head = run([*script, "head", *common, *resources, *ports], {**env, "GPUS_PER_NODE": "1"}, timeout=120)
        assert head.returncode == 0, head.stdout[-3000:] + head.stderr[-3000:]
        assert "bash recipes/cluster.sh worker " in head.stdout and "token authentication is on" in head.stdout
        ports = ["--dashboard-agent-listen-port", str(worker_agent)]
        resources = ["--resources", json.dumps({COORDINATOR_NODE: 1})]
        worker = run(
            [*script, "worker", f"127.0.0.1:{gcs}", *common, *resources, *ports], {**env, "GPUS_PER_NODE": "0"}, 120
        )
        assert worker.returncode == 0, worker.stdout[-3000:] + worker.stderr[-3000:]
        yield {"env": env, "address": f"http://127.0.0.1:{dashboard}", "gcs": f"127.0.0.1:{gcs}"}
    finally:
        stopped = run([*script, "stop"], env, timeout=120)
        left = processes_of(directory)
        for pid in left:  # the cluster's own processes, by id: none may outlive the test, even when stop failed
            with contextlib.suppress(psutil.Error):
                psutil.Process(pid).kill()
        answering = [port for port in (gcs, dashboard) if listening(port)]
        shutil.rmtree(directory, ignore_errors=True)
        assert stopped.returncode == 0, stopped.stdout + stopped.stderr
        assert not left, f"Ray processes outlived recipes/cluster.sh stop: {left}"
        assert not answering, f"something still answers at the head's ports {answering}"


def state(cluster: dict[str, Any]) -> dict[str, Any]:
    """The cluster's nodes (their custom resources) and every actor it ran, from Ray's state API."""
    env = {**cluster["env"], "RAY_AUTH_MODE": "token"}
    done = run([sys.executable, "-c", STATE, cluster["address"]], env, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


def submit(cluster: dict[str, Any], workdir: Path, *overrides: str) -> subprocess.CompletedProcess:
    """``recipes/cpu_smoke.sh`` with ``SUBMIT=1``: the trainer as a job on the cluster, via ``ray job submit``."""
    env = {**cluster["env"], "SUBMIT": "1", "RAY_ADDRESS": cluster["address"], "WORKDIR": str(workdir)}
    return run(["bash", str(ROOT / "recipes" / "cpu_smoke.sh"), *overrides], env, timeout=540)


def test_a_recipe_trains_two_steps_with_the_arena_across_both_nodes(cluster, tmp_path):
    done = submit(
        cluster,
        tmp_path,
        "reward.num_workers=2",
        f"+reward.reward_kwargs.judge_resources={{{JUDGE_NODE}: 0.01}}",
        f"+reward.reward_kwargs.coordinator_resources={{{COORDINATOR_NODE}: 0.01}}",
    )
    log = (tmp_path / "train.log").read_text(errors="replace") if (tmp_path / "train.log").exists() else ""
    assert done.returncode == 0, f"the job failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}\n{log[-6000:]}"

    steps = read_step_metrics(log)
    assert sorted(steps) == [1, 2], log[-3000:]
    for step in (1, 2):  # 2 prompts x 3 rollouts, ranked by the judge
        assert steps[step]["arena/groups"] == 2 and steps[step]["arena/rollouts"] == 6
        assert steps[step]["arena/judgments"] > 0 and steps[step]["arena/voided_groups"] == 0

    found = state(cluster)
    node_of = {resource: node for node, resources in found["nodes"].items() for resource in resources}
    assert len(found["nodes"]) == 2 and {JUDGE_NODE, COORDINATOR_NODE} <= set(node_of)
    where: dict[str, set[str]] = {}
    for actor in found["actors"]:
        where.setdefault(actor["class"], set()).add(actor["node"])
    assert where["RewardLoopWorker"] == set(found["nodes"]), found["actors"]  # one reward worker on each node
    assert where["JudgeActor"] == {node_of[JUDGE_NODE]}
    assert where["CoordinatorActor"] == {node_of[COORDINATOR_NODE]}


def test_a_job_that_fails_fails_the_recipe_with_the_jobs_error(cluster, tmp_path):
    done = submit(cluster, tmp_path, "+reward.reward_kwargs.judge.templte=travel")
    assert done.returncode != 0 and "trainer exited with 1" in done.stdout, done.stdout[-3000:]
    # the job's own error, as the job logged it, not a bare exit status
    assert "reward.reward_kwargs.judge.templte: Extra inputs are not permitted; did you mean 'template'?" in done.stdout
