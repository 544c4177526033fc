# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""TextCraft, a small deterministic crafting game played with text commands.

A workshop has base materials that are gathered (``get 2 pine log``) and items crafted from others by recipes
(``craft 4 pine plank using 1 pine log``). A task (picked by ``data_idx``) asks for a goal item; the first
observation states the goal and the recipes it needs, mixed with a few that it does not. The episode ends with reward
1 when the goal is in the inventory, or with reward 0 after :data:`MAX_STEPS` commands. Tasks come in four difficulty
levels: a level-``d`` goal is ``d`` crafting steps deep (its longest chain of recipes from base materials).
"""

from __future__ import annotations

import difflib
import math
import random
import re
from collections import Counter
from dataclasses import dataclass
from functools import cache

__all__ = [
    "MAX_GET",
    "MAX_STEPS",
    "RECIPES",
    "TASKS",
    "CraftingTask",
    "Recipe",
    "StepResult",
    "TextCraft",
    "item_depth",
    "parse_action",
    "solve",
    "task_for",
]

#: commands an episode may take before it ends unsolved
MAX_STEPS = 30
#: the most of one item a single ``get`` hands out
MAX_GET = 64
#: recipes shown beside the needed ones in every task
DISTRACTORS = 3

_ACTIONS = "get N ITEM | craft N ITEM using N A, N B | inventory"
_AMOUNT = re.compile(r"^(?:(\d+)\s+)?([a-z][a-z' -]*)$")
_CRAFT = re.compile(r"^craft\s+(.+?)\s+using\s+(.+)$")


@dataclass(frozen=True)
class Recipe:
    """``count`` of ``output`` made from ``inputs`` (``(item, amount)`` pairs)."""

    output: str
    count: int
    inputs: tuple[tuple[str, int], ...]

    def command(self, batches: int = 1) -> str:
        """The ``craft`` command that runs this recipe ``batches`` times."""
        using = ", ".join(f"{amount * batches} {item}" for item, amount in self.inputs)
        return f"craft {self.count * batches} {self.output} using {using}"


def _amount(text: str) -> tuple[int, str]:
    """``"2 pine log"`` -> ``(2, "pine log")``; the number may be left out (1). Raises ``ValueError``."""
    match = _AMOUNT.match(text.strip())
    if match is None:
        raise ValueError(f"'{text.strip()}' is not an amount and an item name (for example: 2 pine log)")
    return int(match.group(1) or 1), " ".join(match.group(2).split())


def _recipe(line: str) -> Recipe:
    match = _CRAFT.match(line)
    assert match is not None, line
    count, output = _amount(match.group(1))
    inputs = tuple((item, amount) for amount, item in (_amount(part) for part in match.group(2).split(",")))
    return Recipe(output, count, inputs)


_BOOK = """
craft 4 pine plank using 1 pine log
craft 4 birch plank using 1 birch log
craft 1 iron ingot using 1 iron ore, 1 coal
craft 1 copper ingot using 1 copper ore, 1 coal
craft 2 linen thread using 3 flax
craft 2 brick using 2 clay, 1 coal
craft 2 glass pane using 3 sand, 1 coal
craft 1 glue using 2 resin
craft 1 felt using 2 wool
craft 3 paper using 3 reed
craft 1 candle using 2 wax, 1 flax
craft 4 stone brick using 4 stone
craft 1 quill using 1 feather, 1 resin
craft 4 stick using 2 pine plank
craft 8 iron nail using 1 iron ingot
craft 3 copper wire using 1 copper ingot
craft 1 rope using 3 linen thread
craft 1 cloth using 4 linen thread
craft 1 wooden bowl using 3 birch plank
craft 1 brick wall using 4 brick
craft 1 notebook using 4 paper, 1 glue
craft 1 felt hat using 3 felt, 1 linen thread
craft 1 iron plate using 2 iron ingot
craft 1 window using 2 glass pane, 2 birch plank
craft 1 stone oven using 8 stone brick, 1 coal
craft 1 writing set using 1 quill, 3 paper
craft 1 hammer using 1 iron ingot, 2 stick
craft 4 torch using 1 stick, 1 coal, 1 resin
craft 1 ladder using 7 stick
craft 1 fishing rod using 3 stick, 2 linen thread
craft 1 wooden crate using 6 pine plank, 4 iron nail
craft 1 sail using 3 cloth, 1 rope
craft 1 coil using 4 copper wire, 1 stick
craft 1 bookshelf using 6 birch plank, 3 notebook
craft 1 compass using 1 copper wire, 1 iron nail, 1 glass pane
craft 1 chair using 4 stick, 3 pine plank
craft 1 shield using 1 iron plate, 4 birch plank, 1 felt
craft 1 bucket using 3 iron plate
craft 1 lantern using 1 glass pane, 2 iron nail, 1 torch, 1 candle
craft 1 toolbox using 1 wooden crate, 1 hammer
craft 1 sailboat using 1 sail, 8 pine plank, 2 rope
craft 1 radio using 2 coil, 1 wooden crate
craft 1 fishing kit using 1 fishing rod, 1 wooden bowl, 1 bucket
craft 1 reading nook using 1 bookshelf, 1 chair, 1 candle
craft 1 garden shed using 2 brick wall, 1 window, 1 ladder
craft 1 explorer pack using 1 compass, 1 rope, 1 torch
craft 1 knight kit using 1 shield, 1 hammer
craft 1 well using 1 bucket, 2 rope, 6 stone brick
craft 1 study desk using 1 bookshelf, 1 writing set, 4 pine plank
"""

#: every recipe, by the item it makes (one recipe per item)
RECIPES: dict[str, Recipe] = {r.output: r for r in map(_recipe, _BOOK.strip().splitlines())}
_BASE = sorted({item for r in RECIPES.values() for item, _ in r.inputs} - set(RECIPES))
_ITEMS = sorted(set(_BASE) | set(RECIPES))


@cache
def item_depth(item: str) -> int:
    """Crafting steps between ``item`` and base materials: 0 for a base material, else 1 + its deepest input."""
    recipe = RECIPES.get(item)
    return 0 if recipe is None else 1 + max(item_depth(i) for i, _ in recipe.inputs)


def _tree(item: str) -> list[str]:
    """The crafted items ``item`` needs (itself included), each once."""
    seen: dict[str, None] = {}
    stack = [item]
    while stack:
        name = stack.pop()
        if name in RECIPES and name not in seen:
            seen[name] = None
            stack.extend(i for i, _ in RECIPES[name].inputs)
    return list(seen)


@dataclass(frozen=True)
class CraftingTask:
    """Make ``count`` of ``goal``; ``difficulty`` is the goal's crafting depth (1 to 4)."""

    index: int
    goal: str
    count: int

    @property
    def difficulty(self) -> int:
        """How many crafting steps deep the goal is."""
        return item_depth(self.goal)

    def recipes(self) -> list[Recipe]:
        """The recipes the first observation shows: the needed ones and :data:`DISTRACTORS` others, shuffled."""
        needed = _tree(self.goal)
        rng = random.Random(7919 * (self.index + 1))
        others = rng.sample(sorted(set(RECIPES) - set(needed)), DISTRACTORS)
        shown = [RECIPES[name] for name in sorted(needed) + others]
        rng.shuffle(shown)
        return shown


