"""The judge slime hosts: ``arena_judge.endpoints: [{hosted: "slime:NAME"}]``, a frozen model of ``--sglang-config``.

With slime's own code (``SLIME_PATH`` or ``../shared/peers/slime``; skipped with that reason without it): the
``--sglang-config`` YAML is parsed by slime's ``SglangConfig`` and resolved by its ``ModelConfig``, the routers are
recorded on the arguments as slime's rollout manager records them (``args.sglang_model_routers``: name -> ``(ip,
port)``, the first model's also as ``sglang_router_ip/port``), and groups are ranked through slime's real
``generate_rollout``. The frozen judge's router is the lexical mock judge on loopback; the policy's router is a
stand-in that counts every request, so the tests see that the judge's requests went to the judge and none to the
policy. slime's ``get_model_url`` would answer a name it does not serve with the policy's router: the adapter refuses.
The refusals that need no slime code run without it, on arguments built by hand.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from argparse import Namespace
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml
from helpers import KYOTO, KYOTO_PLANS, SKIP_REASON, SLIME

from verl_arena.core.errors import ConfigError
from verl_arena.integrations.slime.config import arena_config
from verl_arena.integrations.slime.hosted import hosted_judge
from verl_arena.integrations.slime.sglang_models import read_sglang_config
from verl_arena.judges.config import parse_judge_config

needs_slime = pytest.mark.skipif(SLIME is None, reason=SKIP_REASON)

POLICY = "/models/Qwen3-8B"
JUDGE_WINDOW = 16384


def hosted_judge_config(*names: str, **overrides: Any) -> dict[str, Any]:
    """The judge configuration naming models slime hosts, with fast retries."""
    config: dict[str, Any] = {
        "endpoints": [{"hosted": f"slime:{name}"} for name in names],
        "retry": {"initial_wait_s": 0.01, "max_wait_s": 0.05, "retry_after_cap_s": 0.05},
        "timeout_s": 5.0,
        "cooldown_s": 0.05,
    }
    config.update(overrides)
    return config


# -- the policy's router: counts every request ------------------------------------------------------------------------


class _PolicyRouter(BaseHTTPRequestHandler):
    """Answers slime's ``GET /workers`` (no workers) and records every other request (none should come)."""

    def _answer(self) -> None:
        if self.command == "GET" and self.path == "/workers":
            body, status = json.dumps({"workers": []}).encode(), 200
        else:
            length = int(self.headers.get("Content-Length") or 0)
            self.server.received.append((self.command, self.path, self.rfile.read(length)))  # type: ignore[attr-defined]
            body, status = b'{"error": "the policy is not a judge"}', 404
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = _answer

    def log_message(self, *args: Any) -> None:
        pass


@contextmanager
def policy_router() -> Iterator[tuple[tuple[str, int], list[tuple[str, str, bytes]]]]:
    """``((ip, port), received)``: a loopback stand-in for the policy's SGLang router."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _PolicyRouter)
    server.received = []  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[:2], server.received  # type: ignore[attr-defined]
    finally:
        server.shutdown()
        server.server_close()


# -- slime's arguments, built by slime's own code from a real --sglang-config ---------------------------------------


def write_sglang_config(tmp_path: Path, judge_path: str) -> Path:
    """A --sglang-config serving the policy (``actor``), a frozen judge (``judge``) and a frozen reference (``ref``)
    whose weights slime infers are not updated (its path is not --hf-checkpoint)."""
    path = tmp_path / "sglang.yaml"
    judge_group = {"worker_type": "regular", "num_gpus": 2, "overrides": {"context_length": JUDGE_WINDOW}}
    models = [
        {"name": "actor", "server_groups": [{"worker_type": "regular", "num_gpus": 4}]},
        {"name": "judge", "model_path": judge_path, "update_weights": False, "server_groups": [judge_group]},
        {"name": "ref", "model_path": "/models/ref", "server_groups": [{"worker_type": "regular", "num_gpus": 2}]},
    ]
    path.write_text(yaml.safe_dump({"sglang": models}))
    return path


def record_routers(args: Any, addresses: dict[str, tuple[str, int]]) -> Any:
    """The models of ``args.sglang_config`` parsed and resolved by slime's own ``SglangConfig`` / ``ModelConfig``,
    each given a router address, recorded on ``args`` as slime's rollout manager records them."""
    from slime.backends.sglang_utils.sglang_config import SglangConfig

    config = SglangConfig.from_yaml(args.sglang_config)
    for model in config.models:
        model.resolve(args)
    args.sglang_model_routers = {model.name: addresses[model.name] for model in config.models}
    args.sglang_router_ip, args.sglang_router_port = addresses[config.models[0].name]
    return config


