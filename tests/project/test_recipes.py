# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The shell recipes: valid bash, shellcheck-clean, and their overrides compose with verl's real trainer config."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import BIN_PATH, ROOT, printed_overrides

RECIPES = sorted((ROOT / "recipes").glob("*.sh"))
TRAINING = ["travel_agent.sh", "deep_research.sh", "writing.sh"]  # the others: their own tests


@pytest.mark.parametrize("script", RECIPES, ids=lambda p: p.name)
def test_bash_parses_every_recipe(script):
    assert subprocess.run(["bash", "-n", str(script)], capture_output=True).returncode == 0


def test_shellcheck_is_clean():
    beside = Path(sys.executable).with_name("shellcheck")
    shellcheck = str(beside) if beside.exists() else shutil.which("shellcheck")
    if shellcheck is None:
        pytest.skip("shellcheck is not installed (pip install -e '.[test]')")
    done = subprocess.run(
        [shellcheck, "-x", *[str(p.relative_to(ROOT)) for p in RECIPES]], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout


def run_recipe(script: str, *args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", str(ROOT / "recipes" / script), *args],
        capture_output=True,
        text=True,
        env={**os.environ, "PATH": BIN_PATH, "DRY_RUN": "1", **env},
    )


def dry_run(script: str, **env: str) -> str:
    done = run_recipe(script, **env)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.slow
@pytest.mark.parametrize("script", TRAINING)
def test_training_recipes_compose_with_verls_config(script, monkeypatch):
    pytest.importorskip("verl")
    from helpers import verl_config

    from verl_arena.integrations.verl.reward_manager import check_trainer_config

    monkeypatch.setenv("DASHSCOPE_API_KEY", "sk-dummy-for-the-test")
    output = dry_run(script, DASHSCOPE_API_KEY="sk-dummy-for-the-test")
    assert "sk-dummy" not in output and '"DASHSCOPE_API_KEY": "***"' in output  # the key never shows
    assert sum("verl.trainer.main_ppo" in line for line in output.splitlines()) == 1
    config = verl_config(printed_overrides(output))  # a typo in a key fails here
    arena, group_size = check_trainer_config(config)  # and bad arena options here
    assert config.algorithm.adv_estimator == "tournament" and config.reward.reward_manager.name == "arena"
    assert group_size == config.actor_rollout_ref.rollout.n and arena.judge.endpoints[0].model == "qwen3-max"


# (recipe, extra arguments, environment, the key the error names, the suggestion)
TYPOS = [
    ("travel_agent.sh", ["+reward.reward_kwargs.topolgy=swiss"], {}, "reward.reward_kwargs.topolgy", "'topology'"),
    ("writing.sh", [], {"TOPOLOGY": "swis"}, "reward.reward_kwargs.topology", "'swiss'"),
    ("deep_research.sh", ["+algorithm.tournamnet.normalize=grpo"], {}, "algorithm.tournamnet", "'tournament'"),
    ("cpu_smoke.sh", ["+reward.reward_kwargs.judge.max_concurency=8"], {}, "judge.max_concurency", "'max_concurrency'"),
    ("slime_travel.sh", [], {"TOPOLOGY": "swis"}, "arena_topology", "'swiss'"),  # slime: its options file
]


@pytest.mark.slow
@pytest.mark.parametrize(("script", "args", "env", "key", "suggestion"), TYPOS, ids=[t[0] for t in TYPOS])
def test_a_typo_fails_the_dry_run_naming_the_key_and_the_fix(script, args, env, key, suggestion):
    pytest.importorskip("verl")
    done = run_recipe(script, *args, **env)
    assert done.returncode == 2, done.stderr
    assert key in done.stderr and f"did you mean {suggestion}?" in done.stderr
    assert "main_ppo" not in done.stdout and "job submit" not in done.stdout  # no command to paste


@pytest.mark.slow
def test_the_printed_command_runs_what_the_recipe_runs(tmp_path):
    """The trainer command a dry run prints, pasted into a shell, passes the same arguments as the recipe itself (the
    judge key masked)."""
    pytest.importorskip("verl")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "ray").write_text(
        "#!/usr/bin/env bash\n"
        'exec python3 -c \'import json, os, sys; json.dump(sys.argv[1:], open(os.environ["RECORD"], "w"))\' "$@"\n'
    )
    (bin_dir / "ray").chmod(0o755)
    env = {"PATH": f"{bin_dir}{os.pathsep}{BIN_PATH}", "DASHSCOPE_API_KEY": "sk-dummy-for-the-test"}
    submitted = run_recipe(
        "travel_agent.sh", "trainer.total_epochs=1", DRY_RUN="0", RECORD=str(tmp_path / "run"), **env
    )
    assert submitted.returncode == 0, submitted.stderr
    output = run_recipe("travel_agent.sh", "trainer.total_epochs=1", **env)
    assert output.returncode == 0, output.stderr
    lines = output.stdout.splitlines()
    command = "\n".join(lines[next(i for i, line in enumerate(lines) if line.startswith("ray job submit")) :])
    pasted = subprocess.run(["bash", "-c", command], env={**os.environ, **env, "RECORD": str(tmp_path / "pasted")})
    assert pasted.returncode == 0
    run, paste = (json.loads((tmp_path / name).read_text()) for name in ("run", "pasted"))
    at = run.index("--runtime-env-json") + 1
    assert json.loads(paste[at])["env_vars"]["DASHSCOPE_API_KEY"] == "***"  # masked, never the key
    assert json.loads(run[at])["env_vars"]["DASHSCOPE_API_KEY"] == "sk-dummy-for-the-test"
    assert paste[:at] + paste[at + 1 :] == run[:at] + run[at + 1 :] and run[-1] == "trainer.total_epochs=1"


