# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``arena_env_agent`` on verl's real agent-loop machinery (its tokenizer, continuous-token builder and output type),
against the bundled TextCraft server over real HTTP; the policy is a scripted stand-in for the LLM server. Every test
ends with the server holding no open episode: episodes are closed on success, limits, errors, stalls and cancellation.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import defaultdict

import httpx
import pytest
from helpers import response_runs, verl_config

from verl_arena.integrations.verl.cpu.tiny_model import build_tokenizer

verl = pytest.importorskip("verl")

from verl.experimental.agent_loop.agent_loop import DictConfigWrap  # noqa: E402
from verl.utils import hf_tokenizer  # noqa: E402
from verl.utils.dataset.rl_dataset import RLHFDataset  # noqa: E402
from verl.workers.rollout.replica import TokenOutput  # noqa: E402

from verl_arena.core.errors import ConfigError  # noqa: E402
from verl_arena.environments.server import EnvServerThread, create_app  # noqa: E402
from verl_arena.environments.textcraft import solve  # noqa: E402
from verl_arena.integrations.verl.config import hydra_value  # noqa: E402
from verl_arena.integrations.verl.env_agent import ArenaEnvAgentLoop  # noqa: E402
from verl_arena.integrations.verl.trajectory import candidate_from_row  # noqa: E402

PROMPT = [{"role": "user", "content": "Craft the goal item."}]
TASK = 26  # eight commands: deep enough for turn limits to bite


class ScriptedPolicy:
    """Answers each turn of an episode with the next of its replies (the last one again when they run out)."""

    def __init__(self, tokenizer, replies: list[str], delay: float = 0.0) -> None:
        self.tokenizer = tokenizer
        self.replies = replies
        self.delay = delay
        self.turn: dict[str, int] = defaultdict(int)
        self.prompts: list[list[int]] = []

    async def generate(self, *, request_id, prompt_ids, sampling_params, **kwargs) -> TokenOutput:
        self.prompts.append(list(prompt_ids))
        await asyncio.sleep(self.delay)
        text = self.replies[min(self.turn[request_id], len(self.replies) - 1)]
        self.turn[request_id] += 1
        return TokenOutput(token_ids=self.tokenizer.encode(text + "<|im_end|>"), stop_reason="completed")


def solver(task: int) -> list[str]:
    return [f"I will do the next step.\nAction: {command}" for command in solve(task)]


@pytest.fixture(scope="module")
def tokenizer(tmp_path_factory):
    return hf_tokenizer(str(build_tokenizer(tmp_path_factory.mktemp("tok"))))


@pytest.fixture
def env_server():
    """Start bundled servers (``create_app`` options); ``(url, stats)`` where ``stats()`` reads the server's counts."""
    threads = []

    def start(**options):
        thread = EnvServerThread(create_app(**options))
        url = thread.start()
        threads.append(thread)
        return url, lambda: httpx.get(f"{url}/stats").json()

    yield start
    for thread in threads:
        thread.stop()


def play(
    tokenizer, policy, env: dict, *overrides: str, task: int = TASK, cancel_mid_episode: bool = False, step: int = 1
):
    """One episode through the agent loop (built inside the event loop that runs it, as verl does);
    ``cancel_mid_episode``: cancelled once the policy is asked for its first action, and expected to raise."""
    config = verl_config(
        [
            "actor_rollout_ref.rollout.response_length=2048",
            "actor_rollout_ref.rollout.prompt_length=2048",
            "reward.reward_manager.name=arena",  # the episodes are the arena's to rank
            "+reward.reward_kwargs.judge.endpoints=[{base_url: 'http://127.0.0.1:9/v1', model: m}]",
            f"+reward.reward_kwargs.env={hydra_value(env)}",
            *overrides,
        ]
    )

    async def scenario():
        loop = ArenaEnvAgentLoop(
            trainer_config=DictConfigWrap(config),
            server_manager=policy,
            tokenizer=tokenizer,
            processor=None,
            dataset_cls=RLHFDataset,
            data_config=DictConfigWrap(config.data),
        )
        run = loop.run(
            {"temperature": 1.0}, raw_prompt=PROMPT, session_id=1, extra_info={"data_idx": task}, global_steps=step
        )
        if not cancel_mid_episode:
            return await run
        task_ = asyncio.ensure_future(run)
        deadline = time.monotonic() + 60
        while not policy.prompts and not task_.done() and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        task_.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task_
        return None

    return asyncio.run(scenario())


