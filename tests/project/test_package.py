# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The public surface and the layering rules."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import verl_arena
import verl_arena.core

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("module", [verl_arena, verl_arena.core])
def test_all_is_unique_and_importable(module):
    # the order is ruff's (RUF022), checked by test_ruff_is_clean
    assert len(set(module.__all__)) == len(module.__all__)
    for name in module.__all__:
        assert hasattr(module, name), name


def test_public_contract_names():
    for name in ("Candidate", "PairVerdict", "JudgeError", "GroupResult", "rank_group"):
        assert name in verl_arena.__all__
    c = verl_arena.Candidate(id="a", answer="x")
    assert (c.path, dict(c.meta)) == ("", {})
    other = verl_arena.Candidate(id="a", answer="x", meta={"k": [1]})
    assert hash(c) == hash(other) and len({c, other}) == 2  # hashable although meta is a dict; meta still compared
    assert verl_arena.PairVerdict(score_a=1.0, score_b=2.0).winner == "b"


def imported_modules(path: Path, depth: int = 1) -> set[str]:
    """Modules ``path`` imports, cut to their first ``depth`` dotted parts."""
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(".".join(alias.name.split(".")[:depth]) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(".".join(node.module.split(".")[:depth]))
    return names


#: layer -> what it may not import (third-party packages, and verl-arena's layers above it)
LAYERS = {
    "core": {"verl", "ray", "httpx", "torch", "tenacity", "requests", "aiohttp"}
    | {"verl_arena.judges", "verl_arena.runtime", "verl_arena.integrations", "verl_arena.testing", "verl_arena.bench"},
    "judges": {"verl", "ray", "torch"} | {"verl_arena.runtime", "verl_arena.integrations", "verl_arena.testing"},
    "testing": {"verl", "ray", "torch"} | {"verl_arena.runtime", "verl_arena.integrations"},
    "outcomes": {"verl", "ray", "torch", "httpx"}
    | {"verl_arena.judges", "verl_arena.runtime", "verl_arena.integrations", "verl_arena.testing"},
    "runtime": {"verl", "torch"} | {"verl_arena.integrations", "verl_arena.testing"},
    "evaluation": {"verl", "ray", "torch"} | {"verl_arena.runtime", "verl_arena.integrations", "verl_arena.testing"},
    "offline": {"verl", "ray", "torch"} | {"verl_arena.integrations", "verl_arena.testing", "verl_arena.evaluation"},
}


@pytest.mark.parametrize("layer", sorted(LAYERS))
def test_imports_only_point_downwards(layer):
    for path in (ROOT / "verl_arena" / layer).rglob("*.py"):
        imported = imported_modules(path) | imported_modules(path, depth=2)
        forbidden = imported & LAYERS[layer]
        assert not forbidden, f"{path.relative_to(ROOT)} imports {forbidden}"


def test_only_the_integrations_import_verl():
    for path in (ROOT / "verl_arena").rglob("*.py"):
        if "integrations" in path.parts:
            continue
        assert "verl" not in imported_modules(path), f"{path.relative_to(ROOT)} imports verl"


def test_no_print_in_library_code():
    for path in (ROOT / "verl_arena").rglob("*.py"):
        if path.name == "cli.py" or "commands" in path.parts:  # the command line prints; nothing else does
            continue
        calls = [
            n for n in ast.walk(ast.parse(path.read_text()))
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "print"
        ]  # fmt: skip
        assert not calls, f"{path.relative_to(ROOT)} prints"


def test_no_module_is_over_400_lines():
    for path in (ROOT / "verl_arena").rglob("*.py"):
        lines = len(path.read_text().splitlines())
        assert lines <= 400, f"{path.relative_to(ROOT)} has {lines} lines"


def test_ruff_is_clean():
    beside = Path(sys.executable).with_name("ruff")
    ruff = str(beside) if beside.exists() else shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is not installed (pip install -e '.[test]')")
    done = subprocess.run([ruff, "check", str(ROOT)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    done = subprocess.run([ruff, "format", "--check", str(ROOT)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_rendezvous_and_the_service_need_no_ray():
    ray_modules = {"actors.py", "pool.py"}  # the Ray side of the runtime, and nothing else
    for path in (ROOT / "verl_arena" / "runtime").glob("*.py"):
        if path.name not in ray_modules:
            assert "ray" not in imported_modules(path), f"{path.relative_to(ROOT)} imports ray"
