# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""What every ``--json`` of the command prints: strict JSON, which any parser reads (an undefined number is ``null``,
never ``NaN`` or ``Infinity``), and nothing else on standard output (:func:`json_only_on_stdout`)."""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import json
import math
import sys
from collections.abc import Iterator, Mapping
from typing import Any, TextIO

__all__ = ["json_only_on_stdout", "print_json", "strict"]

#: where :func:`print_json` writes while :func:`json_only_on_stdout` holds standard output for it
_REPORT: contextvars.ContextVar[TextIO | None] = contextvars.ContextVar("report", default=None)


def strict(value: Any) -> Any:
    """``value`` with every non-finite float replaced by ``None`` (mappings, sequences and dataclasses throughout)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {k: strict(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [strict(v) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return strict(dataclasses.asdict(value))
    return value


def print_json(value: Any) -> None:
    """Print ``value`` as indented strict JSON."""
    print(json.dumps(strict(value), indent=1, ensure_ascii=False, allow_nan=False), file=_REPORT.get() or sys.stdout)


@contextlib.contextmanager
def json_only_on_stdout() -> Iterator[None]:
    """Keep standard output for :func:`print_json` in the enclosed code: whatever else is printed meanwhile goes to
    standard error (Ray prints a retried task's warning to the driver's stdout, which broke ``bench ... --json``)."""
    token = _REPORT.set(sys.stdout)
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        _REPORT.reset(token)
