# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""verl integration: the plugin (``plugin.py``), the ``arena`` reward manager, the ``tournament`` advantage
estimator and the arena agent loops. Importing this package does not import verl; import ``plugin`` for that."""
