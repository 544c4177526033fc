# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Would verl load verl-arena here, and if not, why: the one line that names the cause and the fix.

verl imports every ``verl.plugins`` entry point when it is imported and skips one that fails with a DEBUG log line, so
a missing dependency, ``VERL_USE_EXTERNAL_PLUGINS`` leaving the plugin out, or a Python without the package surfaces
only later, as "Unknown advantage estimator: tournament". :func:`skip_reason` retraces verl's loader (verl 0.9 and
main alike: ``VERL_USE_EXTERNAL_MODULES``, then the entry points under ``VERL_USE_EXTERNAL_PLUGINS``) without
importing verl, and imports the plugin the way verl would to catch its error. ``verl-arena doctor`` runs it in a fresh
interpreter and in a Ray worker, ``verl-arena check`` in its own process.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Mapping
from importlib.metadata import entry_points

__all__ = ["ENTRY_POINT", "PLUGIN_MODULE", "skip_reason"]

#: the plugin's name in verl's ``verl.plugins`` entry-point group
ENTRY_POINT = "verl_arena"
#: the module that registers the plugin
PLUGIN_MODULE = "verl_arena.integrations.verl.plugin"
#: what to install for a module whose package has another name
_DISTRIBUTIONS = {"yaml": "PyYAML", "hydra": "hydra-core", "sklearn": "scikit-learn"}


def skip_reason(environ: Mapping[str, str] | None = None) -> str | None:
    """Why verl would not load verl-arena in this Python, in one line naming the fix; ``None`` when it would."""
    env = os.environ if environ is None else environ
    modules = [m.strip() for m in env.get("VERL_USE_EXTERNAL_MODULES", "").split(",") if m.strip()]
    if PLUGIN_MODULE in modules:
        return _import_error()
    policy = env.get("VERL_USE_EXTERNAL_PLUGINS", "auto").strip()
    if policy.lower() == "none":
        return (
            "VERL_USE_EXTERNAL_PLUGINS=none turns verl's plugin loading off: unset it, or also set "
            f"VERL_USE_EXTERNAL_MODULES={PLUGIN_MODULE}"
        )
    if not [ep for ep in entry_points(group="verl.plugins") if ep.name == ENTRY_POINT]:
        return (
            f"verl-arena's 'verl.plugins' entry point is not installed for {sys.executable}: pip install verl-arena "
            "in this environment (and in the environment of every Ray worker)"
        )
    allowed = {name.strip().lower() for name in policy.split(",") if name.strip()}
    if policy.lower() != "auto" and ENTRY_POINT not in allowed:
        return (
            f"VERL_USE_EXTERNAL_PLUGINS={policy} leaves verl-arena out: add it "
            f"(VERL_USE_EXTERNAL_PLUGINS={policy},{ENTRY_POINT})"
        )
    return _import_error()


def _import_error() -> str | None:
    """The error importing the plugin raises, with its fix, or ``None``."""
    try:
        importlib.import_module(PLUGIN_MODULE)
    except ModuleNotFoundError as exc:
        missing = (exc.name or "").split(".")[0]
        package = _DISTRIBUTIONS.get(missing, missing) or "the missing package"
        return (
            f"importing verl-arena's plugin fails ({exc}), so verl skips it: pip install {package} for "
            f"{sys.executable} (or reinstall verl-arena, which declares it)"
        )
    except Exception as exc:  # verl would swallow it: say it whole
        return f"importing verl-arena's plugin fails, so verl skips it: {type(exc).__name__}: {exc}"
    return None
