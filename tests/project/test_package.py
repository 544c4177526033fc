# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The public surface and the layering rules."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest
from helpers import ROOT

import verl_arena
import verl_arena.core


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


#: the rooms of the package from the ground up: a room imports only rooms below it (a folder, or a top-level module;
#: ``evaluation.audit`` is a room of its own above the rest of ``evaluation``). The package's ``__init__`` and
#: ``_version`` are no room: any room may use them.
ROOMS = (
    "core",
    "validation",
    "judges",
    "environments",
    "testing",
    "outcomes",
    "runtime",
    "offline",
    "evaluation",
    "evaluation.audit",
    "integrations",
    "slime",
    "bench",
    "reference",
    "commands",
    "cli",
)
#: rooms below a room that it must still not use: judges with known behaviour (``testing``) are for tests,
#: benchmarks and demos, never for the code that ranks or evaluates, and evaluating needs no judge runtime
UNUSED_BELOW = {
    "outcomes": {"testing"},
    "runtime": {"testing"},
    "offline": {"testing"},
    "evaluation": {"testing", "runtime"},
    "evaluation.audit": {"testing", "runtime"},
}
#: third-party packages a room may not import (verl only in integrations, checked below)
PACKAGES = {
    "core": {"ray", "httpx", "torch", "tenacity", "requests", "aiohttp"},
    "judges": {"ray", "torch"},
    "testing": {"ray", "torch"},
    "outcomes": {"ray", "torch", "httpx"},
    "runtime": {"torch"},
    "offline": {"ray", "torch"},
    "evaluation": {"ray", "torch"},
    "evaluation.audit": {"ray", "torch"},
}


def package_modules() -> dict[str, Path]:
    """Every module of the package by its dotted name (a package by its folder's)."""
    modules = {}
    for path in (ROOT / "verl_arena").rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return modules