@pytest.mark.slow
def test_recipes_follow_the_papers_settings():
    travel = printed_overrides(dry_run("travel_agent.sh"))
    assert "actor_rollout_ref.rollout.n=16" in travel and "data.train_batch_size=8" in travel
    assert "+reward.reward_kwargs.judge.template=travel" in travel
    research = printed_overrides(dry_run("deep_research.sh"))
    assert "actor_rollout_ref.rollout.n=8" in research and "data.train_batch_size=4" in research
    writing = printed_overrides(dry_run("writing.sh"))
    assert "+reward.reward_kwargs.topology=multi_round" in writing and "+algorithm.tournament.normalize=grpo" in writing
    arena = printed_overrides(dry_run("writing.sh", TOPOLOGY="seeded_single_elimination"))
    assert "+reward.reward_kwargs.topology=seeded_single_elimination" in arena


def test_judge_fleet_prints_the_endpoints():
    out = dry_run("judge_fleet.sh", JUDGE_HOSTS="10.0.0.1 10.0.0.2", JUDGE_TP="4")
    ssh = [line for line in out.splitlines() if line.startswith("[dry-run] ssh")]
    assert len(ssh) == 4 and "CUDA_VISIBLE_DEVICES=4,5,6,7" in out.replace("\\", "")  # dry runs print shell-quoted
    endpoints = out.strip().splitlines()[-1]
    assert endpoints.count("base_url") == 4 and "http://10.0.0.2:8001/v1" in endpoints
    pytest.importorskip("verl")
    from helpers import verl_config

    from verl_arena.judges.config import parse_judge_config

    composed = verl_config([f"+reward.reward_kwargs.judge.endpoints={endpoints}"])
    from omegaconf import OmegaConf

    judge = parse_judge_config(OmegaConf.to_container(composed.reward.reward_kwargs.judge))
    assert [e.base_url for e in judge.endpoints][-1] == "http://10.0.0.2:8001/v1"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["head"], "ray start --head"),
        (["worker", "10.0.0.1:6379"], "ray start --address 10.0.0.1:6379"),
        (["stop"], "ray stop"),
        (["head", "--num-cpus", "8"], "--num-gpus 8 --num-cpus 8"),  # extra arguments go to ray start
        (["worker", "10.0.0.1:6379", "--resources", '{"n": 1}'], '--num-gpus 8 --resources \\{\\"n\\":\\ 1\\}'),
    ],
)
def test_cluster_script_dry_run(args, expected):
    cluster = ["bash", str(ROOT / "recipes" / "cluster.sh"), *args]
    env = {key: value for key, value in os.environ.items() if key != "RAY_TEMP_DIR"}
    done = subprocess.run(cluster, capture_output=True, text=True, env={**env, "DRY_RUN": "1"})
    assert done.returncode == 0 and expected in done.stdout


def test_with_a_ray_directory_the_cluster_script_uses_it_and_stops_only_its_processes():
    cluster = ["bash", str(ROOT / "recipes" / "cluster.sh")]
    env = {**os.environ, "DRY_RUN": "1", "RAY_TEMP_DIR": "/tmp/arena_ray"}
    started = subprocess.run([*cluster, "head"], capture_output=True, text=True, env=env)
    assert started.returncode == 0 and "--temp-dir /tmp/arena_ray" in started.stdout
    stopped = subprocess.run([*cluster, "stop"], capture_output=True, text=True, env=env)
    assert stopped.returncode == 0 and "ray stop" not in stopped.stdout
    assert "stop the Ray processes of /tmp/arena_ray" in stopped.stdout


