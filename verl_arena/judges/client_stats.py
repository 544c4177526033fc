# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""What the HTTP client counts: requests answered and sent, attempts, retries, failures by reason, tokens and
latencies."""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Sequence
from dataclasses import dataclass, field

__all__ = ["ClientStats", "percentile"]


@dataclass
class ClientStats:
    """The client's counters since it was created: ``requests`` answered, ``sent`` to the judge (answered or failed,
    retries and liveness pings included: what the judge server counts; counted once over), ``in_flight`` (sent and
    not over yet), ``attempts`` made (sent or not); ``unreported`` requests sent whose reply never came (a timeout, a
    connection lost, a caller that gave up), whose prompt tokens are estimated (``estimated_prompt_tokens``, apart
    from the tokens the server reported)."""

    requests: int = 0
    sent: int = 0
    in_flight: int = 0
    unreported: int = 0
    estimated_prompt_tokens: int = 0
    attempts: int = 0
    retries: int = 0
    failures: Counter[str] = field(default_factory=Counter)
    attempt_errors: Counter[str] = field(default_factory=Counter)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    reasoning_tokens: int = 0
    latencies: deque[float] = field(default_factory=lambda: deque(maxlen=20_000))

    def count(self, usage: dict[str, int], latency: float) -> None:
        self.requests += 1
        self.prompt_tokens += usage["prompt_tokens"]
        self.completion_tokens += usage["completion_tokens"]
        self.cached_tokens += usage["cached_tokens"]
        self.reasoning_tokens += usage["reasoning_tokens"]
        self.latencies.append(latency)


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile of ``values`` (0 for none)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]