_GOALS = (
    "4 pine plank, 8 birch plank, 1 iron ingot, 2 copper ingot, 2 linen thread, 2 brick, 4 glass pane, 1 glue, "
    "1 felt, 1 candle",
    "4 stick, 8 iron nail, 3 copper wire, 1 rope, 1 cloth, 1 wooden bowl, 1 brick wall, 1 notebook, 1 felt hat, "
    "1 window",
    "1 hammer, 4 torch, 1 ladder, 1 fishing rod, 1 wooden crate, 1 sail, 1 coil, 1 bookshelf, 1 compass, 1 chair",
    "1 lantern, 1 toolbox, 1 sailboat, 1 radio, 1 fishing kit, 1 reading nook, 1 garden shed, 1 explorer pack, "
    "1 knight kit, 1 well",
)
#: the tasks, ``data_idx`` 0-9 at difficulty 1, 10-19 at 2, 20-29 at 3 and 30-39 at 4
TASKS: tuple[CraftingTask, ...] = tuple(
    CraftingTask(index, goal, count)
    for index, (count, goal) in enumerate(_amount(part) for level in _GOALS for part in level.split(","))
)


def task_for(data_idx: int) -> CraftingTask:
    """The task of ``data_idx``: indices past the last task wrap around (``data_idx % len(TASKS)``)."""
    if data_idx < 0:
        raise ValueError(f"data_idx must be >= 0, got {data_idx}")
    return TASKS[data_idx % len(TASKS)]


