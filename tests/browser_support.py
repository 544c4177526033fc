# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""A report page as a real browser renders it: headless Chromium (Debian's ``chromium``, which ``.ci/run`` installs),
its DOM after rendering, and what it wrote to its console (a page that runs or loads anything breaks its
Content-Security-Policy, and the browser says so there)."""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

#: a quiet, isolated browser: no network of its own, no first-run work, no sandbox (CI runs as root)
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--enable-logging=stderr",
    "--v=0",
]
_CONSOLE = re.compile(r":CONSOLE[:(]\d*\)?\]? ?(.*)")


def browser() -> str:
    """The Chromium executable; the test skips, saying so, where there is none."""
    found = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if found is None:
        pytest.skip("no chromium on this machine: the page was written but not rendered (apt install chromium)")
    return found


@dataclass(frozen=True)
class Rendered:
    """The DOM after rendering, serialised, and the console messages the page caused."""

    dom: str
    console: list[str]


def render(page: Path, workdir: Path) -> Rendered:
    """Load ``page`` in a fresh headless Chromium profile and return its DOM and console messages."""
    profile = workdir / f"chromium-profile-{page.stem}"
    done = subprocess.run(
        [browser(), *FLAGS, f"--user-data-dir={profile}", "--dump-dom", page.resolve().as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.stdout.strip(), f"chromium rendered nothing: {done.stderr[-2000:]}"
    console = [m.group(1) for line in done.stderr.splitlines() if (m := _CONSOLE.search(line))]
    return Rendered(done.stdout, console)


def screenshot(page: Path, workdir: Path, size: str = "1100,1400") -> Path:
    """A PNG of ``page`` as rendered."""
    shot = workdir / f"{page.stem}.png"
    profile = workdir / f"chromium-shot-{page.stem}"
    subprocess.run(
        [
            browser(),
            *FLAGS,
            f"--user-data-dir={profile}",
            f"--screenshot={shot}",
            f"--window-size={size}",
            page.resolve().as_uri(),
        ],
        capture_output=True,
        timeout=120,
    )
    return shot