def test_a_good_agent_solves_the_task_and_only_its_own_tokens_are_trained_on(tokenizer, env_server):
    url, stats = env_server()
    policy = ScriptedPolicy(tokenizer, solver(TASK))
    output = play(tokenizer, policy, {"url": url, "adapter": "textcraft", "max_turns": 30})
    extra = output.extra_fields
    assert extra["env_success"] == 1.0 and extra["env_reward"] == 1.0 and extra["env_error"] == ""
    assert extra["env_turns"] == len(solve(TASK)) and len(policy.prompts) == len(solve(TASK))
    # the model's replies are trained on (mask 1), the observations between them are not (mask 0)
    mask = output.response_mask
    assert 0 in mask and 1 in mask and mask[0] == 1 and len(mask) == len(output.response_ids)
    trained = tokenizer.decode([t for t, m in zip(output.response_ids, mask, strict=True) if m])
    untrained = tokenizer.decode([t for t, m in zip(output.response_ids, mask, strict=True) if not m])
    assert "Action: " in trained and "Action: " not in untrained and "Inventory" not in trained
    # the judge reads the episode: actions, and each observation as the environment's answer
    candidate = candidate_from_row("1", {"tool_extra_fields": extra}, "")
    assert "result of environment:" in candidate.path and solve(TASK)[0] in candidate.path
    assert stats()["open"] == 0 and stats()["closed"] == 1


def test_the_turn_limit_comes_from_the_horizon_curriculum(tokenizer, env_server):
    url, stats = env_server()
    policy = ScriptedPolicy(tokenizer, solver(TASK))
    output = play(
        tokenizer,
        policy,
        {"url": url, "adapter": "textcraft", "max_turns": 30},
        "+reward.reward_kwargs.horizon.turns=[2,4]",
        "+reward.reward_kwargs.horizon.steps_per_phase=5",
    )
    assert output.extra_fields["env_turns"] == 2 and output.extra_fields["arena_horizon"] == 2
    assert output.extra_fields["env_success"] == 0.0 and stats()["open"] == 0
    later = play(
        tokenizer,
        ScriptedPolicy(tokenizer, solver(TASK)),
        {"url": url, "adapter": "textcraft", "max_turns": 30},
        "+reward.reward_kwargs.horizon.turns=[2,4]",
        "+reward.reward_kwargs.horizon.steps_per_phase=5",
        step=6,
    )
    assert later.extra_fields["env_turns"] == 4 and later.extra_fields["arena_horizon"] == 4


def test_a_confused_agent_fails_within_max_turns(tokenizer, env_server):
    url, stats = env_server()
    policy = ScriptedPolicy(tokenizer, ["I am not sure.\nAction: dance"])
    output = play(tokenizer, policy, {"url": url, "adapter": "textcraft", "max_turns": 3})
    assert output.extra_fields["env_turns"] == 3 and output.extra_fields["env_success"] == 0.0
    assert output.extra_fields["env_error"] == "" and stats()["open"] == 0


@pytest.mark.slow
@pytest.mark.parametrize(("options", "reason"), [({"fail_rate": 1.0}, "env_http"), ({"stall_s": 3.0}, "env_timeout")])
def test_an_environment_that_errors_or_stalls_ends_the_episode_as_its_own_failure(
    tokenizer, env_server, options, reason
):
    url, stats = env_server(**options)
    policy = ScriptedPolicy(tokenizer, solver(TASK))
    env = {"url": url, "adapter": "textcraft", "step_timeout_s": 0.5, "recover_s": 1.0}
    output = play(tokenizer, policy, env)
    # every step fails, the control episodes' too, for longer than recover_s: down for everyone, not broken by the agent
    assert output.extra_fields["env_error"] == reason and output.extra_fields["env_success"] == 0.0
    # the server had the failing step, and no private server replays it: unresolved, not priced either way
    assert output.extra_fields["env_crash"] == "" and output.extra_fields["env_cause"] == "unresolved"
    assert output.extra_fields["env_replays"] == 0.0 and stats()["created"] >= 2
    assert len(output.response_ids) == len(output.response_mask) > 0  # a valid rollout all the same
    if reason == "env_timeout":  # the stalled steps are still running on the server: give them time to close
        import time

        time.sleep(3.5)
    assert stats()["open"] == 0


# AgentGym's TextCraft fails on a get of a number past 4300 digits; here a shorter one, to fit the response budget
HUGE = "get " + "9" * 60 + " pine log"