@pytest.fixture(scope="module")
def slime_rollout():
    """slime's rollout module, its HTTP client initialised (as its rollout manager does before generating)."""
    if SLIME is None:
        pytest.skip(SKIP_REASON)
    from helpers import import_slime, rollout_args

    sglang_rollout = import_slime()
    from slime.utils.http_utils import init_http_client

    init_http_client(rollout_args(("127.0.0.1", 9)))
    return sglang_rollout


@pytest.fixture
def rollout(slime_rollout, monkeypatch):
    """``rollout(args, groups) -> groups``: one training rollout through slime's ``generate_rollout``, generation
    scripted (no SGLang)."""
    from helpers import ScriptedSource, local_generate_state

    state_cls = local_generate_state(slime_rollout)
    monkeypatch.setattr(slime_rollout, "GenerateState", state_cls)

    def run(args: Any, groups: list[list[Any]]) -> list[Any]:
        return slime_rollout.generate_rollout(args, 0, ScriptedSource(groups)).samples

    yield run
    state_cls.clear_instances()


def slime_args(sglang_config: Path, policy: tuple[str, int], **options: Any) -> Any:
    """slime's rollout arguments with the arena options (as --custom-config-path sets them) and --sglang-config."""
    from helpers import custom_config, rollout_args

    args = rollout_args(policy, hf_checkpoint=POLICY, rollout_num_gpus_per_engine=2, sglang_config=str(sglang_config))
    return custom_config(args, {f"arena_{key}": value for key, value in options.items()})


@needs_slime
def test_the_sglang_config_reads_as_slime_reads_it(slime_rollout, tmp_path):
    args = Namespace(
        sglang_config=str(write_sglang_config(tmp_path, "/models/judge")),
        hf_checkpoint=POLICY,
        rollout_num_gpus_per_engine=2,
        sglang_context_length=None,
    )
    config = record_routers(args, {"actor": ("10.0.0.1", 3001), "judge": ("10.0.0.1", 3002), "ref": ("::1", 3003)})
    ours = read_sglang_config(args)
    assert ours is not None and list(ours) == [m.name for m in config.models]
    for model in config.models:
        assert ours[model.name].update_weights == model.update_weights
        assert ours[model.name].model_path == model.server_groups[0].overrides["model_path"]
    assert [ours[n].update_weights for n in ours] == [True, False, False]  # slime inferred ref's
    assert ours["judge"].context_length == JUDGE_WINDOW and ours["actor"].context_length is None

    from slime.rollout.sglang_rollout import get_model_url

    args.arena_judge = hosted_judge_config("judge", "ref")
    judge = hosted_judge(parse_judge_config(args.arena_judge), args)
    # the same addresses slime's own get_model_url gives its custom rollout functions
    assert f"{judge.endpoints[0].base_url}/chat/completions" == get_model_url(args, "judge", "/v1/chat/completions")
    assert judge.endpoints[1].base_url == "http://[::1]:3003/v1"
    assert [e.model for e in judge.endpoints] == ["/models/judge", "/models/ref"]
    assert judge.context_tokens == JUDGE_WINDOW  # the judge's window, not the default 32768