def test_an_empty_key_list_submits_without_a_key():
    """JUDGE_KEY_ENVS="" (a self-hosted or hosted judge, as the README and verl_hosted_judge.sh set it) means no key,
    not the DashScope default."""
    script = f"source {ROOT / 'recipes' / 'common.sh'}; arena_runtime_env"
    env = {key: value for key, value in os.environ.items() if key != "DASHSCOPE_API_KEY"}
    done = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env={**env, "JUDGE_KEY_ENVS": ""})
    assert done.returncode == 0, done.stderr
    assert "DASHSCOPE_API_KEY" not in json.loads(done.stdout)["env_vars"]
    unset = {key: value for key, value in env.items() if key != "JUDGE_KEY_ENVS"}
    done = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=unset)
    assert done.returncode != 0 and "set DASHSCOPE_API_KEY" in done.stderr  # the default still asks for its key


@pytest.mark.slow
def test_judge_fleet_stops_the_servers_it_started_and_nothing_else(tmp_path):
    """Start and stop run for real, with ssh, vllm and curl replaced by local stand-ins."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, body in {
        "ssh": 'shift; exec bash -c "$1"',  # "ssh HOST CMD" runs CMD here
        "vllm": "exec sleep 300",
        "curl": "exit 0",
    }.items():
        (bin_dir / name).write_text(f"#!/usr/bin/env bash\n{body}\n")
        (bin_dir / name).chmod(0o755)
    port = str(20000 + os.getpid() % 20000)
    env = {
        **os.environ,
        "PATH": f"{bin_dir}:{os.environ['PATH']}",
        "JUDGE_HOSTS": "127.0.0.1",
        "JUDGE_GPUS_PER_HOST": "1",
        "JUDGE_TP": "1",
        "JUDGE_PORT": port,
    }
    bystander = subprocess.Popen([str(bin_dir / "vllm"), "serve", "Qwen/Qwen3-235B-A22B-Instruct-2507"])
    fleet = ["bash", str(ROOT / "recipes" / "judge_fleet.sh")]
    try:
        started = subprocess.run([*fleet, "start"], env=env, capture_output=True, text=True, timeout=60)
        assert started.returncode == 0, started.stderr
        pid = int(Path(f"/tmp/verl_arena_judge_{port}.pid").read_text())
        os.kill(pid, 0)  # the server runs
        stopped = subprocess.run([*fleet, "stop"], env=env, capture_output=True, text=True, timeout=60)
        assert stopped.returncode == 0, stopped.stderr
        for _ in range(50):
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.1)
        else:
            raise AssertionError("the judge server it started still runs")
        assert bystander.poll() is None  # a vllm serve of the same model that it did not start is left alone
        assert not Path(f"/tmp/verl_arena_judge_{port}.pid").exists()
    finally:
        bystander.kill()


@pytest.mark.slow
def test_the_cpu_smoke_recipe_composes_with_verls_config(tmp_path):
    pytest.importorskip("verl")
    from helpers import verl_config

    from verl_arena.integrations.verl.reward_manager import check_trainer_config

    judge = tmp_path / "judge.yaml"
    judge.write_text("endpoints: [{base_url: 'http://127.0.0.1:9/v1', model: m}]\ntemplate: travel\nrpm: 60\n")
    output = dry_run("cpu_smoke.sh", JUDGE_CONFIG=str(judge), TOPOLOGY="swiss")
    assert "VERL_PLATFORM=cpu" in output
    config = verl_config(printed_overrides(output))
    arena, group_size = check_trainer_config(config)
    assert config.actor_rollout_ref.rollout.name == "transformers" and config.trainer.device == "cpu"
    assert arena.topology == "swiss" and arena.judge.template == "travel" and arena.judge.rpm == 60 and group_size == 3


@pytest.mark.slow
def test_the_cpu_smoke_recipe_submits_to_a_cluster_as_the_gpu_recipes_do():
    pytest.importorskip("verl")
    from helpers import printed_command, verl_config

    output = dry_run("cpu_smoke.sh", SUBMIT="1", RAY_ADDRESS="http://10.0.0.1:8265", SUBMISSION_ID="rehearsal")
    words = printed_command(output)
    assert words[:4] == ["ray", "job", "submit", "--address"] and words[4] == "http://10.0.0.1:8265"
    runtime = json.loads(words[words.index("--runtime-env-json") + 1])["env_vars"]
    assert runtime["VERL_PLATFORM"] == "cpu" and "DASHSCOPE_API_KEY" not in runtime  # the mock judge has no key
    assert words[words.index("--submission-id") + 1] == "rehearsal"
    config = verl_config(words[words.index("verl.trainer.main_ppo") + 1 :])
    ray_init = config.ray_kwargs.ray_init  # the job joins the cluster's Ray, which it cannot size
    assert config.trainer.device == "cpu" and ray_init.get("num_cpus") is None and "num_gpus" not in ray_init


# Megatron-LM's own flags in the slime recipe (slime passes them through to Megatron's parser)
MEGATRON_FLAGS = {
    "--tensor-model-parallel-size",
    "--sequence-parallel",
    "--pipeline-model-parallel-size",
    "--optimizer",
    "--lr",
    "--lr-decay-style",
    "--weight-decay",
    "--adam-beta1",
    "--adam-beta2",
}


def test_the_slime_recipe_writes_valid_options_and_uses_slimes_flags(tmp_path):
    import importlib
    import itertools
    import shlex
    from types import SimpleNamespace

    import yaml
    from helpers import SLIME

    from verl_arena.integrations.slime.config import arena_config

    output = dry_run("slime_travel.sh", DASHSCOPE_API_KEY="sk-dummy-for-the-test", SAVE_DIR=str(tmp_path), N="12")
    lines = output.splitlines()
    assert lines[0] == f"[dry-run] write {tmp_path}/verl_arena.yaml:"
    options = yaml.safe_load("\n".join(line[4:] for line in lines[1:] if line.startswith("    ")))
    cfg = arena_config(SimpleNamespace(**options))  # every arena_* key is one the adapter knows
    assert cfg.anchor == "greedy" and cfg.judge.template == "travel" and cfg.judge.endpoints[0].model == "qwen3-max"
    submit = next(line for line in lines if line.startswith("[dry-run] ray job submit"))
    command = shlex.split(submit.removeprefix("[dry-run]"))
    assert "sk-dummy" not in output and "***" in command[command.index("--runtime-env-json") + 1]
    slime_args = command[command.index("--") + 3 :]
    assert slime_args[slime_args.index("--n-samples-per-prompt") + 1] == "12"
    assert slime_args[slime_args.index("--global-batch-size") + 1] == "96"
    for flag, path in itertools.pairwise(slime_args):
        if path.startswith("verl_arena.slime."):  # every hook slime is pointed at exists and is callable
            module, name = path.rsplit(".", 1)
            assert callable(getattr(importlib.import_module(module), name)), flag
    if SLIME is None:
        pytest.skip("slime's source not found: the flags were not checked against its argument parser")
    known = (SLIME / "slime" / "utils" / "arguments.py").read_text()
    flags = {a for a in slime_args if a.startswith("--")} - MEGATRON_FLAGS
    assert {f for f in flags if f'"{f}"' not in known} == set()


@pytest.mark.slow
def test_the_hosted_judge_recipe_composes_and_resolves_to_verls_router():
    pytest.importorskip("verl")
    from helpers import verl_config

    from verl_arena.integrations.verl.reward_manager import check_trainer_config

    output = dry_run("verl_hosted_judge.sh", JUDGE_MODEL="/models/Qwen3-32B")
    config = verl_config(printed_overrides(output))
    reward_model = config.reward.reward_model
    assert reward_model.enable and reward_model.enable_resource_pool and not reward_model.rollout.free_cache_engine
    assert reward_model.rollout.enable_prefix_caching and reward_model.rollout.temperature == 0
    arena, _ = check_trainer_config(config, "10.0.0.5:8000")  # verl hands the router's address to the manager
    (endpoint,) = arena.judge.endpoints
    assert endpoint.base_url == "http://10.0.0.5:8000/v1" and endpoint.model == "/models/Qwen3-32B"
    assert endpoint.api_key_env is None and arena.judge.rpm is None and arena.judge.tpm is None
    assert arena.judge.context_tokens == 32768 and arena.judge.tokenizer == "/models/Qwen3-32B"


def dry_run_file(output: str, path: Path) -> object:
    """The YAML a recipe's dry run prints for the file at ``path``."""
    import yaml

    lines = output.splitlines()
    start = lines.index(f"[dry-run] write {path}:")
    block = []
    for line in lines[start + 1 :]:
        if not line.startswith("    "):
            break
        block.append(line[4:])
    return yaml.safe_load("\n".join(block))


