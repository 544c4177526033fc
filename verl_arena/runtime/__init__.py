# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The judge runtime: :class:`JudgeService` (plain asyncio) and the Ray :class:`JudgePool` that shares it.

``verl_arena.runtime.pool`` imports Ray; import it only where Ray is available.
"""

from verl_arena.runtime.service import JudgeService

__all__ = ["JudgeService"]
