# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The report kit every page is drawn with: untrusted text is escaped wherever it goes, numbers without a figure say
``n/a``, the charts put each value where their axis says, and a page that tried to run or load something would be
caught by the browser check the page tests use (a real headless Chromium reads the page's Content-Security-Policy).
Each page's own content is tested beside its module (``test_winrate_html.py``, ``audit/test_html.py``...)."""

from __future__ import annotations

import math
import re

from helpers import EVIL, html_table, render, section

from verl_arena.evaluation.html_kit import (
    CSP,
    ChartRow,
    Html,
    bar_chart,
    code_text,
    figure,
    interval_chart,
    interval_figures,
    interval_text,
    num,
    page,
    table,
    text_block,
)

NAN = float("nan")


def test_the_kit_escapes_every_untrusted_text():
    evil_rows = [ChartRow(EVIL, 0.5, 0.4, 0.6, EVIL)]
    text = page(
        EVIL,
        [
            table(EVIL, [EVIL], [[EVIL, Html("<em>kept</em>")]], row_classes=[EVIL]),
            text_block(EVIL),
            interval_chart(EVIL, evil_rows, lo=0, hi=1, axis=EVIL, title=EVIL, marks=[(0.5, EVIL)]),
            bar_chart(EVIL, evil_rows, limit=0.2, limit_label=EVIL, axis=EVIL, title=EVIL),
        ],
    )
    assert "<script" not in text and "<img" not in text and "<em>kept</em>" in text
    assert text.count("&lt;script&gt;") >= 10
    cut = text_block("y" * 50, limit=20)
    assert cut.count("y") == 20 and "[... 30 more characters]" in cut


def test_the_page_forbids_everything_but_its_own_styles():
    shown = page("t", [])
    assert f'<meta http-equiv="Content-Security-Policy" content="{CSP}">' in shown
    assert CSP == "default-src 'none'; style-src 'unsafe-inline'"


def test_the_browser_check_catches_a_page_that_runs_or_loads_something(tmp_path):
    bad = tmp_path / "bad.html"
    bad.write_text(page("bad", [Html("<script>console.error('ran')</script><img src='http://example.invalid/x.png'>")]))
    console = render(bad, tmp_path).console
    assert any("script" in line.lower() for line in console) and any("image" in line.lower() for line in console)


def test_a_missing_figure_reads_n_a():
    assert num(None) == num(NAN) == "n/a" and num(0.12345, 3) == "0.123" and num(1000.4, 0) == "1000"
    assert math.isnan(figure(None)) and figure(3) == 3.0
    value, low, high = interval_figures({"value": 0.5, "low": None, "high": 0.7})
    assert (value, high) == (0.5, 0.7) and math.isnan(low)
    assert all(math.isnan(x) for x in interval_figures(None))
    assert interval_text({"value": 0.5, "low": 0.41, "high": None}) == "0.50 [0.41, n/a]"
    assert interval_text(None) == interval_text({"value": None}) == interval_text({"value": NAN}) == "n/a"


def test_code_spans_become_code_and_the_rest_stays_text():
    assert code_text("turn `order_swap` on & <b>") == "turn <code>order_swap</code> on &amp; &lt;b&gt;"
    assert code_text("`<x>`") == "<code>&lt;x&gt;</code>"  # escaped inside the code span too


def test_a_table_marks_its_name_columns_and_row_classes():
    shown = table("t", ["system", "rate"], [["a", 0.5], ["b", Html("<em>1</em>")]], row_classes=["flagged", ""])
    rows, classes = html_table(shown, "t")
    assert rows == [["system", "rate"], ["a", "0.5"], ["b", "1"]] and classes == ["", "flagged", ""]
    assert '<td class="name">a</td><td>0.5</td>' in shown  # the name column is left-aligned, the figure is not
    assert "<table><thead>" in table("", ["x"], [])  # no id for an empty one


def _axis_labels(chart: str) -> list[str]:
    return re.findall(r">([^<]+)</text>", section(chart, 'class="axis"', "</g>"))


def test_the_interval_chart_puts_each_value_where_its_axis_says():
    rows = [ChartRow("a", 0.5, 0.25, 0.75, "flagged"), ChartRow("b", NAN)]
    chart = interval_chart("c", rows, lo=0.0, hi=1.0, axis="rate", title="t", marks=[(0.2, "limit"), (0.5, "")])
    # the plot spans x = 220 (label_width) to 800 (width - 20): 0.5 is at 510, 0.25 at 365, 0.75 at 655
    assert '<circle class="point" cx="510.0"' in chart and 'fill="#c0392b"' in chart  # a flagged row's point is red
    assert 'x1="365.0" x2="655.0"' in chart
    assert chart.count('class="point"') == 1 and ">n/a</text>" in chart  # no value: no point, and it says so
    assert chart.count('class="limit"') == 1 and chart.count('class="neutral"') == 1 and ">limit</text>" in chart
    assert _axis_labels(chart) == ["0.00", "0.20", "0.40", "0.60", "0.80", "1.00", "rate"]
    elo = interval_chart("e", [ChartRow("a", 1000.0)], lo=950.0, hi=1080.0, axis="Elo", title="t", digits=0)
    assert _axis_labels(elo) == ["950", "1000", "1050", "Elo"]  # round ticks inside the range


def test_the_bar_chart_shows_what_is_over_the_limit_in_red_and_what_was_not_measured():
    rows = [ChartRow("low", 0.1), ChartRow("high", 0.5, 0.3, 0.7), ChartRow("none", NAN)]
    chart = bar_chart("b", rows, limit=0.2, limit_label="--max-rate 0.2", axis="rate", title="t")
    fills = re.findall(r'<rect class="bar"[^>]* fill="([^"]+)"', chart)
    assert fills == ["#7aa35c", "#c0392b"] and chart.count('class="interval"') == 1
    assert ">not measured</text>" in chart and ">--max-rate 0.2</text>" in chart
