# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Travel-plan tasks whose answers can be checked, and the gold scorer that checks them (``bench learning``).

Each task asks for a day plan in a named city, starting at a named place and a given time, for travellers with two
interests, within a budget in the city's currency. Training and evaluation tasks come from disjoint cities, drawn
from a seeded generator, so the evaluation set is held out and the same in every run.

The gold scorer reads only the plan's text and the task's fields, and never asks a judge. It checks five properties,
each in [0, 1], and averages them:

- ``places``: the share of the task's named places (the city, the starting place) the plan mentions;
- ``interests``: the share of the task's two interests it mentions;
- ``times``: clock times given, up to three (``9:30``, ``14.00``, ``10 am``): ``min(count, 3) / 3``;
- ``order``: 1 when it gives two or more times, in order, none before the start time; else 0;
- ``budget``: 0.5 for naming amounts in the city's currency, 0.5 more when they sum to no more than the budget.

The training judge (the lexical mock judge) rewards covering the query's words, detail and structure; it computes
none of the order, start or budget checks, and knows no task field. The two overlap where the query's words are the
task's places and interests: a plan that names them scores on both.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

__all__ = ["CHECKS", "PlanTask", "gold_checks", "gold_score", "plan_tasks", "task_records"]

#: the gold scorer's checks, in the order they are reported
CHECKS = ("places", "interests", "times", "order", "budget")

#: (city, starting place, currency word) for training tasks
TRAIN_CITIES = (
    ("Kyoto", "Kyoto Station", "yen"),
    ("Paris", "Gare du Nord", "euros"),
    ("Rome", "Termini Station", "euros"),
    ("Berlin", "Alexanderplatz", "euros"),
    ("Madrid", "Puerta del Sol", "euros"),
    ("Vienna", "Stephansplatz", "euros"),
    ("Prague", "Old Town Square", "korunas"),
    ("Barcelona", "Placa Catalunya", "euros"),
    ("Amsterdam", "Centraal Station", "euros"),
    ("London", "King's Cross", "pounds"),
    ("Tokyo", "Shinjuku Station", "yen"),
    ("Seoul", "Seoul Station", "won"),
    ("Bangkok", "Hua Lamphong", "baht"),
    ("Istanbul", "Taksim Square", "lira"),
    ("Lisbon", "Rossio Square", "euros"),
    ("Dublin", "Trinity College", "euros"),
    ("Athens", "Syntagma Square", "euros"),
    ("Budapest", "Deak Square", "forints"),
    ("Munich", "Marienplatz", "euros"),
    ("New York", "Grand Central", "dollars"),
)
#: cities of the held-out evaluation tasks (none of them trains)
EVAL_CITIES = (
    ("Venice", "Santa Lucia Station", "euros"),
    ("Edinburgh", "Waverley Station", "pounds"),
    ("Copenhagen", "Nyhavn", "kroner"),
    ("Osaka", "Osaka Station", "yen"),
    ("Singapore", "Marina Bay", "dollars"),
    ("Boston", "South Station", "dollars"),
    ("Florence", "Santa Maria Novella", "euros"),
    ("Zurich", "Zurich HB", "francs"),
)
INTERESTS = (
    "temples",
    "museums",
    "markets",
    "parks",
    "coffee",
    "history",
    "architecture",
    "food",
    "art",
    "gardens",
    "music",
    "shopping",
)
TRAVELLERS = ("two friends", "a couple", "a family", "a student", "two colleagues")
#: a budget per person per day, by currency (the amount a task names is one of these times a small factor)
BUDGETS = {
    "yen": 12000,
    "euros": 120,
    "korunas": 2500,
    "pounds": 100,
    "won": 120000,
    "baht": 3000,
    "lira": 3000,
    "forints": 40000,
    "dollars": 150,
    "kroner": 900,
    "francs": 140,
}
#: how each currency may be written next to an amount
CURRENCY_WORDS = {
    "yen": ("yen", "jpy", "¥"),
    "euros": ("euros", "euro", "eur", "€"),
    "korunas": ("korunas", "koruna", "czk"),
    "pounds": ("pounds", "pound", "gbp", "£"),
    "won": ("won", "krw", "₩"),
    "baht": ("baht", "thb", "฿"),
    "lira": ("lira", "liras", "₺"),
    "forints": ("forints", "forint", "huf"),
    "dollars": ("dollars", "dollar", "usd", "$"),
    "kroner": ("kroner", "krone", "dkk", "kr"),
    "francs": ("francs", "franc", "chf"),
}
_CLOCK = re.compile(r"(?<![\d:.])([01]?\d|2[0-3])[:.]([0-5]\d)(?!\d)\s*(am|pm|a\.m\.|p\.m\.)?", re.I)
_HOUR = re.compile(r"(?<![\d:.])(1[0-2]|0?[1-9])\s*(am|pm|a\.m\.|p\.m\.)", re.I)
_NUMBER = r"(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"


@dataclass(frozen=True)
class PlanTask:
    """One task: what it asks, and the fields the gold scorer checks."""

    id: str
    split: str
    city: str
    start_place: str
    start_time: str
    currency: str
    budget: int
    travellers: str
    interests: tuple[str, str]

    @property
    def query(self) -> str:
        """The request the policy reads."""
        first, second = self.interests
        return (
            f"Plan a one-day trip in {self.city} for {self.travellers} who like {first} and {second}, starting at "
            f"{self.start_time} from {self.start_place}. Give a time for every stop and keep the total cost under "
            f"{self.budget:,} {self.currency}."
        )

    @property
    def start_minutes(self) -> int:
        """The start time in minutes after midnight."""
        hours, minutes = self.start_time.split(":")
        return int(hours) * 60 + int(minutes)


