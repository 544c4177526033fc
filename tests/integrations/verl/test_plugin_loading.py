# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Why verl would skip verl-arena, in one line with the fix: the settings that leave it out and an import that fails
(verl itself only logs them at DEBUG and stops later at "Unknown advantage estimator")."""

from __future__ import annotations

import pytest
from helpers import fresh_python

from verl_arena.integrations.verl.plugin_loading import PLUGIN_MODULE, skip_reason

pytest.importorskip("verl")


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({"VERL_USE_EXTERNAL_PLUGINS": "none"}, "VERL_USE_EXTERNAL_PLUGINS=none turns verl's plugin loading off"),
        ({"VERL_USE_EXTERNAL_PLUGINS": "None "}, "VERL_USE_EXTERNAL_MODULES=verl_arena.integrations.verl.plugin"),
        (
            {"VERL_USE_EXTERNAL_PLUGINS": "other"},
            "leaves verl-arena out: add it (VERL_USE_EXTERNAL_PLUGINS=other,verl_arena)",
        ),
    ],
)
def test_settings_that_leave_the_plugin_out_are_named_with_the_fix(environ, expected):
    assert expected in skip_reason(environ)


@pytest.mark.parametrize(
    "environ",
    [
        {},
        {"VERL_USE_EXTERNAL_PLUGINS": "auto"},
        {"VERL_USE_EXTERNAL_PLUGINS": "other, verl_arena"},
        {"VERL_USE_EXTERNAL_PLUGINS": "none", "VERL_USE_EXTERNAL_MODULES": f"x,{PLUGIN_MODULE}"},
    ],
)
def test_settings_that_load_the_plugin_give_no_reason(environ):
    assert skip_reason(environ) is None


def test_a_package_the_plugin_cannot_import_is_named_with_what_to_install():
    code = (
        "import sys\n"
        "sys.modules['scipy'] = None  # as if scipy were not installed\n"
        "sys.modules['yaml'] = None\n"
        "from verl_arena.integrations.verl.plugin_loading import skip_reason\n"
        "print(skip_reason({}))\n"
    )
    done = fresh_python(code, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    line = done.stdout.strip().splitlines()[-1]
    assert line.startswith("importing verl-arena's plugin fails (") and "so verl skips it: pip install" in line
    assert ("pip install scipy" in line) or ("pip install PyYAML" in line)  # whichever the plugin imports first