@pytest.mark.parametrize(
    ("kind", "reason"), [("error", "env_http"), ("drop", "env_connection"), ("stall", "env_timeout")]
)
@pytest.mark.slow
def test_an_action_that_breaks_a_working_environment_is_the_agents_failure(tokenizer, env_server, kind, reason):
    url, stats = env_server(fault_pattern=r"\d{50,}", fault_kind=kind)
    policy = ScriptedPolicy(tokenizer, [*solver(TASK)[:2], f"Let me take plenty.\nAction: {HUGE}"])
    output = play(tokenizer, policy, {"url": url, "adapter": "textcraft", "step_timeout_s": 1.0})
    extra = output.extra_fields
    # the server failed on the third action; replayed at the same state (its two moves on a fresh episode), it failed
    # again while a control episode (inventory on the same task) worked: the agent broke it
    assert extra["env_crash"] == reason and extra["env_error"] == "" and extra["env_success"] == 0.0
    assert extra["env_cause"] == "fails_again" and extra["env_replays"] == 1.0 and extra["env_recovered"] == 0.0
    assert extra["env_turns"] == 3 and len(output.response_ids) == len(output.response_mask) > 0
    assert "The environment failed on this action" in extra["arena_messages"]
    counts = stats()
    # its episode, a control, the replay and a control after it; its two moves, the controls' and the replayed ones
    assert counts["created"] == 4 and counts["faults"] == 2 and counts["steps"] == 2 + 1 + 2 + 1
    assert counts["open"] == 0


def test_an_environment_that_fails_the_control_too_is_down_for_everyone(tokenizer, env_server):
    url, stats = env_server(fault_pattern=r"\d{50,}|^inventory$")  # the control's harmless action fails as well
    policy = ScriptedPolicy(tokenizer, [*solver(TASK)[:1], f"Action: {HUGE}"])
    env = {"url": url, "adapter": "textcraft", "step_timeout_s": 1.0, "recover_s": 0.3}
    output = play(tokenizer, policy, env)
    assert output.extra_fields["env_error"] == "env_http" and output.extra_fields["env_crash"] == ""
    assert stats()["created"] >= 2 and stats()["faults"] >= 2 and stats()["open"] == 0


def test_the_control_action_is_configurable(tokenizer, env_server):
    url, stats = env_server(fault_pattern=r"\d{50,}|^inventory$")
    policy = ScriptedPolicy(tokenizer, [f"Action: {HUGE}"])
    env = {"url": url, "adapter": "textcraft", "control_action": "get 1 sand", "step_timeout_s": 1.0}
    output = play(tokenizer, policy, env)
    assert output.extra_fields["env_crash"] == "env_http" and stats()["steps"] == 2 and stats()["open"] == 0


def test_an_episode_the_environment_ended_on_its_own_goes_on_and_reaches_the_goal(tokenizer, env_server):
    """The server expires episodes idle for 1.5 s and the model thinks for 4 s once: the next action meets an unknown
    episode (a control episode works, and alone would have blamed the agent). Replayed on a fresh episode, the episode
    goes on to the goal. (The idle limit leaves every ordinary turn room on a busy machine: at 0.3 s the test failed
    once beside other work.)"""
    url, stats = env_server(episode_ttl_s=1.5)
    policy = ScriptedPolicy(tokenizer, solver(TASK))
    thinking = policy.generate

    async def slow_third_turn(**kwargs):
        if len(policy.prompts) == 2:
            await asyncio.sleep(4.0)
        return await thinking(**kwargs)

    policy.generate = slow_third_turn  # type: ignore[method-assign]
    output = play(tokenizer, policy, {"url": url, "adapter": "textcraft", "max_turns": 30})
    extra = output.extra_fields
    assert extra["env_success"] == 1.0 and extra["env_crash"] == extra["env_error"] == extra["env_cause"] == ""
    assert extra["env_recovered"] == 1.0 and extra["env_replays"] == 1.0 and extra["env_turns"] == len(solve(TASK))
    assert stats()["expired"] >= 1 and stats()["open"] == 0


def test_an_environment_that_is_not_there_fails_before_the_first_turn(tokenizer):
    policy = ScriptedPolicy(tokenizer, solver(TASK))
    env = {"url": "http://127.0.0.1:9", "adapter": "textcraft", "step_timeout_s": 1, "recover_s": 0.3}
    output = play(tokenizer, policy, env)
    assert output.extra_fields["env_error"] == "env_connection" and not policy.prompts
    assert output.extra_fields["env_cause"] == "start" and output.response_mask == [0]  # nothing to train on