def plan_tasks(train: int, held_out: int, seed: int = 0) -> tuple[list[PlanTask], list[PlanTask]]:
    """``train`` training tasks and ``held_out`` evaluation tasks, from disjoint cities, drawn with ``seed``."""
    if train < 1 or held_out < 1:
        raise ValueError(f"train and held_out must be >= 1, got {train} and {held_out}")
    rng = np.random.default_rng(seed)
    return (
        [_task(rng, TRAIN_CITIES, "train", i) for i in range(train)],
        [_task(rng, EVAL_CITIES, "eval", i) for i in range(held_out)],
    )


def _task(rng: np.random.Generator, cities: Sequence[tuple[str, str, str]], split: str, index: int) -> PlanTask:
    city, place, currency = cities[index % len(cities)]
    first, second = (str(x) for x in rng.choice(INTERESTS, size=2, replace=False))
    hour, minute = int(rng.integers(7, 11)), int(rng.choice([0, 15, 30, 45]))
    budget = int(BUDGETS[currency] * rng.choice([1, 1.5, 2, 3]))
    travellers = str(rng.choice(TRAVELLERS))
    slug = city.lower().replace(" ", "-")
    return PlanTask(
        f"{split}-{index:03d}-{slug}",
        split,
        city,
        place,
        f"{hour}:{minute:02d}",
        currency,
        budget,
        travellers,
        (first, second),
    )


def task_records(tasks: Sequence[PlanTask]) -> list[dict[str, Any]]:
    """The tasks as lines of a task file for ``verl-arena prepare`` (domain ``travel``), each with its gold fields
    under ``plan``."""
    return [{"id": t.id, "query": t.query, "domain": "travel", "split": t.split, "plan": _fields(t)} for t in tasks]


def _fields(task: PlanTask) -> dict[str, Any]:
    fields = asdict(task)
    fields["interests"] = list(task.interests)
    return fields


def task_from_fields(fields: Mapping[str, Any]) -> PlanTask:
    """A :class:`PlanTask` from its ``plan`` fields (as :func:`task_records` writes them)."""
    return PlanTask(**{**fields, "interests": tuple(fields["interests"])})


def gold_checks(task: PlanTask, plan: str) -> dict[str, float]:
    """Each of :data:`CHECKS` for ``plan`` as an answer to ``task``, in [0, 1] (see the module docstring)."""
    text = plan.lower()
    places = [task.city, task.start_place]
    times = clock_times(plan)
    ordered = len(times) >= 2 and all(a <= b for a, b in itertools.pairwise(times)) and times[0] >= task.start_minutes
    amounts = currency_amounts(plan, task.currency)
    budget = 0.0 if not amounts else 0.5 + 0.5 * (sum(amounts) <= task.budget)
    return {
        "places": sum(p.lower() in text for p in places) / len(places),
        "interests": sum(_mentions(text, word) for word in task.interests) / len(task.interests),
        "times": min(len(times), 3) / 3,
        "order": float(ordered),
        "budget": budget,
    }


def gold_score(task: PlanTask, plan: str) -> float:
    """The mean of :func:`gold_checks`: the plan's gold score in [0, 1]."""
    checks = gold_checks(task, plan)
    return sum(checks.values()) / len(checks)


def _mentions(text: str, word: str) -> bool:
    """Whether ``text`` (lower-cased) names ``word`` or its singular (``museum`` for ``museums``)."""
    stem = word[:-1] if word.endswith("s") else word
    return re.search(rf"\b{re.escape(stem)}", text) is not None


def clock_times(text: str) -> list[int]:
    """The clock times ``text`` gives, in order of appearance, in minutes after midnight (``9:30``, ``14.00``,
    ``2:15 pm``, ``10 am``)."""
    found: list[tuple[int, int]] = []
    for match in _CLOCK.finditer(text):
        found.append((match.start(), _minutes(int(match.group(1)), int(match.group(2)), match.group(3))))
    for match in _HOUR.finditer(text):
        found.append((match.start(), _minutes(int(match.group(1)), 0, match.group(2))))
    return [minutes for _, minutes in sorted(found)]


def _minutes(hour: int, minute: int, half: str | None) -> int:
    if half and half.lower().startswith("p") and hour < 12:
        hour += 12
    elif half and half.lower().startswith("a") and hour == 12:
        hour = 0
    return hour * 60 + minute


def currency_amounts(text: str, currency: str) -> list[float]:
    """The amounts ``text`` gives in ``currency`` (a number before or after one of its words or symbols), in order."""
    words = "|".join(re.escape(w) for w in sorted(CURRENCY_WORDS[currency], key=len, reverse=True))
    after = re.compile(rf"{_NUMBER}\s*(?:{words})(?![a-z])", re.I)
    before = re.compile(rf"(?<![a-z])(?:{words})\s*{_NUMBER}", re.I)
    spans: dict[int, float] = {}
    for pattern in (after, before):
        for match in pattern.finditer(text):
            spans.setdefault(match.start(1), float(match.group(1).replace(",", "")))
    return [spans[start] for start in sorted(spans)]
