"""Running slime's own rollout code on the CPU, without SGLang, for the slime adapter's tests.

slime is not on any package index; its source is found through ``SLIME_PATH`` or at ``../shared/peers/slime`` next
to the repository (CI sets ``SLIME_PATH``). Nothing here copies slime's code: it drives slime's functions with
scripted generation (each prompt's data says what its rollouts answer) and a loopback stand-in for the SGLang
router (slime asks it for its workers when a rollout ends).
"""

from __future__ import annotations

import copy
import json
import os
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


def find_slime() -> Path | None:
    """slime's source tree: ``$SLIME_PATH`` or ``../shared/peers/slime`` next to the repository."""
    for candidate in (os.environ.get("SLIME_PATH"), REPO.parent / "shared" / "peers" / "slime"):
        if candidate and (Path(candidate) / "slime" / "rollout" / "sglang_rollout.py").is_file():
            return Path(candidate).resolve()
    return None


SLIME = find_slime()
SKIP_REASON = "slime's source not found: set SLIME_PATH to a slime checkout (CI uses ../shared/peers/slime)"


def import_slime() -> Any:
    """slime's rollout module, imported from :data:`SLIME` (real Ray and transformers first, so slime finds them)."""
    import ray  # noqa: F401  (slime imports ray; the real one must be there before slime's tests could stub it)
    import transformers  # noqa: F401

    if str(SLIME) not in sys.path:
        sys.path.insert(0, str(SLIME))
    from slime.rollout import sglang_rollout

    return sglang_rollout


# -- scripted generation -------------------------------------------------------------------------------------------

SCRIPT_KEY = "script"


def _status(name: str) -> Any:
    from slime.utils.types import Sample

    return Sample.Status(name)


def _fill(sample: Any, response: str, status: str, sampling_params: dict[str, Any]) -> Any:
    sample.response = response
    sample.tokens = [*sample.tokens, *range(1, 1 + max(1, len(response.split())))]
    sample.response_length = max(1, len(response.split()))
    sample.status = _status(status)
    sample.metadata["temperature"] = sampling_params.get("temperature")
    return sample


async def scripted_generate(args: Any, sample: Any, sampling_params: dict[str, Any]) -> Any:
    """One rollout: the response (and status) the prompt's script gives to this position of the group."""
    script = sample.metadata[SCRIPT_KEY]
    slot = sample.index % args.n_samples_per_prompt
    responses = script["responses"]
    return _fill(sample, responses[slot % len(responses)], script.get("statuses", {}).get(str(slot), "completed"),
                 sampling_params)  # fmt: skip


async def scripted_fanout_generate(args: Any, sample: Any, sampling_params: dict[str, Any]) -> list[Any]:
    """One rollout split into ``1 + index % 3`` training samples (a multi-turn agent's prefix-chained turns): all
    share the rollout id, each carries the response so far, the last one the whole of it."""
    full = await scripted_generate(args, sample, sampling_params)
    words = full.response.split(" ")
    count = 1 + sample.index % 3
    turns = []
    for turn in range(count):
        part = copy.deepcopy(full)
        part.response = " ".join(words[: max(1, len(words) * (turn + 1) // count)])
        part.rollout_id = sample.index
        turns.append(part)
    return turns


def script_groups(prompts: Sequence[dict[str, Any]], n: int) -> list[list[Any]]:
    """slime's data groups for scripted prompts (``{"prompt", "responses", "statuses"?, "label"?}``), indexed as
    slime's data source indexes them."""
    from slime.utils.types import Sample

    groups, index = [], 0
    for group_index, spec in enumerate(prompts):
        group = []
        for _ in range(n):
            group.append(
                Sample(
                    group_index=group_index,
                    index=index,
                    prompt=spec["prompt"],
                    label=spec.get("label"),
                    tokens=[7, 8, 9],
                    metadata={SCRIPT_KEY: spec},
                )
            )
            index += 1
        groups.append(group)
    return groups


class ScriptedSource:
    """A data source handing out prepared groups (slime's ``data_source.get_samples`` protocol)."""

    def __init__(self, groups: list[list[Any]]) -> None:
        self.groups = list(groups)
        self.returned: list[list[Any]] = []

    def get_samples(self, num_samples: int) -> list[list[Any]]:
        if not self.groups:  # slime would ask again and again: fail the test instead of spinning
            raise RuntimeError("the scripted data source ran out: rollout_batch_size exceeds the scripted prompts")
        taken, self.groups = self.groups[:num_samples], self.groups[num_samples:]
        return taken

    def add_samples(self, samples: list[list[Any]]) -> None:
        self.returned.extend(samples)


# -- slime's generation state and router, without SGLang -------------------------------------------------------------


class _Workers(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = json.dumps({"workers": []}).encode() if self.path == "/workers" else b"{}"
        self.send_response(200 if self.path == "/workers" else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@contextmanager
def router() -> Iterator[tuple[str, int]]:
    """A loopback stand-in for the SGLang router with no workers (slime lists them when it ends a rollout)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Workers)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[0], server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


def local_generate_state(sglang_rollout: Any) -> type:
    """slime's ``GenerateState`` without a tokenizer or SGLang engines (the rest of it is slime's)."""
    import asyncio

    class LocalGenerateState(sglang_rollout.GenerateState):
        def __init__(self, args: Any) -> None:
            self.args = args
            self.semaphore = asyncio.Semaphore(64)
            self.sampling_params = {"temperature": 0.8, "top_p": 1.0, "top_k": -1, "max_new_tokens": 256}
            self.dp_counts = [0]
            self.dp_rank = 0
            self.reset()

    return LocalGenerateState


def rollout_args(router_address: tuple[str, int], **overrides: Any) -> Any:
    """The slime arguments its default rollout reads, for ``rollout_batch_size`` scripted groups."""
    from argparse import Namespace

    args = Namespace(
        rollout_global_dataset=True, rollout_batch_size=3, over_sampling_batch_size=3, n_samples_per_prompt=4,
        dynamic_sampling_filter_path=None, rollout_sample_filter_path=None, rollout_all_samples_process_path=None,
        rollout_sample_hook_path=None, partial_rollout=False, mask_offpolicy_in_partial_rollout=False,
        sglang_enable_deterministic_inference=False, ci_test=False, group_rm=True,
        custom_rm_path="verl_arena.slime.group_rm", custom_generate_function_path="verl_arena.slime.generate",
        sglang_router_ip=router_address[0], sglang_router_port=router_address[1], rollout_num_engines=1,
        sglang_server_concurrency=8, use_distributed_post=False, reward_key=None,
    )  # fmt: skip
    for key, value in overrides.items():
        setattr(args, key, value)
    return args


def custom_config(args: Any, options: dict[str, Any]) -> Any:
    """What slime's ``--custom-config-path`` does with a YAML file of ``arena_*`` keys: each becomes an argument."""
    for key, value in options.items():
        setattr(args, key, value)
    return args


def flatten(groups: list[Any]) -> list[Any]:
    """The rollout batch as slime's rollout manager hands it to the reward post-process (lists flattened)."""
    samples = list(groups)
    while samples and isinstance(samples[0], list):
        samples = [s for item in samples for s in item]
    return samples
