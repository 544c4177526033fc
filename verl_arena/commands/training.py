# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena prepare``, ``tiny-model`` and ``doctor``: data, an offline model and checks for training with verl."""

from __future__ import annotations

import argparse
import sys
from typing import Any

__all__ = ["register"]


def _prepare(args: argparse.Namespace) -> int:
    from verl_arena.core.errors import ConfigError
    from verl_arena.integrations.verl.prepare import prepare

    defaults = {k: v for k, v in {"system": args.system, "domain": args.domain, "agent": args.agent}.items() if v}
    try:
        done = prepare(
            args.tasks, args.output, val_tasks=args.val, val_fraction=args.val_fraction, seed=args.seed, **defaults
        )
    except (ConfigError, OSError) as exc:
        print(f"verl-arena prepare: {exc}", file=sys.stderr)
        return 2
    print(f"{done.train} ({done.train_rows} tasks), {done.val} ({done.val_rows} tasks)")
    print(f"train with: data.train_files={done.train} data.val_files={done.val} data.return_raw_chat=True")
    return 0


def _tiny_model(args: argparse.Namespace) -> int:
    from verl_arena.integrations.verl.cpu.tiny_model import build_tiny_model

    path = build_tiny_model(
        args.output, hidden_size=args.hidden_size, layers=args.layers, seed=args.seed, context=args.context
    )
    if args.lexical_judge:
        from verl_arena.integrations.verl.cpu.chat_server import LEXICAL_MARKER

        (path / LEXICAL_MARKER).write_text("a CPU reward-model replica answers with verl-arena's lexical mock judge\n")
    print(path)
    return 0


def _doctor(args: argparse.Namespace) -> int:
    from verl_arena.doctor import run_checks

    checks = run_checks(ray=args.ray, judge_config=args.judge_config)
    width = max(len(c.name) for c in checks)
    for c in checks:
        print(f"{'ok  ' if c.ok else 'FAIL'}  {c.name:<{width}}  {c.detail}")
    return 0 if all(c.ok for c in checks) else 1


def register(sub: Any) -> None:
    """Add ``prepare``, ``tiny-model`` and ``doctor`` to the command's sub-parsers."""
    prep = sub.add_parser(
        "prepare",
        help="turn a tasks file (JSONL) into the train/val parquet files verl reads",
        description="Each line: query, and optionally id, system, reference (text or chat messages), rubrics, domain, "
        "agent, tools_kwargs, split (train, or test/val/validation/eval). Writes OUTPUT/train.parquet and "
        "OUTPUT/val.parquet with the split marked where the arena reward manager looks for it.",
    )
    prep.add_argument("tasks", help="tasks file (JSONL)")
    prep.add_argument("-o", "--output", required=True, help="output directory")
    prep.add_argument("--val", help="a second tasks file, all of it validation")
    prep.add_argument("--val-fraction", type=float, default=0.0, help="share of tasks without a split for validation")
    prep.add_argument("--seed", type=int, default=0)
    prep.add_argument("--system", help="system prompt for tasks without their own")
    prep.add_argument("--domain", help="data_source for tasks without their own (arena)")
    prep.add_argument("--agent", help="agent loop for tasks without their own, e.g. arena_tool_agent")
    prep.set_defaults(func=_prepare)

    tiny = sub.add_parser(
        "tiny-model",
        help="build a tiny random Qwen2 and its tokenizer offline (for CPU smoke runs of verl's trainer)",
        description="A byte-level BPE tokenizer with a ChatML/tool-call chat template and a two-layer random Qwen2, "
        "written with save_pretrained to OUTPUT. No download.",
    )
    tiny.add_argument("output")
    tiny.add_argument("--hidden-size", type=int, default=64)
    tiny.add_argument("--layers", type=int, default=2)
    tiny.add_argument("--seed", type=int, default=0)
    tiny.add_argument("--context", type=int, default=2048, help="the model's context window (max_position_embeddings)")
    tiny.add_argument(
        "--lexical-judge",
        action="store_true",
        help="mark the model so that, served as verl's reward model on the CPU, it answers with the lexical mock judge",
    )
    tiny.set_defaults(func=_tiny_model)

    doctor = sub.add_parser(
        "doctor",
        help="check that verl finds the plugin (and optionally Ray and a judge configuration)",
        description="Import verl in a fresh interpreter and check that the tournament estimator, the arena reward "
        "manager and the arena agent loops are registered; optionally inside a Ray worker and against a judge "
        "configuration (keys set, endpoints answering). Exits 1 if a check fails.",
    )
    doctor.add_argument("--ray", action="store_true", help="also check inside a Ray worker")
    doctor.add_argument("--judge-config", help="also check this judge configuration (YAML)")
    doctor.set_defaults(func=_doctor)
