# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""TextCraft, played in process: every task solvable within the step limit, difficulty graded by recipe depth, tasks
by index, a reset that starts afresh, and the action read from a model's reply (played over HTTP:
``test_server.py``)."""

from __future__ import annotations

import re
from statistics import mean

import pytest

from verl_arena.environments.textcraft import (
    DISTRACTORS,
    MAX_GET,
    MAX_STEPS,
    RECIPES,
    TASKS,
    CraftingTask,
    TextCraft,
    item_depth,
    parse_action,
    solve,
    task_for,
)


def test_every_task_is_solvable_within_the_step_limit():
    assert len(TASKS) >= 36 and [t.index for t in TASKS] == list(range(len(TASKS)))
    for task in TASKS:
        game = TextCraft(task.index)
        actions = solve(task)
        assert len(actions) <= MAX_STEPS, task
        results = [game.step(action) for action in actions]
        assert all(r.reward == 0 and not r.done for r in results[:-1]), task
        assert results[-1].reward == 1.0 and results[-1].done, (task, results[-1])
        assert game.steps == len(actions) <= MAX_STEPS


def shown_recipes(observation: str) -> dict[str, list[str]]:
    """The recipes an observation lists, read as an agent would: ``{item: [its inputs]}``."""
    recipes = {}
    for line in observation.splitlines():
        match = re.fullmatch(r"craft \d+ (.+?) using (.+)", line)
        if match:
            recipes[match.group(1)] = [re.sub(r"^\d+ ", "", part.strip()) for part in match.group(2).split(",")]
    return recipes


def test_difficulty_grades_with_the_depth_of_the_recipes_shown():
    levels = {}
    for task in TASKS:
        recipes = shown_recipes(TextCraft(task.index).observation)

        def depth(item, recipes=recipes):
            return 0 if item not in recipes else 1 + max(depth(i) for i in recipes[item])

        assert depth(task.goal) == task.difficulty, task  # the observation shows every recipe the goal needs
        levels.setdefault(task.difficulty, []).append(task)
    assert sorted(levels) == [1, 2, 3, 4] and all(len(tasks) >= 9 for tasks in levels.values())
    assert [t.difficulty for t in TASKS] == sorted(t.difficulty for t in TASKS)  # data_idx buckets by level
    work = [mean(len(solve(t)) for t in levels[level]) for level in sorted(levels)]
    assert work == sorted(work) and work[-1] > 2 * work[0]  # deeper goals take more steps


def test_parse_action_takes_the_last_action_line():
    assert parse_action("Thought: planks first.\nAction: get 1 pine log") == "get 1 pine log"
    assert parse_action("Action: inventory\nThought: no.\n  action:  craft 4 stick using 2 pine plank  \nok") == (
        "craft 4 stick using 2 pine plank"
    )
    assert parse_action("  get 2 sand \n") == "get 2 sand"
    assert parse_action("I would say Action: get 1 x") == "I would say Action: get 1 x"  # not at a line's start


def test_parse_action_reads_the_command_below_an_action_line_as_agentgym_asks():
    # AgentGym's TextCraft prompt asks for "Thought:\nyour thoughts.\n\nAction:\nyour next action"
    assert parse_action("Thought:\nI need a log first.\n\nAction:\nget 1 pine log") == "get 1 pine log"
    assert parse_action("Thought:\nfine.\nAction:\n\n   craft 4 pine plank using 1 pine log  \nDone.") == (
        "craft 4 pine plank using 1 pine log"
    )
    assert parse_action("Action:\nget 1 sand\nThought: no, coal.\nAction:\nget 1 coal") == "get 1 coal"  # the last
    assert parse_action("Thought: nothing to do.\nAction:") == parse_action("Action:\n\n") == ""


def test_a_task_is_found_by_its_index_which_wraps_and_is_never_negative():
    assert task_for(3) is TASKS[3] and task_for(3 + len(TASKS)) is TASKS[3]
    with pytest.raises(ValueError, match="data_idx must be >= 0, got -1"):
        task_for(-1)
    with pytest.raises(ValueError, match="data_idx must be >= 0"):
        TextCraft(-1)
    assert solve(3) == solve(TASKS[3])


def test_a_task_shows_its_recipes_and_a_few_others_always_alike():
    task = task_for(27)
    shown = task.recipes()
    assert shown == task.recipes() and len({r.output for r in shown}) == len(shown)  # the same each time, no repeats
    crafted = {a.split(" ", 2)[2].split(" using ")[0] for a in solve(task) if a.startswith("craft")}
    assert crafted < {r.output for r in shown} and len(shown) == len(crafted) + DISTRACTORS
    assert item_depth("pine log") == 0 and item_depth(task.goal) == task.difficulty


def test_a_recipe_runs_in_batches_and_solving_gathers_at_most_the_limit_at_a_time():
    assert RECIPES["pine plank"].command(2) == "craft 8 pine plank using 2 pine log"
    many = CraftingTask(index=99, goal="pine plank", count=400)  # 100 logs: more than one get can hand out
    assert solve(many) == [f"get {MAX_GET} pine log", "get 36 pine log", "craft 400 pine plank using 100 pine log"]


def test_a_reset_starts_the_new_task_afresh_and_a_shorter_game_ends_sooner():
    game = TextCraft(0, max_steps=3)
    assert game.step("get 2 pine log").observation == "Got 2 pine log." and game.steps == 1
    first = game.reset(10)
    assert first == game.observation and f"Goal: craft {TASKS[10].count} {TASKS[10].goal}." in first
    assert (game.steps, game.done, game.reward, dict(game.inventory)) == (0, False, 0.0, {})
    assert "You have 3 steps." in first and MAX_STEPS == 30
    results = [game.step("inventory") for _ in range(3)]
    assert [r.done for r in results] == [False, False, True] and results[-1].reward == 0.0
    assert game.step("inventory").observation.startswith("The episode is over") and game.steps == 3
