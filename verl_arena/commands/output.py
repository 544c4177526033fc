# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""What every ``--json`` of the command prints: strict JSON, which any parser reads (an undefined number is ``null``,
never ``NaN`` or ``Infinity``)."""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Mapping
from typing import Any

__all__ = ["print_json", "strict"]


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
    print(json.dumps(strict(value), indent=1, ensure_ascii=False, allow_nan=False))