@needs_slime
def test_a_judge_slime_hosts_ranks_groups_through_slimes_rollout(rollout, mock_judge, tmp_path):
    from helpers import script_groups

    from verl_arena.integrations.verl.cpu.tiny_model import build_tokenizer
    from verl_arena.slime import reward_post_process

    judge_path = str(build_tokenizer(tmp_path / "judge_model"))  # a local checkpoint: its tokenizer counts tokens
    judge_url, judge_server = mock_judge(context_tokens=JUDGE_WINDOW)
    judge_address = judge_url.removeprefix("http://").removesuffix("/v1").split(":")
    with policy_router() as (policy, received):
        args = slime_args(
            write_sglang_config(tmp_path, judge_path),
            policy,
            judge=hosted_judge_config("judge"),
            topology="round_robin",
            generate_function_path="helpers.scripted_generate",
        )
        args.rollout_batch_size = args.over_sampling_batch_size = 2
        record_routers(
            args, {"actor": policy, "judge": (judge_address[0], int(judge_address[1])), "ref": ("127.0.0.1", 9)}
        )
        groups = rollout(args, script_groups([{"prompt": KYOTO, "responses": KYOTO_PLANS}] * 2, 4))

        assert [len(g) for g in groups] == [4, 4]
        for group in groups:
            assert group[1].reward == min(s.reward for s in group)  # the one-liner loses
            assert len({s.reward for s in group}) > 1 and not group[0].metadata["arena"]["group"]["voided"]
        # every judge request reached the frozen judge's router, named its model, and none reached the policy's; the
        # groups' request counts are what that router received
        requests = sum(g[0].metadata["arena"]["group"]["judge_requests"] for g in groups)
        # (and the tiny comparison the first group asked, in both orders, before any judgment)
        assert judge_server.received == judge_server.served["ok"] == requests + 2 and requests > 0
        assert {r["model"] for r in judge_server.recent} == {judge_path}
        assert received == []
    _, advantages = reward_post_process(args, [s for g in groups for s in g])
    assert sum(advantages) == pytest.approx(0.0, abs=1e-6) and min(advantages) < 0 < max(advantages)
    resolved = hosted_judge(arena_config(args).judge, args)
    assert resolved.tokenizer == judge_path and resolved.context_tokens == JUDGE_WINDOW


@needs_slime
def test_a_name_slime_does_not_serve_is_refused_where_slime_would_fall_back_to_the_policy(slime_rollout, tmp_path):
    from slime.rollout.sglang_rollout import get_model_url
    from slime.utils.types import Sample

    from verl_arena.slime import group_rm

    with policy_router() as (policy, received):
        args = slime_args(write_sglang_config(tmp_path, "/models/judge"), policy, judge=hosted_judge_config("judg"))
        record_routers(args, {"actor": policy, "judge": ("127.0.0.1", 9), "ref": ("127.0.0.1", 9)})
        # slime's own lookup answers the typo with the policy's router
        assert (
            get_model_url(args, "judg", "/v1/chat/completions") == f"http://{policy[0]}:{policy[1]}/v1/chat/completions"
        )
        samples = [
            Sample(group_index=0, index=i, prompt=KYOTO, response=plan, status=Sample.Status.COMPLETED)
            for i, plan in enumerate(KYOTO_PLANS)
        ]
        with pytest.raises(ConfigError) as error:
            asyncio.run(group_rm(args, samples))
        message = str(error.value)
        assert message.startswith("arena_judge.endpoints[0].hosted: hosted: slime:judg")
        assert "no model named 'judg'" in message and "actor (the policy), judge, ref" in message
        assert "update_weights: false" in message and "--sglang-config" in message
        assert received == []


@needs_slime
@pytest.mark.parametrize("name", ["actor", "twin"])
def test_the_policy_is_refused_as_its_own_judge(slime_rollout, tmp_path, name):
    """``actor`` is the policy's router; ``twin`` has a router of its own, but slime pushes the policy's weights
    into it (its path is --hf-checkpoint and update_weights is unset)."""
    config = yaml.safe_load(write_sglang_config(tmp_path, "/models/judge").read_text())
    config["sglang"].append({"name": "twin", "server_groups": [{"worker_type": "regular", "num_gpus": 2}]})
    (tmp_path / "sglang.yaml").write_text(yaml.safe_dump(config))
    args = slime_args(tmp_path / "sglang.yaml", ("10.0.0.1", 3001), judge=hosted_judge_config("judge", name))
    slime_config = record_routers(
        args,
        {
            "actor": ("10.0.0.1", 3001),
            "judge": ("10.0.0.1", 3002),
            "ref": ("10.0.0.1", 3003),
            "twin": ("10.0.0.1", 3004),
        },
    )
    assert [m.update_weights for m in slime_config.models if m.name == name] == [True]
    with pytest.raises(ConfigError, match=rf"^arena_judge\.endpoints\[1\]\.hosted: hosted: slime:{name} is the policy"):
        hosted_judge(arena_config(args).judge, args)


# -- the refusals, on arguments built by hand (no slime code needed) -------------------------------------------------