def test_the_slime_in_cluster_recipe_serves_a_frozen_judge_and_points_the_arena_at_it(tmp_path):
    import importlib
    import json
    import shlex
    from argparse import Namespace

    import yaml
    from helpers import SLIME

    from verl_arena.integrations.slime.config import arena_config
    from verl_arena.integrations.slime.hosted import hosted_judge

    output = dry_run(
        "slime_in_cluster.sh", SAVE_DIR=str(tmp_path), JUDGE_MODEL="/models/judge", JUDGE_GPUS="4", JUDGE_TP="2"
    )
    models = dry_run_file(output, tmp_path / "sglang.yaml")
    options = dry_run_file(output, tmp_path / "verl_arena.yaml")
    cfg = arena_config(Namespace(**options))  # every arena_* key is one the adapter knows
    assert [e.hosted for e in cfg.judge.endpoints] == ["slime:judge"] and cfg.judge.rpm is None
    submit = next(line for line in output.splitlines() if line.startswith("[dry-run] ray job submit"))
    command = shlex.split(submit.removeprefix("[dry-run]"))
    env_vars = json.loads(command[command.index("--runtime-env-json") + 1])["env_vars"]
    assert "DASHSCOPE_API_KEY" not in env_vars  # a judge the job serves needs no key
    slime_args = command[command.index("--") + 3 :]

    def value(flag: str) -> str:
        return slime_args[slime_args.index(flag) + 1]

    assert value("--sglang-config") == str(tmp_path / "sglang.yaml") and "--colocate" in slime_args
    assert value("--custom-config-path") == str(tmp_path / "verl_arena.yaml")
    for path in (a for a in slime_args if a.startswith("verl_arena.slime.")):
        module, name = path.rsplit(".", 1)
        assert callable(getattr(importlib.import_module(module), name)), path
    if SLIME is None:
        pytest.skip("slime's source not found: the files and flags were not checked against slime's code")
    from helpers import import_slime

    import_slime()
    from slime.backends.sglang_utils.sglang_config import SglangConfig

    (tmp_path / "sglang.yaml").write_text(yaml.safe_dump(models))
    args = Namespace(
        hf_checkpoint=value("--hf-checkpoint"),
        sglang_config=value("--sglang-config"),
        rollout_num_gpus_per_engine=int(value("--rollout-num-gpus-per-engine")),
        arena_judge=options["arena_judge"],
    )
    config = SglangConfig.from_yaml(args.sglang_config)  # slime's own reading of the file
    for model in config.models:
        model.resolve(args)
    # slime checks that the file's GPUs are --rollout-num-gpus: the actor's 8, then the judge's 4 beyond them
    assert config.total_num_gpus == int(value("--rollout-num-gpus")) == 8 + 4
    assert [(m.name, m.update_weights) for m in config.models] == [("actor", True), ("judge", False)]
    assert [g.num_gpus_per_engine for g in config.models[1].server_groups] == [2]
    # the arena's judge resolves to the judge's router as slime's rollout manager records it, never the policy's
    args.sglang_model_routers = {m.name: ("10.0.0.1", 3000 + i) for i, m in enumerate(config.models)}
    args.sglang_router_ip, args.sglang_router_port = args.sglang_model_routers["actor"]
    judge = hosted_judge(cfg.judge, args)
    assert [(e.base_url, e.model) for e in judge.endpoints] == [("http://10.0.0.1:3001/v1", "/models/judge")]
    assert judge.context_tokens == 32768
    known = "".join(
        (SLIME / "slime" / p).read_text() for p in ("utils/arguments.py", "backends/sglang_utils/arguments.py")
    )
    flags = {a for a in slime_args if a.startswith("--")} - MEGATRON_FLAGS
    assert {f for f in flags if f'"{f}"' not in known} == set()


@pytest.mark.slow
def test_the_environment_recipe_composes_with_verls_config(monkeypatch):
    pytest.importorskip("verl")
    monkeypatch.setenv("DASHSCOPE_API_KEY", "sk-dummy-for-the-test")
    from helpers import verl_config

    from verl_arena.integrations.verl.reward_manager import check_trainer_config

    output = dry_run("textcraft_env.sh", DASHSCOPE_API_KEY="sk-dummy-for-the-test")
    assert "verl-arena env-server textcraft" in output
    config = verl_config(printed_overrides(output))
    assert config.actor_rollout_ref.rollout.agent.default_agent_loop == "arena_env_agent"
    arena, _ = check_trainer_config(config)
    assert arena.env is not None and arena.env.adapter == "textcraft" and arena.env.url.endswith(":36001")
    assert arena.env_reward == "success_first" and arena.horizon is not None
