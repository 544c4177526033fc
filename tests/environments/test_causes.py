# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""What each decision of an environment session means for the rollout: every cause one verdict, the blame reserved to
an action replayed at the same state, and an undecided failure the server's."""

from __future__ import annotations

from verl_arena.environments.causes import CAUSES, Cause, verdict


def test_every_cause_means_one_verdict_and_an_undecided_failure_is_the_servers():
    assert all(isinstance(c, Cause) and c.meaning for c in CAUSES.values())
    assert {c.verdict for c in CAUSES.values()} == {"error", "crash"}
    assert [n for n, c in CAUSES.items() if c.verdict == "crash"] == ["fails_again", "takes_down"]
    assert all("replayed at the same state" in CAUSES[n].meaning for n in ("fails_again", "takes_down"))
    assert verdict("") == verdict("no such cause") == verdict("unresolved") == "error"
    assert verdict("takes_down") == "crash"
