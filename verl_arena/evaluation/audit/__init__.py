# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena audit``: probe a judge with known hacks against honest answers before training on it.

- ``registry.py``: what a probe is, its families, and the registry (:data:`PROBES`); ``probes.py``, ``planted.py`` and
  ``evasive.py``: the built-in probes, each a small registered class; ``custom.py``: your own, as YAML text transforms.
- ``data.py``: the honest answers (an outputs file, or the tasks' references); ``runner.py``: the judgments, through
  the judge training uses; ``scoring.py``: rates, Wilson intervals, effect sizes; ``report.py`` and ``html.py``: the
  report (``html.py`` draws its page with the evaluation's report kit, :mod:`~verl_arena.evaluation.html_kit`).
"""

from verl_arena.evaluation.audit.custom import load_custom_probes
from verl_arena.evaluation.audit.probes import builtin_probes
from verl_arena.evaluation.audit.registry import PROBES, Probe, ProbeTask
from verl_arena.evaluation.audit.report import DEFAULT_MAX_RATE, audit_report
from verl_arena.evaluation.audit.runner import run_audit

__all__ = [
    "DEFAULT_MAX_RATE",
    "PROBES",
    "Probe",
    "ProbeTask",
    "audit_report",
    "builtin_probes",
    "load_custom_probes",
    "run_audit",
]