def test_beside_another_reward_manager_the_error_names_the_reward_manager_too(tokenizer):
    policy = ScriptedPolicy(tokenizer, solver(TASK))
    env = {"url": "http://127.0.0.1:9", "adapter": "textcraft"}  # set, but only the arena's options carry it
    with pytest.raises(
        ConfigError, match=r"needs \+reward\.reward_kwargs\.env .* and reward\.reward_manager\.name=arena"
    ):
        play(tokenizer, policy, env, "reward.reward_manager.name=naive")
    assert not policy.prompts


def test_a_cancelled_rollout_still_closes_its_episode(tokenizer, env_server):
    url, stats = env_server()
    policy = ScriptedPolicy(tokenizer, solver(TASK), delay=600)  # the episode is open while the policy thinks
    play(tokenizer, policy, {"url": url, "adapter": "textcraft"}, cancel_mid_episode=True)
    assert stats()["created"] == 1 and stats()["open"] == 0


def test_bare_replies_and_prefixed_routes(tokenizer, env_server):
    url, stats = env_server(bare=True, prefix="/textcraft")
    root = url.removesuffix("/textcraft")
    policy = ScriptedPolicy(tokenizer, solver(TASK))
    output = play(tokenizer, policy, {"url": root, "adapter": "generic", "prefix": "/textcraft", "max_turns": 30})
    assert output.extra_fields["env_success"] == 1.0 and stats()["open"] == 0


#: a prompt of the AgentGym kind: the command goes alone on the line below "Action:"
BELOW_ACTION = (
    "You craft items in a text game. Answer every turn in two parts: 'Thought:' with your reasoning on the lines "
    "below it, a blank line, then 'Action:' with the one command on the line below it."
)


def plain_http_episode(url: str, task: int, commands: list[str]) -> dict:
    """``commands`` sent as they are to the server's routes, with no agent loop; the last step's reply."""
    with httpx.Client(base_url=url, timeout=10) as http:
        episode = http.post("/create").json()["id"]
        http.post("/reset", json={"id": episode, "data_idx": task}).raise_for_status()
        replies = [http.post("/step", json={"id": episode, "action": c}).json() for c in commands]
        http.post("/close", json={"id": episode}).raise_for_status()
    return replies[-1]


@pytest.mark.parametrize("task", [3, 12, 27, 33])  # one goal of each difficulty level
def test_replies_with_the_action_below_its_line_reach_the_goal_like_the_plain_commands(tokenizer, env_server, task):
    url, stats = env_server()
    commands = solve(task)
    last = plain_http_episode(url, task, commands)
    assert last["done"] is True and last["reward"] == 1.0
    # the same commands written the way AgentGym's TextCraft prompt asks, through the generic adapter
    replies = [f"Thought:\nThe next step towards the goal.\n\nAction:\n{command}" for command in commands]
    env = {"url": url, "adapter": "generic", "max_turns": 30, "instructions": BELOW_ACTION}
    output = play(tokenizer, ScriptedPolicy(tokenizer, replies), env, task=task)
    extra = output.extra_fields
    assert extra["env_success"] == 1.0 and extra["env_reward"] == 1.0 and extra["env_error"] == ""
    assert extra["env_turns"] == len(commands)  # no step was spent on a command the server could not read
    assert stats()["steps"] == 2 * len(commands) and stats()["open"] == 0


def test_the_policy_reads_each_observation_as_its_chat_template_renders_a_user_turn(tokenizer, env_server):
    """On this verl (0.9.1 or main, whose agent loops tokenize through Continuous Token only): one system prompt, the
    task and the first observation in the prompt; every later observation, untrained, exactly as the tokenizer's chat
    template renders a user turn alone, followed by the generation prompt."""
    url, _ = env_server()
    output = play(tokenizer, ScriptedPolicy(tokenizer, solver(TASK)), {"url": url, "adapter": "textcraft"})
    observations = [m["content"] for m in json.loads(output.extra_fields["arena_messages"]) if m["role"] == "tool"]
    prompt = tokenizer.decode(output.prompt_ids)
    assert prompt.count("<|im_start|>system") == 1 and prompt.endswith(
        f"{observations[0]}<|im_end|>\n<|im_start|>assistant\n"
    )
    untrained = [tokenizer.decode(ids) for trained, ids in response_runs(output) if not trained]
    template = tokenizer.apply_chat_template
    user_turns = [
        template([{"role": "user", "content": o}], add_generation_prompt=True, tokenize=False) for o in observations
    ]
    assert untrained == user_turns[1 : len(untrained) + 1] and len(untrained) == len(solve(TASK)) - 1
