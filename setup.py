# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Kept for tools that still call ``setup.py``; all metadata lives in ``pyproject.toml``."""

from setuptools import setup

setup()
