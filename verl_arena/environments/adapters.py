# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""How to talk to one kind of environment server: the adapters registry (``env.adapter``) and the adapter of each game.

An adapter holds what differs between servers of the AgentGym protocol beyond the answer shapes the client reads
anyway (:class:`~verl_arena.environments.client.EnvClient`): the route prefix, the instructions the model gets, how an
action is read from the model's reply, and the harmless action of a control episode. ``generic`` is configured
entirely by ``env.*`` options; ``textcraft`` is the bundled game's (:mod:`~verl_arena.environments.textcraft`).
Register your own with :func:`register_adapter`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from verl_arena.core.registry import Registry
from verl_arena.environments.textcraft import parse_action

__all__ = ["ADAPTERS", "EnvAdapter", "last_action", "register_adapter"]

#: the action in a model's reply: after its last ``Action:``, on that line or the next, else the whole reply stripped
last_action = parse_action


@dataclass(frozen=True)
class EnvAdapter:
    """How to talk to one kind of server.

    Args:
        prefix: the route prefix.
        instructions: the system message telling the model how to act.
        parse_action: the action in a model's reply.
        control_action: a harmless action for the control episode that tells an agent's failure from the
            environment's (``None``: the control only opens an episode and starts its task).
    """

    prefix: str = ""
    instructions: str = (
        "You act in an interactive environment. Each turn, think briefly, then end your reply with one line "
        "'Action: <your action>'. The environment answers with what happened."
    )
    parse_action: Callable[[str], str] = last_action
    control_action: str | None = None


#: adapters by name
ADAPTERS: Registry[EnvAdapter] = Registry("environment adapter")


def register_adapter(name: str, adapter: EnvAdapter) -> None:
    """Make ``adapter`` available as ``env.adapter: name`` (``ValueError`` for a name taken by another adapter)."""
    ADAPTERS.register(name)(adapter)


register_adapter("generic", EnvAdapter())
register_adapter(
    "textcraft",
    EnvAdapter(
        instructions=(
            "You are crafting items in a text game. The task names the goal item and the recipes that may help. "
            "Commands: 'get N item' takes base items, 'craft N item using N a, N b' crafts from your inventory, "
            "'inventory' lists what you hold. Each turn, think briefly, then end your reply with one line "
            "'Action: <command>'."
        ),
        control_action="inventory",
    ),
)
