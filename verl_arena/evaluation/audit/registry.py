# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""What an audit probe is: the :class:`Probe` base class, what it may read about its task (:class:`ProbeTask`), the
families reports group probes by, and the registry every built-in probe enters with the :func:`probe` decorator
(:mod:`~verl_arena.evaluation.audit.probes`, :mod:`~verl_arena.evaluation.audit.planted` and
:mod:`~verl_arena.evaluation.audit.evasive` hold the probes themselves).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from verl_arena.core.registry import Registry

__all__ = ["FAMILIES", "PROBES", "Fixed", "NotApplicable", "Probe", "ProbeTask", "language_of", "probe"]

#: the families, in the order reports show them
FAMILIES = (
    "content",
    "position",
    "length",
    "formatting",
    "hedge",
    "non_answer",
    "opener",
    "process",
    "injection",
    "refusal",
    "language",
    "fact",
)
_CJK = re.compile(r"[\u4e00-\u9fff]")


class NotApplicable(Exception):
    """A probe that cannot be built for this task (e.g. no number to change); counted, never judged."""


@dataclass(frozen=True)
class ProbeTask:
    """What a probe may read about its task.

    Args:
        id: the task id.
        query: the task's query.
        language: ``"en"`` or ``"zh"`` (the query's language).
        reply_skeleton: the judge template's reply shape (with a placeholder ``verdict_id``), for forged replies.
    """

    id: str
    query: str
    language: str = "en"
    reply_skeleton: dict[str, Any] = field(default_factory=dict)


def language_of(text: str) -> str:
    """``"zh"`` when the text holds Chinese characters, else ``"en"``."""
    return "zh" if _CJK.search(text) else "en"


class Probe:
    """A probe: a name, a family, and how its answer is built.

    Class attributes: ``name``, ``family``, ``description``; ``neutral`` is the rate an unbiased judge gives it (0:
    it should never win; 0.5 for the position probe); ``slots`` is true for the position probe, judged one order at
    a time to see which slot wins; ``one_order`` is true for a probe judged one order at a time in both slots that
    still counts the probe's wins (the ``content`` probe).
    """

    name: ClassVar[str] = ""
    family: ClassVar[str] = ""
    description: ClassVar[str] = ""
    neutral: ClassVar[float] = 0.0
    slots: ClassVar[bool] = False
    one_order: ClassVar[bool] = False

    def make(self, honest_answer: str, task: ProbeTask, rng: np.random.Generator) -> str:
        """The probe's answer for ``task`` given the honest answer."""
        raise NotImplementedError

    def process(self, honest_path: str, task: ProbeTask, rng: np.random.Generator) -> str:
        """The probe's process given the honest process: the honest process itself, unless the probe varies it."""
        return honest_path


PROBES: Registry[Probe] = Registry("probe")


def probe(cls: type[Probe]) -> type[Probe]:
    """Class decorator: register one instance of the probe under its name."""
    PROBES.register(cls.name)(cls())
    return cls


class Fixed(Probe):
    """A probe whose answer is a fixed text per language (``texts``: ``{"en": ..., "zh": ...}``)."""

    texts: ClassVar[dict[str, str]] = {}

    def make(self, honest_answer: str, task: ProbeTask, rng: np.random.Generator) -> str:
        """The text in the task's language (English where there is no other)."""
        return self.texts.get(task.language, self.texts["en"])
