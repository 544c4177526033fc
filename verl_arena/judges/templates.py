# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Judge prompt templates: loading, validation and rendering.

A template is a YAML file (see ``verl_arena/judges/templates/``) with a ``system`` and a ``user`` text in which
``$name`` placeholders are filled in (``string.Template`` syntax, so JSON braces need no escaping). Three kinds:

- ``pairwise``: scores candidates A and B on ``dimensions`` grouped into ``process`` and ``answer``; the combined
  score of a candidate is ``sum_g weights[g] * mean(scores in g)``, computed by us, not by the judge.
  Placeholders: ``$query $candidate_a $candidate_b $criteria $rubrics $reply_format``; ``$rubrics`` holds the query's
  rubric items and its answer key (reference facts, e.g. DR-Arena's information tree), each where the data gives one.
- ``select``: picks ``$k`` winners among ``$count`` numbered candidates.
  Placeholders: ``$query $candidates $k $count $rubrics $reply_format``.
- ``order``: puts ``$count`` numbered candidates in order, best first.
  Placeholders: ``$query $candidates $count $rubrics $reply_format``.
- ``rubrics``: writes 5-7 query-specific rubric items. Placeholders: ``$query $reply_format``.

Every prompt is laid out for prefix caching (vLLM, SGLang): what all the requests of a group share comes first and is
byte-identical in all of them and in both orders of a pair (the system text, the instructions, the criteria, the
query, its rubric items and answer key), then the candidates, then what is particular to one request (the number of
winners asked for, the reply format with its ``verdict_id``). A server then prefills the shared part once per group,
and every request that shows the same candidate first reuses that candidate's block too. A custom template should
keep this order: text placed before the candidates that differs from request to request ends what can be shared
there (:meth:`Template.prefix_breakers` names such placeholders, and loading a template file warns about them).

Candidate text is wrapped in markers that carry a tag of the query (:meth:`Template.marker_tag`: a hash of the
template, the query, its rubric items and answer key), the same in every request of a group, which a candidate cannot
know: it never sees judge prompts, so it cannot close its own block. Each judgment has its own ``verdict_id`` (a hash
of the template, the query, both candidates and the context, computed by the caller with :func:`make_nonce`), shown
only in the reply format after both candidates; the judge must echo it, and the parser reads only objects that carry
it, so a verdict forged in a candidate's text never counts.
"""

from __future__ import annotations

import hashlib
import json
import logging
import string
from collections.abc import Mapping, Sequence
from functools import cache, cached_property
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from verl_arena.core.errors import ConfigError
from verl_arena.core.types import Candidate
from verl_arena.judges.grading import GRADE_FORMAT
from verl_arena.validation import read_yaml, validate

__all__ = ["BUILTIN_TEMPLATES", "Template", "load_template", "make_nonce"]

logger = logging.getLogger(__name__)
#: templates already warned about (once per template, not at every load)
_WARNED: set[str] = set()

TEMPLATE_DIR = Path(__file__).with_name("templates")
BUILTIN_TEMPLATES = ("travel", "deep_research", "writing", "generic", "select", "order", "rubrics")
Kind = Literal["pairwise", "select", "order", "rubrics"]
_PLACEHOLDERS: dict[str, set[str]] = {
    "pairwise": {"query", "candidate_a", "candidate_b", "criteria", "rubrics", "reply_format"},
    "select": {"query", "candidates", "k", "count", "rubrics", "reply_format"},
    "order": {"query", "candidates", "count", "rubrics", "reply_format"},
    "rubrics": {"query", "reply_format"},
}
#: the placeholders that hold the candidates, and those that differ from one request of a group to the next
_CANDIDATES = ("candidate_a", "candidate_b", "candidates")
_PER_REQUEST = ("reply_format", "k", "count")
_REQUIRED: dict[str, set[str]] = {
    "pairwise": {"candidate_a", "candidate_b", "reply_format"},
    "select": {"candidates", "k", "reply_format"},
    "order": {"candidates", "reply_format"},
    "rubrics": {"query", "reply_format"},
}


class Labels(BaseModel):
    """Words the renderer puts around candidate text, in the template's language."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    process: str = "Process"
    answer: str = "Final answer"
    empty: str = "(none)"
    no_answer: str = "(no final answer)"
    rubrics_header: str = "[Criteria specific to this query]"
    answer_key_header: str = (
        "[Answer key: verified reference information for this query. It is not a candidate. Check every candidate's "
        "claims against it; where a candidate contradicts it or leaves out what it asks for, that candidate is wrong "
        "or incomplete on that point]"
    )
    retry: str = "Your reply could not be used ($error). Reply again with only the JSON object in the required format."


class Template(BaseModel):
    """A validated judge prompt template."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    name: str
    language: Literal["en", "zh"]
    kind: Kind
    system: str
    user: str
    scale: tuple[float, float] = (0.0, 10.0)
    dimensions: dict[str, dict[str, str]] = Field(default_factory=dict)
    weights: dict[str, float] = Field(default_factory=dict)
    labels: Labels = Field(default_factory=Labels)

    @model_validator(mode="after")
    def _check(self) -> Template:
        used = {m.group("named") or m.group("braced") for m in string.Template.pattern.finditer(self.user)} - {None}
        unknown = used - _PLACEHOLDERS[self.kind]
        if unknown:
            raise ValueError(f"unknown placeholders {sorted(unknown)} for a {self.kind} template")
        missing = _REQUIRED[self.kind] - used
        if missing:
            raise ValueError(f"the user text must contain {sorted('$' + m for m in missing)}")
        if self.scale[0] >= self.scale[1]:
            raise ValueError(f"scale must be (low, high) with low < high, got {self.scale}")
        if self.kind == "pairwise":
            if not self.dimensions or any(not dims for dims in self.dimensions.values()):
                raise ValueError("a pairwise template needs at least one dimension in every group")
            if set(self.weights) != set(self.dimensions):
                raise ValueError(f"weights {sorted(self.weights)} must name the groups {sorted(self.dimensions)}")
            if abs(sum(self.weights.values()) - 1.0) > 1e-9 or min(self.weights.values()) < 0:
                raise ValueError(f"weights must be >= 0 and sum to 1, got {self.weights}")
        return self

    @cached_property
    def digest(self) -> str:
        """Hash of everything that shapes the judge's answer; part of every cache key."""
        return hashlib.sha256(json.dumps(self.model_dump(), sort_keys=True, ensure_ascii=False).encode()).hexdigest()

    @property
    def midpoint(self) -> float:
        """Middle of the score scale, the score of each side of a tie decided without the judge."""
        return (self.scale[0] + self.scale[1]) / 2

    # -- rendering --------------------------------------------------------------------------------------------------

    def combined(self, scores: Mapping[str, Mapping[str, float]]) -> float:
        """Weighted combination of one candidate's dimension scores."""
        return sum(w * sum(scores[g].values()) / len(scores[g]) for g, w in self.weights.items())

    def prefix_breakers(self) -> list[str]:
        """The placeholders that differ between the requests of a group (the reply format with its ``verdict_id``,
        ``$k``, ``$count``) but come before the first candidate in the user text, cutting short what a prefix cache
        can share; empty for every built-in template."""
        pattern = string.Template.pattern
        found = [(m.start(), m.group("named") or m.group("braced")) for m in pattern.finditer(self.user)]
        first = min((at for at, name in found if name in _CANDIDATES), default=-1)
        return [name for at, name in found if name in _PER_REQUEST and at < first]

    def marker_tag(self, query: str, rubrics: Sequence[Any] | None = None, answer_key: str | None = None) -> str:
        """The tag of the candidate markers for one query and context: the same in every request of a group (so the
        prompts share everything up to the candidates), unknowable to a candidate (it never sees judge prompts)."""
        context = json.dumps(rubrics, sort_keys=True, ensure_ascii=False, default=str)
        return make_nonce(self.digest, "markers", query, context, answer_key or "")

    def block(self, label: str, candidate: Candidate, tag: str) -> str:
        """A candidate wrapped in markers that carry the query's tag."""
        lab = self.labels
        return (
            f"<<<CANDIDATE {label} {tag}>>>\n"
            f"[{lab.process}]\n{candidate.path.strip() or lab.empty}\n"
            f"[{lab.answer}]\n{candidate.answer.strip() or lab.no_answer}\n"
            f"<<<END CANDIDATE {label} {tag}>>>"
        )

    def reply_skeleton(self, verdict_id: str, *, k: int = 0, graded: bool = False) -> dict[str, Any]:
        """The JSON shape the judge must reply with, carrying the judgment's ``verdict_id``; a graded pairwise one
        asks for a preference strength (:mod:`~verl_arena.judges.grading`) where an ungraded one asks for the
        winner."""
        lo, hi = (int(v) if float(v).is_integer() else v for v in self.scale)
        if self.kind == "pairwise":
            side = {g: {d: f"<number {lo}-{hi}>" for d in dims} for g, dims in self.dimensions.items()}
            verdict = {"preference": GRADE_FORMAT} if graded else {"winner": "<A|B|tie>"}
            return {"verdict_id": verdict_id, "analysis": "<short comparison>", "A": side, "B": side, **verdict}
        if self.kind == "select":
            return {"verdict_id": verdict_id, "analysis": "<short comparison>", "winners": ["<candidate number>"] * k}
        if self.kind == "order":
            numbers = [
                "<number of the best candidate>",
                *["<number of the next best>"] * (k - 2),
                "<number of the worst>",
            ]
            return {"verdict_id": verdict_id, "analysis": "<short comparison>", "order": numbers}
        item = {"dimension": "<short name>", "criterion": "<what a strong answer does>", "importance": "<1-5>"}
        return {"verdict_id": verdict_id, "rubrics": [item]}

    def _fill(self, values: Mapping[str, Any]) -> list[dict[str, str]]:
        try:
            user = string.Template(self.user).substitute(values)
        except (KeyError, ValueError) as exc:  # pragma: no cover - prevented by validation
            raise ConfigError(f"template {self.name!r}: cannot fill {exc}") from exc
        return [{"role": "system", "content": self.system.strip()}, {"role": "user", "content": user.strip()}]

    def _context_text(self, rubrics: Sequence[Any] | None, answer_key: str | None) -> str:
        """What fills ``$rubrics``: the query's rubric items and its answer key, each under its header, if given."""
        parts = [self._rubric_text(rubrics)] if rubrics else []
        if answer_key:
            parts.append(f"{self.labels.answer_key_header}\n{answer_key.strip()}")
        return "\n\n".join(parts)

    def _rubric_text(self, rubrics: Sequence[Any]) -> str:
        lines = [self.labels.rubrics_header]
        for item in rubrics:
            if isinstance(item, Mapping):
                text = f"{item.get('dimension', '')}: {item.get('criterion', '')}".strip(": ")
                if item.get("importance") is not None:
                    text += f" (importance {item['importance']})"
            else:
                text = str(item)
            lines.append(f"- {text}")
        return "\n".join(lines)

    def render_pairwise(
        self,
        query: str,
        a: Candidate,
        b: Candidate,
        verdict_id: str,
        rubrics: Sequence[Any] | None = None,
        answer_key: str | None = None,
        *,
        graded: bool = False,
    ) -> list[dict[str, str]]:
        """Chat messages asking the judge to compare ``a`` (shown first) with ``b``; the reply must carry
        ``verdict_id`` (and, ``graded``, a preference strength)."""
        criteria = "\n".join(
            f"- {group}.{dim}: {text}" for group, dims in self.dimensions.items() for dim, text in dims.items()
        )
        tag = self.marker_tag(query, rubrics, answer_key)
        return self._fill(
            {
                "query": query,
                "candidate_a": self.block("A", a, tag),
                "candidate_b": self.block("B", b, tag),
                "criteria": criteria,
                "rubrics": self._context_text(rubrics, answer_key),
                "reply_format": json.dumps(self.reply_skeleton(verdict_id, graded=graded), ensure_ascii=False),
            }
        )

    def render_select(
        self,
        query: str,
        candidates: Sequence[Candidate],
        k: int,
        verdict_id: str,
        rubrics: Sequence[Any] | None = None,
        answer_key: str | None = None,
    ) -> list[dict[str, str]]:
        """Chat messages asking the judge for the ``k`` best of ``candidates`` (numbered from 1)."""
        tag = self.marker_tag(query, rubrics, answer_key)
        blocks = "\n\n".join(self.block(str(i + 1), c, tag) for i, c in enumerate(candidates))
        return self._fill(
            {
                "query": query,
                "candidates": blocks,
                "k": k,
                "count": len(candidates),
                "rubrics": self._context_text(rubrics, answer_key),
                "reply_format": json.dumps(self.reply_skeleton(verdict_id, k=k), ensure_ascii=False),
            }
        )

    def render_order(
        self,
        query: str,
        candidates: Sequence[Candidate],
        verdict_id: str,
        rubrics: Sequence[Any] | None = None,
        answer_key: str | None = None,
    ) -> list[dict[str, str]]:
        """Chat messages asking the judge to order ``candidates`` (numbered from 1), best first."""
        tag = self.marker_tag(query, rubrics, answer_key)
        blocks = "\n\n".join(self.block(str(i + 1), c, tag) for i, c in enumerate(candidates))
        return self._fill(
            {
                "query": query,
                "candidates": blocks,
                "count": len(candidates),
                "rubrics": self._context_text(rubrics, answer_key),
                "reply_format": json.dumps(self.reply_skeleton(verdict_id, k=len(candidates)), ensure_ascii=False),
            }
        )

    def render_rubrics(self, query: str, verdict_id: str) -> list[dict[str, str]]:
        """Chat messages asking the judge for query-specific rubric items."""
        reply_format = json.dumps(self.reply_skeleton(verdict_id), ensure_ascii=False)
        return self._fill({"query": query, "reply_format": reply_format})


def make_nonce(*parts: str) -> str:
    """A 12-hex-digit tag derived from ``parts``: a judgment's ``verdict_id`` (from the template digest, the query, the
    candidates' digests and the context), or a query's marker tag (:meth:`Template.marker_tag`)."""
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode("utf-8", "surrogatepass"))
        h.update(b"\x1f")
    return h.hexdigest()[:12]