def hand_args(**fields: Any) -> Namespace:
    """slime's arguments without --sglang-config: one model, ``default``, the policy."""
    fields = {"sglang_router_ip": "10.0.0.1", "sglang_router_port": 3001, "hf_checkpoint": POLICY, **fields}
    fields.setdefault("sglang_model_routers", {"default": (fields["sglang_router_ip"], fields["sglang_router_port"])})
    return Namespace(**fields)


def test_the_default_model_is_the_policy_and_is_refused():
    args = hand_args(arena_judge=hosted_judge_config("default"))
    with pytest.raises(ConfigError, match="slime:default is the policy"):
        hosted_judge(parse_judge_config(args.arena_judge), args)
    args.arena_judge = hosted_judge_config("judge")
    with pytest.raises(ConfigError, match=r"it serves: default \(the policy\)\)"):
        hosted_judge(parse_judge_config(args.arena_judge), args)


def test_hosted_verl_and_arguments_without_routers_are_refused():
    judge = parse_judge_config(hosted_judge_config("judge", endpoints=[{"hosted": "verl"}]))
    with pytest.raises(ConfigError, match=r"^judge\.endpoints\[0\]\.hosted: hosted: verl is a judge verl serves"):
        hosted_judge(judge, hand_args())
    judge = parse_judge_config(hosted_judge_config("judge"))
    with pytest.raises(ConfigError, match=r"record no model routers \(args\.sglang_model_routers"):
        hosted_judge(judge, Namespace())
    with pytest.raises(ConfigError, match="record no model routers"):
        hosted_judge(judge, None)  # a hook called without slime's arguments


def test_ensemble_members_resolve_and_are_named_in_errors():
    routers = {"actor": ("10.0.0.1", 3001), "judge": ("10.0.0.1", 3002), "judge2": ("10.0.0.2", 3002)}
    args = hand_args(sglang_model_routers=routers, sglang_context_length=8192)
    config = hosted_judge_config("judge", ensemble={"members": [{}, {"endpoints": [{"hosted": "slime:judge2"}]}]})
    judge = hosted_judge(parse_judge_config(config), args)
    members = judge.member_configs()
    assert [m.endpoints[0].base_url for m in members] == ["http://10.0.0.1:3002/v1", "http://10.0.0.2:3002/v1"]
    assert [m.endpoints[0].model for m in members] == ["judge", "judge2"]  # no readable --sglang-config: the names
    assert judge.context_tokens == 8192  # --sglang-context-length applies to every model slime serves
    config["ensemble"]["members"][1]["endpoints"] = [{"hosted": "slime:judge3"}]
    with pytest.raises(
        ConfigError, match=r"^judge\.ensemble\.members\[1\]\.endpoints\[0\]\.hosted: hosted: slime:judge3"
    ):
        hosted_judge(parse_judge_config(config), args)


def test_the_configured_window_must_fit_the_servers(tmp_path, caplog):
    routers = {"actor": ("10.0.0.1", 3001), "judge": ("10.0.0.1", 3002)}
    args = hand_args(sglang_model_routers=routers, sglang_context_length=8192)
    with pytest.raises(ConfigError, match=r"judge\.context_tokens=32768 exceeds the context window .* \(8192"):
        hosted_judge(parse_judge_config(hosted_judge_config("judge", context_tokens=32768)), args)
    with pytest.raises(ConfigError, match=r"leaves too little room beside judge\.max_tokens=8192"):
        hosted_judge(parse_judge_config(hosted_judge_config("judge", max_tokens=8192)), args)
    assert (
        hosted_judge(parse_judge_config(hosted_judge_config("judge", context_tokens=4096)), args).context_tokens == 4096
    )
    # an --sglang-config this process cannot read: the router still resolves, the window stays the judge's own
    args = hand_args(sglang_model_routers=routers, sglang_config=str(tmp_path / "missing.yaml"))
    with caplog.at_level(logging.WARNING):
        judge = hosted_judge(parse_judge_config(hosted_judge_config("judge")), args)
    assert judge.endpoints[0].model == "judge" and judge.context_tokens == 32768 and judge.tokenizer is None
    assert "cannot read --sglang-config" in caplog.text


def test_a_judge_without_hosted_endpoints_is_left_alone():
    judge = parse_judge_config({"endpoints": [{"base_url": "http://10.0.0.9:8000/v1", "model": "qwen"}]})
    assert hosted_judge(judge, None) is judge
