# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena docs configuration|benchmarks``: each page written where -o says (its folder made), or to docs/ of
the source tree, saying where; the benchmarks page's plots beside it and its progress on stderr."""

from __future__ import annotations

import pytest

from verl_arena.cli import main
from verl_arena.commands import docs
from verl_arena.reference import benchmarks
from verl_arena.reference.configuration import configuration_markdown


def test_the_configuration_page_is_written_from_the_code_into_a_new_folder(tmp_path, capsys):
    out = tmp_path / "site" / "reference" / "configuration.md"  # neither folder exists yet
    assert main(["docs", "configuration", "-o", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == configuration_markdown()
    assert capsys.readouterr().out == f"wrote {out}\n"


def test_without_output_a_page_goes_to_docs_under_its_own_name(tmp_path, monkeypatch, capsys):
    """The benchmarks page, its 40-minute run replaced: the plots are asked for beside the page, progress is on
    stderr, the page's text is what the run returned."""
    asked = []

    def run_every_bench(out_dir, progress=None):
        asked.append(out_dir)
        progress("fidelity: 1 of 12 cells")
        return "# Benchmarks\n"

    monkeypatch.setattr(docs, "DOCS", tmp_path / "docs")
    monkeypatch.setattr(benchmarks, "benchmarks_markdown", run_every_bench)
    assert main(["docs", "benchmarks"]) == 0
    page = tmp_path / "docs" / "benchmarks.md"
    captured = capsys.readouterr()
    assert page.read_text() == "# Benchmarks\n" and asked == [page.parent]
    assert captured.out == f"wrote {page}\n" and captured.err == "fidelity: 1 of 12 cells\n"


def test_an_unknown_page_is_refused_naming_the_pages(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["docs", "commands"])
    assert exited.value.code == 2
    assert "invalid choice: 'commands' (choose from 'configuration', 'benchmarks')" in capsys.readouterr().err


def test_a_place_the_page_cannot_go_is_refused_before_the_page_is_made(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(benchmarks, "benchmarks_markdown", lambda *a, **k: pytest.fail("the benchmarks ran"))
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    assert main(["docs", "benchmarks", "-o", str(tmp_path)]) == 2
    assert capsys.readouterr().err == f"verl-arena docs: cannot write {tmp_path}: it is a directory\n"
    assert main(["docs", "benchmarks", "-o", str(blocker / "pages" / "benchmarks.md")]) == 2
    said = f"verl-arena docs: cannot write {blocker}/pages/benchmarks.md: {blocker} is not a directory\n"
    assert capsys.readouterr().err == said


def test_only_reruns_the_named_sections_of_the_existing_page_and_says_so(tmp_path, monkeypatch, capsys):
    """``docs benchmarks --only core tail``: the two benches' runs replaced (the page's real ones take minutes); the
    page at -o keeps every other section as it was, and the whole page's run never starts."""
    from helpers import ROOT

    committed = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    out = tmp_path / "benchmarks.md"
    out.write_text(committed, encoding="utf-8")
    monkeypatch.setattr(benchmarks, "benchmarks_markdown", lambda *a, **k: pytest.fail("the whole page ran"))

    def bench(name):
        def render(run):
            run.say(name)
            return f"```\n{name}\n```\n"

        return render

    for name in ("core", "tail"):
        monkeypatch.setitem(benchmarks.SECTIONS, name, (benchmarks.SECTIONS[name][0], bench(name)))
    assert main(["docs", "benchmarks", "--only", "tail", "core", "-o", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    assert page == benchmarks.rerun_sections(committed, ["core", "tail"], tmp_path)  # what the function gives
    assert "```\ncore\n```\n" in page and "```\ntail\n```\n" in page and page.count("## ") == committed.count("## ")
    captured = capsys.readouterr()
    assert captured.out == f"wrote {out} (sections tail, core rerun, the rest as it was)\n"
    assert captured.err == "tail\ncore\n"  # in page order: tail before core


def test_only_is_refused_before_any_bench_runs_for_a_missing_page_or_section_or_the_configuration_page(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.setitem(benchmarks.SECTIONS, "core", (benchmarks._CORE, lambda run: pytest.fail("the bench ran")))
    out = tmp_path / "benchmarks.md"
    assert main(["docs", "benchmarks", "--only", "core", "-o", str(out)]) == 2
    assert "there is none: write it whole first (without --only)" in capsys.readouterr().err
    out.write_text("# Benchmarks\n\n## Ranking fidelity (`verl-arena bench fidelity`)\n", encoding="utf-8")
    assert main(["docs", "benchmarks", "--only", "core", "-o", str(out)]) == 2
    assert capsys.readouterr().err.endswith("the page has no section for core: write it whole first (without --only)\n")
    assert main(["docs", "configuration", "--only", "core", "-o", str(tmp_path / "c.md")]) == 2
    assert "the configuration page is written whole" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["docs", "benchmarks", "--only", "speed"])
    assert "invalid choice: 'speed'" in capsys.readouterr().err