def package_imports(path: Path, modules: Mapping[str, Path]) -> set[str]:
    """The package's modules ``path`` imports, wherever the import stands (in a function too): ``from a.b import c``
    imports the module ``a.b.c`` where there is one, else ``a.b`` (the package's ``__init__`` it runs on the way is
    not counted: every import would then lead through it)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                name = f"{node.module}.{alias.name}"
                names.add(name if name in modules else node.module)
    return {name for name in names if name in modules}


def room_of(module: str) -> str | None:
    """The room a module of the package stands in (``None``: the package's ``__init__`` and ``_version``)."""
    parts = module.split(".")[1:]
    if parts[:2] == ["evaluation", "audit"]:
        return "evaluation.audit"
    return parts[0] if parts and parts[0] in ROOMS else None


def test_every_module_stands_in_a_room():
    homeless = [m for m in package_modules() if room_of(m) is None and m not in ("verl_arena", "verl_arena._version")]
    assert not homeless, f"modules in no room of ROOMS: {homeless}"


@pytest.mark.parametrize("room", ROOMS)
def test_imports_only_point_downwards(room):
    modules = package_modules()
    below = set(ROOMS[: ROOMS.index(room)]) - UNUSED_BELOW.get(room, set())
    for module, path in modules.items():
        if room_of(module) != room:
            continue
        wrong = {m for m in package_imports(path, modules) if room_of(m) not in below | {room, None}}
        assert not wrong, f"{path.relative_to(ROOT)} (room {room}) imports {sorted(wrong)}"
        packages = imported_modules(path) & PACKAGES.get(room, set())
        assert not packages, f"{path.relative_to(ROOT)} (room {room}) imports {sorted(packages)}"


def _cycle(graph: Mapping[str, set[str]]) -> list[str] | None:
    """One import cycle of ``graph`` (its modules, the first one repeated at the end), or ``None``."""
    done: set[str] = set()
    path: list[str] = []

    def visit(module: str) -> list[str] | None:
        if module in path:
            return [*path[path.index(module) :], module]
        if module in done:
            return None
        path.append(module)
        for other in sorted(graph[module]):
            found = visit(other)
            if found:
                return found
        path.pop()
        done.add(module)
        return None

    return next((c for c in map(visit, sorted(graph)) if c), None)


def test_no_two_modules_import_each_other_even_through_others():
    modules = package_modules()
    graph = {m: package_imports(path, modules) - {m} for m, path in modules.items()}
    assert _cycle(graph) is None, f"an import cycle: {' -> '.join(_cycle(graph))}"
    graph["verl_arena.core.types"].add("verl_arena.core.tournament")  # the check sees a cycle where there is one
    assert _cycle(graph)


def test_no_two_public_classes_share_a_name():
    homes: dict[str, list[str]] = {}
    for module, path in package_modules().items():
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                homes.setdefault(node.name, []).append(module)
    shared = {name: where for name, where in homes.items() if len(where) > 1}
    assert not shared, f"public classes of the same name: {shared}"


def test_only_the_integrations_import_verl():
    for path in (ROOT / "verl_arena").rglob("*.py"):
        if "integrations" in path.parts:
            continue
        assert "verl" not in imported_modules(path), f"{path.relative_to(ROOT)} imports verl"


def test_no_print_in_library_code():
    for path in (ROOT / "verl_arena").rglob("*.py"):
        if path.name == "cli.py" or "commands" in path.parts:  # the command line prints; nothing else does
            continue
        nodes = ast.walk(ast.parse(path.read_text()))
        calls = [n for n in nodes if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "print"]
        assert not calls, f"{path.relative_to(ROOT)} prints"


#: the most formatted lines a function or method of the package may have, its docstring included: a module may grow
#: with its concern, a function that grows past this holds several and is split by concern
MAX_FUNCTION_LINES = 80


def test_no_function_is_over_80_lines():
    long = []
    for path in (ROOT / "verl_arena").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    long.append(f"{node.name} in {path.relative_to(ROOT)}:{node.lineno} has {lines} lines")
    assert not long, f"functions over {MAX_FUNCTION_LINES} lines (split them by concern): {'; '.join(long)}"


#: a comment that stops the formatter: the code is laid out by ``ruff format`` alone
FORMATTER_OFF = re.compile(r"#\s*fmt:\s*(skip|off)\b")


def test_no_fmt_skip_in_the_package_or_the_tests():
    held = [
        f"{path.relative_to(ROOT)}:{number}"
        for folder in ("verl_arena", "tests")
        for path in sorted((ROOT / folder).rglob("*.py"))
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if FORMATTER_OFF.search(line)
    ]
    assert not held, f"lines the formatter is told to skip (restructure them instead): {', '.join(held)}"


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


def public_modules() -> dict[str, Path]:
    """The package's modules whose name and folders do not start with ``_`` (a package's ``__init__`` aside)."""
    return {
        name: path
        for name, path in package_modules().items()
        if not any(part.startswith("_") for part in path.relative_to(ROOT / "verl_arena").parts)
    }


def mirrored_test(path: Path) -> Path:
    """Where the tests of the module at ``path`` live: ``tests/<its folders>/test_<its name>.py``."""
    return ROOT / "tests" / path.relative_to(ROOT / "verl_arena").parent / f"test_{path.stem}.py"


def lacks(module: str, test_file: Path, modules: Mapping[str, Path]) -> list[str]:
    """What ``test_file`` lacks to hold ``module``'s tests: a test function, and an import of the module (a command
    module may be driven through ``verl_arena.cli`` instead)."""
    tree = ast.parse(test_file.read_text())
    missing = []
    if not any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name.startswith("test") for n in tree.body):
        missing.append("a test function")
    imported = package_imports(test_file, modules)
    if module not in imported and not (module.startswith("verl_arena.commands.") and "verl_arena.cli" in imported):
        missing.append(f"an import of {module}")
    return missing


def test_every_public_module_has_its_tests_in_the_mirrored_folder():
    modules = package_modules()
    wrong = []
    for module, path in sorted(public_modules().items()):
        test_file = mirrored_test(path)
        if not test_file.exists():
            wrong.append(f"{test_file.relative_to(ROOT)} is missing")
        elif missing := lacks(module, test_file, modules):
            wrong.append(f"{test_file.relative_to(ROOT)} lacks {' and '.join(missing)}")
    assert not wrong, f"public modules without their tests ({len(wrong)}): {'; '.join(wrong)}"
