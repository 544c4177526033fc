# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The arena agent loops on verl's real tool agent loop, against a scripted stand-in for the LLM server."""

from __future__ import annotations

import asyncio
import json
from collections import defaultdict

import pytest
from helpers import response_runs, verl_config

from verl_arena.core.errors import ConfigError
from verl_arena.integrations.verl.cpu.tiny_model import build_tokenizer

verl = pytest.importorskip("verl")

from verl.experimental.agent_loop.agent_loop import DictConfigWrap, ToolListWrap  # noqa: E402
from verl.tools.base_tool import BaseTool  # noqa: E402
from verl.tools.schemas import OpenAIFunctionToolSchema, ToolResponse  # noqa: E402
from verl.utils import hf_tokenizer  # noqa: E402
from verl.utils.dataset.rl_dataset import RLHFDataset  # noqa: E402
from verl.workers.rollout.replica import TokenOutput  # noqa: E402

from verl_arena.integrations.verl.agent_loops import ArenaSingleTurnAgentLoop, ArenaToolAgentLoop  # noqa: E402
from verl_arena.integrations.verl.trajectory import candidate_from_row  # noqa: E402

PROMPT = [
    {"role": "system", "content": "You are a travel planner."},
    {"role": "user", "content": "Plan two days in Chengdu with pandas"},
]
TURNS = [
    '<think>I need the opening hours.</think>\n<tool_call>\n{"name": "search_poi", "arguments": {"q": "panda base"}}\n'
    "</tool_call><|im_end|>",
    "<think>Now I can plan.</think>Day 1: panda base at 7:30, then Jinli street.<|im_end|>",
]


class ScriptedServer:
    """Answers each request with the next scripted turn and records the sampling parameters it was sent."""

    def __init__(self, tokenizer) -> None:
        self.tokenizer = tokenizer
        self.turn: dict[str, int] = defaultdict(int)
        self.sampling: list[dict] = []

    async def generate(self, *, request_id, prompt_ids, sampling_params, **kwargs) -> TokenOutput:
        self.sampling.append(dict(sampling_params))
        text = TURNS[min(self.turn[request_id], len(TURNS) - 1)]
        self.turn[request_id] += 1
        return TokenOutput(token_ids=self.tokenizer.encode(text), stop_reason="completed")


class SearchPoi(BaseTool):
    async def execute(self, instance_id, parameters, **kwargs):
        return ToolResponse(text=f"{parameters['q']}: opens 7:30, tickets 55 yuan"), 0.0, {}


SCHEMA = OpenAIFunctionToolSchema.model_validate(
    {
        "type": "function",
        "function": {
            "name": "search_poi",
            "description": "Find a place.",
            "parameters": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
        },
    }
)


@pytest.fixture(scope="module")
def tokenizer(tmp_path_factory):
    return hf_tokenizer(str(build_tokenizer(tmp_path_factory.mktemp("tok"))))


#: the arena's options: the reward manager's, which the agent loops read too
ARENA = (
    "reward.reward_manager.name=arena",
    "actor_rollout_ref.rollout.n=4",
    "+reward.reward_kwargs.judge.endpoints=[{base_url: 'http://127.0.0.1:9/v1', model: m}]",
)


def loop_config(*overrides, arena=ARENA):
    return verl_config(
        [
            "actor_rollout_ref.rollout.multi_turn.format=hermes",
            "actor_rollout_ref.rollout.multi_turn.max_assistant_turns=4",
            "actor_rollout_ref.rollout.response_length=512",
            "actor_rollout_ref.rollout.prompt_length=512",
            *arena,
            *overrides,
        ]
    )


def make_loop(cls, tokenizer, *overrides, arena=ARENA):
    config = loop_config(*overrides, arena=arena)
    server = ScriptedServer(tokenizer)
    loop = cls(
        trainer_config=DictConfigWrap(config),
        server_manager=server,
        tokenizer=tokenizer,
        processor=None,
        dataset_cls=RLHFDataset,
        data_config=DictConfigWrap(config.data),
        tools=ToolListWrap([SearchPoi({}, SCHEMA)]),
    )
    return loop, server


SAMPLING = {"temperature": 1.0, "top_p": 0.9, "top_k": 50}


def run(cls, tokenizer, session, *overrides, arena=ARENA):
    """Build the agent loop inside the event loop that runs it (verl binds it to the running loop) and run it."""

    async def scenario():
        loop, server = make_loop(cls, tokenizer, *overrides, arena=arena)
        kwargs = {"tools_kwargs": {}} if cls is ArenaToolAgentLoop else {}
        output = await loop.run(
            dict(SAMPLING), raw_prompt=PROMPT, session_id=session, uid="u1", extra_info={}, **kwargs
        )
        return output, server

    return asyncio.run(scenario())


def test_session_zero_is_the_greedy_anchor(tokenizer):
    anchor, server = run(ArenaToolAgentLoop, tokenizer, 0)
    assert anchor.extra_fields["arena_anchor"] is True and len(server.sampling) == 2  # two turns, both greedy
    assert all(p["temperature"] == 0.0 and p["top_p"] == 1.0 and p["top_k"] == -1 for p in server.sampling)
    other, server = run(ArenaToolAgentLoop, tokenizer, 1)
    assert other.extra_fields["arena_anchor"] is False
    assert all(p["temperature"] == 1.0 and p["top_p"] == 0.9 for p in server.sampling)


