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

Candidate text is wrapped in markers that carry a per-judgment nonce (a hash of the template, the query and the
candidates), so a candidate cannot close its own block, and the judge must echo the nonce as ``verdict_id``.
"""

from __future__ import annotations

import hashlib
import json
import string
from collections.abc import Mapping, Sequence
from functools import cache, cached_property
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, model_validator

from verl_arena.core.errors import ConfigError
from verl_arena.core.types import Candidate
from verl_arena.validation import validate

__all__ = ["BUILTIN_TEMPLATES", "Template", "load_template", "make_nonce"]

TEMPLATE_DIR = Path(__file__).with_name("templates")
BUILTIN_TEMPLATES = ("travel", "deep_research", "writing", "generic", "select", "order", "rubrics")
Kind = Literal["pairwise", "select", "order", "rubrics"]
_PLACEHOLDERS: dict[str, set[str]] = {
    "pairwise": {"query", "candidate_a", "candidate_b", "criteria", "rubrics", "reply_format"},
    "select": {"query", "candidates", "k", "count", "rubrics", "reply_format"},
    "order": {"query", "candidates", "count", "rubrics", "reply_format"},
    "rubrics": {"query", "reply_format"},
}
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

    def block(self, label: str, candidate: Candidate, nonce: str) -> str:
        """A candidate wrapped in nonce-carrying markers."""
        lab = self.labels
        return (
            f"<<<CANDIDATE {label} {nonce}>>>\n"
            f"[{lab.process}]\n{candidate.path.strip() or lab.empty}\n"
            f"[{lab.answer}]\n{candidate.answer.strip() or lab.no_answer}\n"
            f"<<<END CANDIDATE {label} {nonce}>>>"
        )

    def reply_skeleton(self, nonce: str, *, k: int = 0) -> dict[str, Any]:
        """The JSON shape the judge must reply with."""
        lo, hi = (int(v) if float(v).is_integer() else v for v in self.scale)
        if self.kind == "pairwise":
            side = {g: {d: f"<number {lo}-{hi}>" for d in dims} for g, dims in self.dimensions.items()}
            return {"verdict_id": nonce, "analysis": "<short comparison>", "A": side, "B": side, "winner": "<A|B|tie>"}
        if self.kind == "select":
            return {"verdict_id": nonce, "analysis": "<short comparison>", "winners": ["<candidate number>"] * k}
        if self.kind == "order":
            numbers = [
                "<number of the best candidate>",
                *["<number of the next best>"] * (k - 2),
                "<number of the worst>",
            ]
            return {"verdict_id": nonce, "analysis": "<short comparison>", "order": numbers}
        item = {"dimension": "<short name>", "criterion": "<what a strong answer does>", "importance": "<1-5>"}
        return {"verdict_id": nonce, "rubrics": [item]}

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
        nonce: str,
        rubrics: Sequence[Any] | None = None,
        answer_key: str | None = None,
    ) -> list[dict[str, str]]:
        """Chat messages asking the judge to compare ``a`` (shown first) with ``b``."""
        criteria = "\n".join(
            f"- {group}.{dim}: {text}" for group, dims in self.dimensions.items() for dim, text in dims.items()
        )
        return self._fill(
            {
                "query": query,
                "candidate_a": self.block("A", a, nonce),
                "candidate_b": self.block("B", b, nonce),
                "criteria": criteria,
                "rubrics": self._context_text(rubrics, answer_key),
                "reply_format": json.dumps(self.reply_skeleton(nonce), ensure_ascii=False),
            }
        )

    def render_select(
        self,
        query: str,
        candidates: Sequence[Candidate],
        k: int,
        nonce: str,
        rubrics: Sequence[Any] | None = None,
        answer_key: str | None = None,
    ) -> list[dict[str, str]]:
        """Chat messages asking the judge for the ``k`` best of ``candidates`` (numbered from 1)."""
        blocks = "\n\n".join(self.block(str(i + 1), c, nonce) for i, c in enumerate(candidates))
        return self._fill(
            {
                "query": query,
                "candidates": blocks,
                "k": k,
                "count": len(candidates),
                "rubrics": self._context_text(rubrics, answer_key),
                "reply_format": json.dumps(self.reply_skeleton(nonce, k=k), ensure_ascii=False),
            }
        )

    def render_order(
        self,
        query: str,
        candidates: Sequence[Candidate],
        nonce: str,
        rubrics: Sequence[Any] | None = None,
        answer_key: str | None = None,
    ) -> list[dict[str, str]]:
        """Chat messages asking the judge to order ``candidates`` (numbered from 1), best first."""
        blocks = "\n\n".join(self.block(str(i + 1), c, nonce) for i, c in enumerate(candidates))
        return self._fill(
            {
                "query": query,
                "candidates": blocks,
                "count": len(candidates),
                "rubrics": self._context_text(rubrics, answer_key),
                "reply_format": json.dumps(self.reply_skeleton(nonce, k=len(candidates)), ensure_ascii=False),
            }
        )

    def render_rubrics(self, query: str, nonce: str) -> list[dict[str, str]]:
        """Chat messages asking the judge for query-specific rubric items."""
        return self._fill({"query": query, "reply_format": json.dumps(self.reply_skeleton(nonce), ensure_ascii=False)})


def make_nonce(*parts: str) -> str:
    """A 12-hex-digit tag derived from ``parts`` (template digest, query, candidate digests)."""
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode("utf-8", "surrogatepass"))
        h.update(b"\x1f")
    return h.hexdigest()[:12]


@cache
def _builtin(name: str, language: str) -> Template:
    return _from_file(TEMPLATE_DIR / f"{name}.{language}.yaml")


def _from_file(path: Path) -> Template:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read template file {path}: {exc.strerror}") from exc
    except yaml.YAMLError as exc:
        raise ConfigError(f"template file {path} is not valid YAML: {exc}") from exc
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
        raise ConfigError(
            f"unknown template {name_or_path!r}; built-in: {', '.join(BUILTIN_TEMPLATES)}, or a path to a YAML file"
        )
    if kind is not None and template.kind != kind:
        raise ConfigError(f"template {name_or_path!r} is a {template.kind} template where a {kind} one is needed")
    return template
