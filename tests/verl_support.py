# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""What the verl tests need and no hub can give here: a tiny tokenizer with a tool-calling chat template (the one
``verl-arena tiny-model`` builds), and verl's own trainer config composed with overrides."""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

from verl_arena.integrations.verl.cpu.tiny_model import build_tokenizer

__all__ = ["BIN_PATH", "build_tokenizer", "printed_command", "printed_overrides", "verl_config"]


def verl_config(overrides: Sequence[str] = ()):
    """verl's ``ppo_trainer`` config composed with Hydra, as ``python -m verl.trainer.main_ppo ...`` would."""
    import verl
    from hydra import compose, initialize_config_dir

    config_dir = os.path.join(os.path.dirname(verl.__file__), "trainer", "config")
    with initialize_config_dir(config_dir=config_dir, version_base=None):
        return compose(config_name="ppo_trainer", overrides=list(overrides))


#: PATH for the recipes: this interpreter's ``verl-arena`` and ``python3`` first
BIN_PATH = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"


def printed_command(output: str) -> list[str]:
    """The words of the trainer command a recipe's dry run printed, read back as a shell reads the pasted text."""
    lines = output.splitlines()
    start = next(i for i, line in enumerate(lines) if "verl.trainer.main_ppo" in line)
    end = next(i for i in range(start, len(lines)) if not lines[i].endswith("\\"))
    return shlex.split(" ".join(line.removesuffix("\\") for line in lines[start : end + 1]))


def printed_overrides(output: str) -> list[str]:
    """The trainer overrides of the command a recipe's dry run printed."""
    words = printed_command(output)
    return words[words.index("verl.trainer.main_ppo") + 1 :]
