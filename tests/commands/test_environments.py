# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena env-server``: a bad option or an address it cannot listen on stops it with one line and exit 2 before
anything is served (serving: tests/environments/test_server.py)."""

from __future__ import annotations

import socket

import pytest

from verl_arena.cli import main


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (["--fail-rate", "1.5"], "fail_rate must be within [0, 1], got 1.5"),
        (["--max-steps", "0"], "stall_s must be >= 0, max_open and max_steps >= 1"),
        (["--fault-pattern", "(("], "fault_pattern '((' is not a regular expression"),
    ],
)
def test_a_bad_option_is_refused_on_one_line(options, said, capsys):
    assert main(["env-server", "textcraft", *options]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"verl-arena env-server: {said}") and err.count("\n") == 1


def test_a_port_in_use_is_refused_naming_the_address(capsys):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["env-server", "textcraft", "--port", str(port)]) == 2
    err = capsys.readouterr().err
    assert err == f"verl-arena env-server: cannot listen on 127.0.0.1:{port}: Address already in use\n"
    assert capsys.readouterr().out == ""  # no URL printed: nothing is served


def test_an_unknown_environment_is_a_usage_error_naming_the_known_ones(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["env-server", "webshop"])
    assert exited.value.code == 2 and "invalid choice: 'webshop' (choose from 'textcraft')" in capsys.readouterr().err
