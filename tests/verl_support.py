# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""What the verl tests need and no hub can give here: a tiny tokenizer with a tool-calling chat template (the one
``verl-arena tiny-model`` builds), and verl's own trainer config composed with overrides."""

from __future__ import annotations

import os
from collections.abc import Sequence

from verl_arena.integrations.verl.cpu.tiny_model import build_tokenizer

__all__ = ["build_tokenizer", "verl_config"]


def verl_config(overrides: Sequence[str] = ()):
    """verl's ``ppo_trainer`` config composed with Hydra, as ``python -m verl.trainer.main_ppo ...`` would."""
    import verl
    from hydra import compose, initialize_config_dir

    config_dir = os.path.join(os.path.dirname(verl.__file__), "trainer", "config")
    with initialize_config_dir(config_dir=config_dir, version_base=None):
        return compose(config_name="ppo_trainer", overrides=list(overrides))