def parse_action(text: str) -> str:
    """The command in a model's reply: what follows the last line starting with ``Action:``, else the whole text.

    The command may stand on that line (``"Thought: I need planks.\\nAction: get 1 pine log"``) or, as AgentGym's
    TextCraft prompt asks for it, on the next line that is not blank (``"Thought:\\nI need planks.\\n\\nAction:\\nget 1
    pine log"``); both give ``"get 1 pine log"``. The prefix is matched case-insensitively after leading whitespace;
    the result is stripped, and an ``Action:`` line with nothing after it, on it or below, gives ``""``.
    """
    lines = [line.strip() for line in text.splitlines()]
    for index in range(len(lines) - 1, -1, -1):
        if lines[index][:7].lower() == "action:":
            below = [line for line in lines[index + 1 :] if line]
            return lines[index][7:].strip() or (below[0] if below else "")
    return text.strip()


def solve(task: CraftingTask | int) -> list[str]:
    """Commands that complete ``task`` (or the task of a ``data_idx``): gather every material, then craft upwards."""
    task = task if isinstance(task, CraftingTask) else task_for(task)
    needed: Counter[str] = Counter({task.goal: task.count})
    batches: dict[str, int] = {}
    for item in sorted(_tree(task.goal), key=lambda name: (-item_depth(name), name)):  # every user before its inputs
        recipe = RECIPES[item]
        batches[item] = math.ceil(needed[item] / recipe.count)
        for name, amount in recipe.inputs:
            needed[name] += amount * batches[item]
    commands = []
    for item in sorted(set(needed) - set(RECIPES)):
        for start in range(0, needed[item], MAX_GET):
            commands.append(f"get {min(MAX_GET, needed[item] - start)} {item}")
    for item in sorted(batches, key=lambda name: (item_depth(name), name)):
        commands.append(RECIPES[item].command(batches[item]))
    return commands


@dataclass(frozen=True)
class StepResult:
    """What a step returns to the agent."""

    observation: str
    reward: float
    done: bool


