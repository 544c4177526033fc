# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The report kit shared by ``audit``, ``eval winrate``, ``eval arena`` and ``show``: one self-contained HTML page
(inline CSS and SVG, no script, no external file, no network), tables and charts.

Every text a page shows is escaped unless it is :class:`Html`, markup this kit built: candidate answers, judge replies,
system and probe names are untrusted and reach the page as text. The page's Content-Security-Policy allows inline
styles and nothing else, so even markup that slipped through could neither run nor load anything (the browser says so
in its console, which the tests read).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from html import escape
from typing import Any

__all__ = [
    "CSP",
    "ChartRow",
    "Html",
    "bar_chart",
    "code_text",
    "figure",
    "interval_chart",
    "interval_figures",
    "interval_text",
    "num",
    "page",
    "table",
    "text",
    "text_block",
]

#: what a report page may do: apply its own inline styles, nothing else (no script, no image, no font, no fetch)
CSP = "default-src 'none'; style-src 'unsafe-inline'"

_STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 1080px; color: #222; padding: 0 1em; }
h1 { font-size: 1.5em; } h2 { font-size: 1.15em; margin-top: 1.8em; } h3 { font-size: 1em; margin-top: 1.4em; }
table { border-collapse: collapse; margin: 0.6em 0; }
th, td { padding: 4px 10px; border-bottom: 1px solid #ddd; text-align: right; vertical-align: top; }
th, td { white-space: nowrap; }
th:first-child, td:first-child, .name { text-align: left; } .name { white-space: normal; }
tr.flagged td { background: #fbe3e1; } tr.unmeasured td { background: #fdf3d7; } tr.winner td { background: #e6f2e6; }
p.warning, p.inconclusive { background: #fdf3d7; padding: 6px 10px; }
.note { color: #555; }
pre.text { white-space: pre-wrap; overflow-wrap: anywhere; background: #f6f6f4; border-left: 3px solid #bbb;
  padding: 6px 10px; margin: 0.4em 0; max-height: 28em; overflow: auto; font-size: 12.5px; }
code { background: #f1f1ee; padding: 0 3px; }
svg.chart { display: block; margin: 0.6em 0; font: 12px system-ui, sans-serif; }
svg.chart .axis line, svg.chart .axis path { stroke: #888; }
svg.chart text { fill: #333; }
"""


class Html(str):
    """Markup built by this kit: inserted as is (any other text is escaped)."""


def text(value: Any) -> Html:
    """``value`` as text on the page (escaped, quotes included)."""
    return Html(escape(str(value), quote=True))


_NAME = ' class="name"'


def _cell(value: Any) -> str:
    return value if isinstance(value, Html) else text(value)


def num(value: float | None, digits: int = 2) -> str:
    """A number to ``digits`` places; ``n/a`` for a missing or NaN one."""
    return "n/a" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.{digits}f}"


def figure(value: float | None) -> float:
    """A figure of a JSON-ready report as a float: ``None`` (strict JSON's NaN) is NaN."""
    return math.nan if value is None else float(value)


def interval_figures(interval: Mapping[str, Any] | None) -> tuple[float, float, float]:
    """``(value, low, high)`` of a JSON-ready interval as floats, NaN where it has none."""
    if interval is None:
        return math.nan, math.nan, math.nan
    return figure(interval["value"]), figure(interval["low"]), figure(interval["high"])


def interval_text(ci: Mapping[str, float] | None, digits: int = 2) -> str:
    """``value [low, high]``; ``n/a`` without a value."""
    if ci is None or ci.get("value") is None or math.isnan(ci["value"]):
        return "n/a"
    return f"{ci['value']:.{digits}f} [{num(ci['low'], digits)}, {num(ci['high'], digits)}]"


def text_block(value: str, *, limit: int = 6000) -> Html:
    """A long text (an answer, a judge's reply) as a preformatted block, cut after ``limit`` characters with a note
    saying how much was left out."""
    shown = value if len(value) <= limit else value[:limit]
    cut = f"\n[... {len(value) - limit} more characters]" if len(value) > limit else ""
    return Html(f'<pre class="text">{text(shown)}{text(cut)}</pre>')


_CODE = re.compile(r"`([^`]+)`")


def code_text(value: str) -> Html:
    """Text with ```code``` spans (as the docs write them) shown as code."""
    return Html(_CODE.sub(lambda m: f"<code>{m.group(1)}</code>", text(value)))


def table(
    id_: str,
    head: Sequence[Any],
    rows: Iterable[Sequence[Any]],
    *,
    row_classes: Sequence[str] | None = None,
    names: Sequence[int] = (0,),
) -> Html:
    """A table (``id_``: its element id, none if empty): ``head`` and ``rows`` cells are text (escaped) or
    :class:`Html`; a row may have a CSS class; the columns ``names`` hold names (left-aligned, ``class="name"``)."""
    th = "".join(f"<th{_NAME if j in names else ''}>{_cell(h)}</th>" for j, h in enumerate(head))
    body = []
    for i, row in enumerate(rows):
        cls = row_classes[i] if row_classes and row_classes[i] else ""
        attr = f' class="{text(cls)}"' if cls else ""
        tds = "".join(f"<td{_NAME if j in names else ''}>{_cell(c)}</td>" for j, c in enumerate(row))
        body.append(f"<tr{attr}>{tds}</tr>")
    ident = f' id="{text(id_)}"' if id_ else ""
    return Html(f"<table{ident}><thead><tr>{th}</tr></thead><tbody>{''.join(body)}</tbody></table>")


@dataclass(frozen=True)
class ChartRow:
    """One row of a chart: a label, a value with its interval (``low``/``high``; NaN: none), and a CSS class."""

    label: str
    value: float
    low: float = math.nan
    high: float = math.nan
    kind: str = ""


@dataclass(frozen=True)
class _Frame:
    lo: float
    hi: float
    left: int
    width: int

    def x(self, v: float) -> float:
        span = self.hi - self.lo
        return self.left + (self.width * (v - self.lo) / span if span > 0 else self.width / 2)


def _ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """Round tick values covering ``[lo, hi]``."""
    if hi <= lo:
        return [lo]
    raw = (hi - lo) / count
    step = 10 ** math.floor(math.log10(raw))
    step *= next(m for m in (1, 2, 2.5, 5, 10) if m * step >= raw)
    first = math.ceil(lo / step - 1e-9) * step
    return [round(first + i * step, 10) for i in range(int((hi - first) / step + 1e-9) + 1)]


def _axis(frame: _Frame, y: float, title: str, digits: int) -> str:
    ticks = "".join(
        f'<line x1="{frame.x(t):.1f}" x2="{frame.x(t):.1f}" y1="{y:.0f}" y2="{y + 5:.0f}"/>'
        f'<text x="{frame.x(t):.1f}" y="{y + 17:.0f}" text-anchor="middle">{t:.{digits}f}</text>'
        for t in _ticks(frame.lo, frame.hi)
    )
    line = f'<line x1="{frame.left}" x2="{frame.left + frame.width}" y1="{y:.0f}" y2="{y:.0f}"/>'
    label = f'<text x="{frame.left + frame.width / 2:.0f}" y="{y + 33:.0f}" text-anchor="middle">{text(title)}</text>'
    return f'<g class="axis">{line}{ticks}{label}</g>'


def _marks(frame: _Frame, marks: Sequence[tuple[float, str]], top: float, bottom: float) -> str:
    """Vertical reference lines (dashed red with a label: a limit; grey: a neutral value)."""
    out = []
    for value, label in marks:
        x = frame.x(value)
        colour, dash = ("#c0392b", ' stroke-dasharray="4,3"') if label else ("#999", "")
        out.append(
            f'<line class="{"limit" if label else "neutral"}" x1="{x:.1f}" x2="{x:.1f}" y1="{top:.0f}" '
            f'y2="{bottom:.0f}" stroke="{colour}"{dash}/>'
        )
        if label:
            out.append(f'<text x="{x + 3:.1f}" y="{top + 10:.0f}" fill="#c0392b">{text(label)}</text>')
    return "".join(out)


def _label(value: str, limit: int = 34) -> Html:
    """A chart label, shortened to ``limit`` characters (the tables beside the chart hold the whole name)."""
    return text(value if len(value) <= limit else value[: limit - 1] + "\u2026")


def _svg(id_: str, width: int, height: int, title: str, body: str) -> Html:
    return Html(
        f'<svg class="chart" id="{text(id_)}" width="{width}" height="{height}" role="img" '
        f'aria-label="{text(title)}"><title>{text(title)}</title>{body}</svg>'
    )


def interval_chart(
    id_: str,
    rows: Sequence[ChartRow],
    *,
    lo: float,
    hi: float,
    axis: str,
    title: str,
    marks: Sequence[tuple[float, str]] = (),
    digits: int = 2,
    label_width: int = 220,
    width: int = 820,
) -> Html:
    """Each row's value (a dot) and interval (a bar) on one shared axis, with reference lines (``marks``:
    ``(value, label)``; a labelled one is a limit)."""
    frame, step, top = _Frame(lo, hi, label_width, width - label_width - 20), 22, 16
    bottom = top + step * len(rows)
    parts = [_marks(frame, marks, 2, bottom)]
    for i, row in enumerate(rows):
        y = top + step * i + step / 2
        parts.append(
            f'<g class="row {text(row.kind)}"><text x="{label_width - 8}" y="{y + 4:.0f}" '
            f'text-anchor="end">{_label(row.label)}</text>'
        )
        if not math.isnan(row.low):
            parts.append(
                f'<line class="interval" x1="{frame.x(row.low):.1f}" x2="{frame.x(row.high):.1f}" '
                f'y1="{y:.0f}" y2="{y:.0f}" stroke="#4a78b5" stroke-width="3"/>'
            )
        if not math.isnan(row.value):
            fill = "#c0392b" if row.kind == "flagged" else "#1f3f6e"
            parts.append(f'<circle class="point" cx="{frame.x(row.value):.1f}" cy="{y:.0f}" r="4" fill="{fill}"/>')
        else:
            parts.append(f'<text x="{label_width + 4}" y="{y + 4:.0f}" fill="#888">n/a</text>')
        parts.append("</g>")
    parts.append(_axis(frame, bottom + 4, axis, digits))
    return _svg(id_, width, bottom + 44, title, "".join(parts))


def bar_chart(
    id_: str,
    rows: Sequence[ChartRow],
    *,
    limit: float,
    limit_label: str,
    axis: str,
    title: str,
    label_width: int = 140,
    width: int = 820,
) -> Html:
    """One horizontal bar per row on ``[0, 1]`` (red over ``limit``), its interval as a whisker, and the limit as a
    dashed line."""
    frame, step, top = _Frame(0.0, 1.0, label_width, width - label_width - 44), 24, 18
    bottom = top + step * len(rows)
    parts = []
    for i, row in enumerate(rows):
        y = top + step * i
        parts.append(
            f'<g class="row {text(row.kind)}"><text x="{label_width - 8}" y="{y + 15:.0f}" '
            f'text-anchor="end">{_label(row.label)}</text>'
        )
        if math.isnan(row.value):
            parts.append(f'<text x="{label_width + 4}" y="{y + 15:.0f}" fill="#888">not measured</text></g>')
            continue
        fill = "#c0392b" if row.value > limit else "#7aa35c"
        parts.append(
            f'<rect class="bar" x="{frame.left}" y="{y + 4:.0f}" height="{step - 8}" '
            f'width="{max(frame.x(row.value) - frame.left, 1.0):.1f}" fill="{fill}"/>'
        )
        if not math.isnan(row.low):
            parts.append(
                f'<line class="interval" x1="{frame.x(row.low):.1f}" x2="{frame.x(row.high):.1f}" '
                f'y1="{y + step / 2:.0f}" y2="{y + step / 2:.0f}" stroke="#222"/>'
            )
        parts.append(f'<text x="{frame.x(row.value) + 4:.1f}" y="{y + 15:.0f}">{row.value:.2f}</text></g>')
    parts.append(_marks(frame, [(limit, limit_label)], 2, bottom))
    parts.append(_axis(frame, bottom + 4, axis, 1))
    return _svg(id_, width, bottom + 44, title, "".join(parts))


def page(title: str, sections: Iterable[str]) -> str:
    """The whole page: a title and the sections (markup built with this kit), styled inline."""
    body = "\n".join(sections)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{CSP}">
<title>{text(title)}</title><style>{_STYLE}</style></head>
<body>
<h1>{text(title)}</h1>
{body}
</body></html>
"""
