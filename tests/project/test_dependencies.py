# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Every package verl-arena imports is declared in pyproject.toml: a core import in ``dependencies``, an optional one
in its extra and only inside a function (so the package imports without it). Relying on what verl happens to bring
breaks the plugin silently: verl skips a plugin that fails to import."""

from __future__ import annotations

import ast
import functools
import importlib.metadata
import re
import sys
from pathlib import Path

import tomllib
from helpers import ROOT

#: imported packages that come with the program verl-arena plugs into and cannot be declared (slime is on no index)
HOST_PROGRAMS = {"slime"}
#: optional imports: the extra that declares each
EXTRAS = {"gguf": "real-model", "matplotlib": "plot", "tiktoken": "tokens"}


def _requirement_names(requirements: list[str]) -> set[str]:
    return {_normalized(re.split(r"[\s<>=!~;\[]", r, maxsplit=1)[0]) for r in requirements}


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _imports() -> dict[str, list[tuple[Path, bool]]]:
    """Every third-party top-level module the package imports: where, and whether at a module's top level."""
    found: dict[str, list[tuple[Path, bool]]] = {}
    for path in sorted((ROOT / "verl_arena").rglob("*.py")):
        tree = ast.parse(path.read_text())
        top_level = {id(node) for node in tree.body}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and top not in ("verl_arena", "__future__"):
                    found.setdefault(top, []).append((path.relative_to(ROOT), id(node) in top_level))
    return found


@functools.cache
def _distributions() -> dict[str, list[str]]:
    return importlib.metadata.packages_distributions()


def _distribution(module: str) -> str:
    return _normalized(_distributions().get(module, [module])[0])


def test_every_imported_package_is_declared_where_it_is_needed():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    core = _requirement_names(project["dependencies"])
    extras = {name: _requirement_names(reqs) for name, reqs in project["optional-dependencies"].items()}
    undeclared, eager = [], []
    for module, places in sorted(_imports().items()):
        if module in HOST_PROGRAMS:
            continue
        distribution = _distribution(module)
        if module in EXTRAS:
            if distribution not in extras[EXTRAS[module]]:
                undeclared.append(f"{distribution} (extra {EXTRAS[module]})")
            eager += [f"{module} in {path}" for path, at_top in places if at_top]
        elif distribution not in core and not (distribution == "pydantic-core" and "pydantic" in core):
            undeclared.append(f"{distribution} (imported by {places[0][0]})")
    assert not undeclared, f"imported but not declared in pyproject.toml: {undeclared}"
    assert not eager, f"optional packages imported at a module's top level: {eager}"


def test_the_check_reads_the_imports_it_must_see():
    imports = _imports()
    assert {"httpx", "tenacity", "numpy", "fastapi", "gguf"} <= set(imports)
    assert not any(at_top for _, at_top in imports["gguf"])  # the real-model conversion imports it when it runs