class TextCraft:
    """One episode of TextCraft; :meth:`reset` picks a task, :meth:`step` runs one command."""

    def __init__(self, data_idx: int = 0, max_steps: int = MAX_STEPS) -> None:
        self.max_steps = max_steps
        self.reset(data_idx)

    def reset(self, data_idx: int) -> str:
        """Start task ``data_idx`` with an empty inventory; returns the first observation."""
        self.task = task_for(data_idx)
        self.inventory: Counter[str] = Counter()
        self.steps = 0
        self.reward = 0.0
        self.done = False
        recipes = "\n".join(r.command() for r in self.task.recipes())
        self.observation = (
            f"You are in a workshop. Goal: craft {self.task.count} {self.task.goal}.\n\n"
            f"Crafting commands (not all of them are needed):\n{recipes}\n\n"
            "Materials that no recipe makes are gathered with get, for example: get 2 pine log.\n"
            f"Actions, one per turn: {_ACTIONS}. You have {self.max_steps} steps."
        )
        return self.observation

    def step(self, action: str) -> StepResult:
        """Run one command; a command that cannot run costs a step and answers why, never raises."""
        if self.done:
            return StepResult("The episode is over; reset to play another task.", 0.0, True)
        self.steps += 1
        observation = self._run(action)
        if self.inventory[self.task.goal] >= self.task.count:
            self.done, self.reward = True, 1.0
            observation += f" You have {self.task.count} {self.task.goal}: task complete."
        elif self.steps >= self.max_steps:
            self.done, self.reward = True, 0.0
            observation += f" You have used all {self.max_steps} steps; the episode is over."
        self.observation = observation
        return StepResult(observation, self.reward, self.done)

    def _run(self, action: str) -> str:
        lines = [line for line in action.strip().splitlines() if line.strip()]
        if len(lines) > 1:
            return f"Send one command per step; got {len(lines)} lines. Actions: {_ACTIONS}."
        text = " ".join(action.lower().split())
        if not text:
            return f"Empty action. Actions: {_ACTIONS}."
        if text in ("inventory", "inv", "check inventory"):
            return self._show_inventory()
        try:
            if text.startswith("get "):
                return self._get(text[4:])
            if text.startswith("craft "):
                return self._craft(text)
        except ValueError as exc:
            reason = str(exc)
            return f"Could not run '{text}': {reason}" + ("" if reason.endswith(("?", ".")) else ".")
        hint = " Send only the command, without 'Action:'." if text.startswith("action:") else ""
        return f"Unknown command '{text}'.{hint} Actions: {_ACTIONS}."

    def _show_inventory(self) -> str:
        held = ", ".join(f"{n} {item}" for item, n in sorted(self.inventory.items()) if n > 0)
        return f"Inventory: {held or 'empty'}."

    def _get(self, text: str) -> str:
        amount, item = self._resolve(text)
        if item in RECIPES:
            raise ValueError(f"{item} is crafted, not gathered; its recipe: {RECIPES[item].command()}")
        if not 1 <= amount <= MAX_GET:
            raise ValueError(f"get takes 1 to {MAX_GET} at a time")
        self.inventory[item] += amount
        return f"Got {amount} {item}."

    def _craft(self, text: str) -> str:
        match = _CRAFT.match(text)
        if match is None:
            raise ValueError("write it as craft N ITEM using N A, N B")
        count, item = self._resolve(match.group(1))
        recipe = RECIPES.get(item)
        if recipe is None:
            raise ValueError(f"no recipe makes {item}; gather it with get")
        given: Counter[str] = Counter()
        for part in re.split(r",|\band\b", match.group(2)):
            if part.strip():
                amount, name = self._resolve(part)
                given[name] += amount
        batches, rest = divmod(count, recipe.count)
        if rest or not batches:
            raise ValueError(f"{item} is made {recipe.count} at a time; ask for a multiple of {recipe.count}")
        wanted = Counter({name: amount * batches for name, amount in recipe.inputs})
        if given != wanted:
            raise ValueError(f"the ingredients do not match the recipe of {item}: {recipe.command(batches)}")
        held = self.inventory
        short = [f"{n} {name} (you have {held[name]})" for name, n in wanted.items() if held[name] < n]
        if short:
            raise ValueError(f"not enough ingredients; it needs {', '.join(short)}")
        self.inventory -= wanted
        self.inventory[item] += count
        return f"Crafted {count} {item}."

    @staticmethod
    def _resolve(text: str) -> tuple[int, str]:
        """An amount and a known item name, forgiving plurals (``3 sticks``, ``2 torches``)."""
        amount, name = _amount(text)
        for candidate in (name, name[:-1] if name.endswith("s") else "", name[:-2] if name.endswith("es") else ""):
            if candidate in _ITEMS:
                return amount, candidate
        close = difflib.get_close_matches(name, _ITEMS, n=1)
        raise ValueError(f"there is no item called '{name}'" + (f"; did you mean {close[0]}?" if close else ""))