def test_the_anchor_mode_comes_from_the_reward_options(tokenizer):
    output, server = run(ArenaToolAgentLoop, tokenizer, 0, "+reward.reward_kwargs.anchor=first")
    assert output.extra_fields["arena_anchor"] is False and server.sampling[0]["temperature"] == 1.0


def test_the_loops_read_the_options_the_reward_manager_reads(tokenizer):
    """One verl config, one validated options object: the agent loops and the reward manager's check see the same
    object (validated once in this process), with the same defaults."""
    from verl_arena.integrations.verl.reward_manager import check_trainer_config

    async def scenario():
        return make_loop(ArenaToolAgentLoop, tokenizer, "+reward.reward_kwargs.anchor=first")[0]

    loop = asyncio.run(scenario())
    arena, _ = check_trainer_config(loop_config("+reward.reward_kwargs.anchor=first"), keys=False)
    assert (
        loop.arena is arena
        and arena.anchor == "first"
        and arena.validation_splits == ["test", "val", "validation", "eval"]
    )


def test_a_bad_option_fails_the_first_rollout_naming_the_key(tokenizer):
    with pytest.raises(ConfigError, match=r"reward.reward_kwargs.anchr: .*did you mean 'anchor'\?"):
        run(ArenaToolAgentLoop, tokenizer, 0, "+reward.reward_kwargs.anchr=first")
    with pytest.raises(
        ConfigError, match=r"reward.reward_kwargs.anchor: Input should be 'greedy', 'first' or 'reference'"
    ):
        run(ArenaSingleTurnAgentLoop, tokenizer, 0, "+reward.reward_kwargs.anchor=best")
    with pytest.raises(ConfigError, match=r"needs \+reward.reward_kwargs.judge"):  # the arena without its judge
        run(ArenaToolAgentLoop, tokenizer, 0, arena=("reward.reward_manager.name=arena",))


def test_beside_another_reward_manager_the_loops_keep_the_arenas_defaults(tokenizer):
    # a baseline run with a rule reward (verl-arena bench step's) keeps the loop and its greedy session 0, no judge
    for cls in (ArenaSingleTurnAgentLoop, ArenaToolAgentLoop):
        anchor, server = run(cls, tokenizer, 0, arena=("reward.reward_manager.name=naive",))
        assert anchor.extra_fields["arena_anchor"] is True and server.sampling[0]["temperature"] == 0.0
        other, server = run(cls, tokenizer, 1, arena=("reward.reward_manager.name=naive",))
        assert other.extra_fields["arena_anchor"] is False and server.sampling[0]["temperature"] == 1.0


def test_the_multi_turn_trajectory_is_recorded_and_rendered(tokenizer):
    output, _ = run(ArenaToolAgentLoop, tokenizer, 1)
    messages = json.loads(output.extra_fields["arena_messages"])
    roles = [m["role"] for m in messages]
    assert roles == ["system", "user", "assistant", "tool", "assistant"]
    assert messages[2]["tool_calls"][0]["function"]["name"] == "search_poi"
    assert "opens 7:30" in messages[3]["content"]
    # the reward manager's view of this rollout: process with the tool call and its result, answer without <think>
    candidate = candidate_from_row(
        "1",
        {"tool_extra_fields": output.extra_fields},
        response_text="ignored",
        special_tokens=tokenizer.all_special_tokens,
    )
    assert candidate.answer == "Day 1: panda base at 7:30, then Jinli street."
    assert "<|im_end|>" not in candidate.path
    assert 'call search_poi({"q": "panda base"})' in candidate.path
    assert "panda base: opens 7:30, tickets 55 yuan" in candidate.path
    assert "reasoning: I need the opening hours." in candidate.path
    assert 0 in output.response_mask and 1 in output.response_mask  # tool output tokens stay out of the loss


def test_single_turn_loop_has_the_anchor_too(tokenizer):
    output, server = run(ArenaSingleTurnAgentLoop, tokenizer, 0)
    assert output.extra_fields["arena_anchor"] is True and server.sampling[0]["temperature"] == 0.0


def test_the_policy_reads_its_chat_template_of_the_prompt_and_of_each_tool_result(tokenizer):
    """What the policy (and so the judge) reads is the tokenizer's chat template on this verl: the prompt with the tools
    in it, then each tool result as the template renders it alone, with no second system prompt (verl main tokenizes
    agent loops through Continuous Token only; the same text comes out of verl 0.9.1)."""
    tools = [SCHEMA.model_dump(exclude_unset=True, exclude_none=True)]
    output, _ = run(ArenaToolAgentLoop, tokenizer, 1)
    template = tokenizer.apply_chat_template
    assert tokenizer.decode(output.prompt_ids) == template(
        PROMPT, tools=tools, add_generation_prompt=True, tokenize=False
    )
    runs = [(trained, tokenizer.decode(ids)) for trained, ids in response_runs(output)]
    tool_message = [{"role": "tool", "content": "panda base: opens 7:30, tickets 55 yuan"}]
    assert runs == [
        (1, TURNS[0]),
        (0, template(tool_message, add_generation_prompt=True, tokenize=False)),
        (1, TURNS[1]),
    ]
    single, _ = run(ArenaSingleTurnAgentLoop, tokenizer, 1)
    assert tokenizer.decode(single.prompt_ids) == template(PROMPT, add_generation_prompt=True, tokenize=False)