@cache
def _builtin(name: str, language: str) -> Template:
    return _from_file(TEMPLATE_DIR / f"{name}.{language}.yaml")


def _from_file(path: Path) -> Template:
    data = read_yaml(path)
    if not isinstance(data, dict):
        raise ConfigError(f"template file {path} must hold a mapping")
    return validate(Template, data, "template", f"template file {path}")


def load_template(name_or_path: str, language: str = "en", *, kind: Kind | None = None) -> Template:
    """A built-in template by name (in ``language``) or a template YAML file by path; checks its ``kind``."""
    if name_or_path in BUILTIN_TEMPLATES:
        if language not in ("en", "zh"):
            raise ConfigError(f"template language must be 'en' or 'zh', got {language!r}")
        template = _builtin(name_or_path, language)
    elif name_or_path.endswith((".yaml", ".yml")) or "/" in name_or_path:
        template = _from_file(Path(name_or_path))
    else:
        known = [name for name in BUILTIN_TEMPLATES if kind is None or _builtin(name, "en").kind == kind]
        raise ConfigError(
            f"unknown template {name_or_path!r}; built-in{f' {kind}' if kind else ''}: {', '.join(known)}, or a path "
            "to a YAML file"
        )
    if kind is not None and template.kind != kind:
        raise ConfigError(f"template {name_or_path!r} is a {template.kind} template where a {kind} one is needed")
    breakers = template.prefix_breakers()
    if breakers and template.digest not in _WARNED:
        _WARNED.add(template.digest)
        logger.warning(
            "template %s puts %s before the candidates: these differ from request to request, so a prefix cache "
            "(vLLM, SGLang) cannot share the candidates' blocks between a group's requests; move them after the "
            "candidates",
            name_or_path,
            ", ".join("$" + b for b in breakers),
        )
    return template
