# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""A stand-in point-of-interest search for the travel examples, as a verl function tool.

Use it with ``actor_rollout_ref.rollout.multi_turn.function_tool_path=examples/travel_tools.py`` and the
``arena_tool_agent`` loop (``recipes/cpu_smoke.sh`` does with ``AGENT=arena_tool_agent``). It answers from a small
table, so runs are repeatable and need no network.
"""

from verl.tools.function_tool import function_tool

_PLACES = {
    "kiyomizu": "Kiyomizu-dera: opens 6:00, 400 yen, 15 min walk from bus stop Gojozaka.",
    "fushimi": "Fushimi Inari: open all day, free, JR Nara line 5 min from Kyoto Station.",
    "panda": "Chengdu panda base: opens 7:30, 55 yuan, best before 10:00.",
    "orsay": "Musee d'Orsay: opens 9:30, 16 EUR, closed Mondays.",
}


@function_tool
def search_poi(query: str) -> str:
    """Look up opening hours, prices and access of a place to visit.

    Args:
        query: the place, e.g. "Fushimi Inari".
    """
    key = next((k for k in _PLACES if k in query.lower()), None)
    return _PLACES[key] if key else f"No information about {query!r}."
