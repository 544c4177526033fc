# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The models of ``--sglang-config`` read without importing slime, checked against slime's own ``SglangConfig`` and
``ModelConfig.resolve`` (the checkpoint each model serves, whether training updates it), plus what only the servers
read (the context window, the served name), files that cannot be read, and the routers slime records."""

from __future__ import annotations

import logging
from argparse import Namespace
from pathlib import Path

import pytest
import yaml
from helpers import SKIP_REASON, SLIME, import_slime

from verl_arena.integrations.slime.sglang_models import model_routers, policy_router, read_sglang_config, router_url

POLICY = "/models/policy"
MODELS = [
    {"name": "actor", "server_groups": [{"worker_type": "regular", "num_gpus": 4}]},  # the checkpoint: updated
    {  # the checkpoint named in a group's overrides: frozen, as slime infers
        "name": "judge",
        "server_groups": [
            {
                "worker_type": "regular",
                "num_gpus": 2,
                "overrides": {"model_path": "/models/judge", "context_length": 8192},
            },
            {
                "worker_type": "regular",
                "num_gpus": 2,
                "overrides": {"model_path": "/models/judge", "context_length": 4096},
            },
            {  # reserves GPUs, serves nothing
                "worker_type": "placeholder",
                "num_gpus": 2,
                "overrides": {"model_path": "/models/judge", "context_length": 1024},
            },
        ],
    },
    {
        "name": "twin",
        "model_path": POLICY,
        "update_weights": False,
        "engine_groups": [  # slime's older key
            {"worker_type": "regular", "num_gpus": 1, "overrides": {"served_model_name": "twin-v1"}}
        ],
    },
]


def write(tmp_path: Path, data: object) -> str:
    path = tmp_path / "sglang.yaml"
    path.write_text(yaml.safe_dump(data))
    return str(path)


def slime_args(path: str, **fields: object) -> Namespace:
    base = {"sglang_config": path, "hf_checkpoint": POLICY, "rollout_num_gpus_per_engine": 2}
    return Namespace(**{**base, "sglang_context_length": None, "sglang_served_model_name": None, **fields})


@pytest.mark.skipif(SLIME is None, reason=SKIP_REASON)
def test_each_model_serves_the_checkpoint_slime_resolves_and_is_updated_as_slime_infers(tmp_path):
    import_slime()
    from slime.backends.sglang_utils.sglang_config import SglangConfig

    args = slime_args(write(tmp_path, {"sglang": MODELS}))
    theirs = SglangConfig.from_yaml(args.sglang_config).models
    for model in theirs:
        model.resolve(args)
    ours = read_sglang_config(args)
    assert list(ours) == [m.name for m in theirs] == ["actor", "judge", "twin"]
    for model in theirs:
        assert ours[model.name].model_path == model.server_groups[0].overrides["model_path"]
        assert ours[model.name].update_weights == model.update_weights
    assert [ours[n].update_weights for n in ours] == [True, False, False]


def test_the_window_is_the_smallest_serving_groups_and_the_served_name_is_the_servers(tmp_path):
    ours = read_sglang_config(slime_args(write(tmp_path, {"sglang": MODELS}), sglang_context_length=32768))
    assert ours["judge"].context_length == 4096  # not the placeholder group's
    assert ours["actor"].context_length == ours["twin"].context_length == 32768  # --sglang-context-length
    assert (ours["judge"].request_model, ours["twin"].request_model) == ("/models/judge", "twin-v1")
    named = read_sglang_config(slime_args(write(tmp_path, {"sglang": MODELS}), sglang_served_model_name="served"))
    assert named["actor"].request_model == "served" and named["twin"].request_model == "twin-v1"


def test_a_file_that_cannot_be_read_here_is_no_models_and_a_warning(tmp_path, caplog):
    assert read_sglang_config(Namespace()) is None  # no --sglang-config: slime serves one model, the policy
    with caplog.at_level(logging.WARNING, logger="verl_arena.integrations.slime.sglang_models"):
        assert read_sglang_config(slime_args(str(tmp_path / "missing.yaml"))) is None
        assert read_sglang_config(slime_args(write(tmp_path, {"models": MODELS}))) is None
    assert "cannot read --sglang-config" in caplog.text and "holds no list of models under 'sglang'" in caplog.text


def test_the_routers_slime_records_and_their_urls():
    args = Namespace(
        sglang_model_routers={"actor": ("10.0.0.1", "3001"), "judge": ("fd00::5", 3002), "bad": None, "short": ("x",)},
        sglang_router_ip="10.0.0.1",
        sglang_router_port=3001,
    )
    assert model_routers(args) == {"actor": ("10.0.0.1", 3001), "judge": ("fd00::5", 3002)}
    assert model_routers(Namespace(sglang_model_routers=["actor"])) == {} and model_routers(Namespace()) == {}
    assert policy_router(args) == ("10.0.0.1", 3001) and policy_router(Namespace(sglang_router_ip="10.0.0.1")) is None
    assert router_url(("fd00::5", 3002)) == "http://[fd00::5]:3002/v1" == router_url(("[fd00::5]", 3002))
    assert router_url(("10.0.0.1", 3001)) == "http://10.0.0.1:3001/v1"
