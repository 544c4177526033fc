# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Can the judge judge at all? One tiny comparison, in both orders, before a run spends anything on it.

Reachability (:mod:`~verl_arena.judges.preflight`) says a server answers; it does not say the model behind it can
give a verdict in the configured template. A model that answers every prompt with prose, cuts every reply at
``max_tokens`` or never writes the verdict's JSON would otherwise be found only after a run of failed judgments, each
asked again and traced. :func:`check_competence` asks every endpoint one tiny comparison (a clear answer against a
non-answer, a few dozen tokens each) in the configured template, once in each order, with the room a re-ask has, and
reads the reply exactly as a judgment's. Both replies must be verdicts; what came back otherwise is said in words
(cut at ``max_tokens``, no verdict in the reply, the wrong verdict id, an empty reply) with its first characters. A
verdict for the non-answer only warns: a judge that follows the slot is still a judge (order swapping cancels it), and
the audit measures it.

A passing endpoint is remembered in a small file under the user's cache directory, by endpoint, model, template,
language and reply budget, so a second run (or a second reward worker) asks nothing. ``competence_check: false`` in the
judge configuration, or ``--no-preflight``, skips the check.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import hashlib
import json
import os
import tempfile
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from verl_arena.core.errors import ConfigError, JudgeError
from verl_arena.core.types import Candidate
from verl_arena.judges.causes import reason_words
from verl_arena.judges.config import EndpointConfig, JudgeConfig, parse_judge_config
from verl_arena.judges.http import ChatClient
from verl_arena.judges.parsing import ParseError, parse_pairwise
from verl_arena.judges.preflight import addressed_endpoints
from verl_arena.judges.templates import Template, load_template, make_nonce

__all__ = ["CACHE_ENV", "Competence", "check_competence", "require_competence"]

#: the environment variable naming the file that remembers passing endpoints (default: under ``~/.cache``)
CACHE_ENV = "VERL_ARENA_COMPETENCE_CACHE"
#: the tiny comparison: a query, a clear answer and a non-answer, per language
_TASK = {
    "en": (
        "What is 2 + 3? Answer with the number.",
        Candidate("clear", "2 + 3 = 5. The answer is 5.", "Added 2 and 3."),
        Candidate("non-answer", "I am not sure what you are asking.", ""),
    ),
    "zh": (
        "2 加 3 等于几？请回答这个数。",
        Candidate("clear", "2 + 3 = 5。答案是 5。", "把 2 和 3 相加。"),
        Candidate("non-answer", "我不确定你在问什么。", ""),
    ),
}


@dataclass(frozen=True)
class Competence:
    """What one endpoint did with the tiny comparison.

    Args:
        base_url, model: the endpoint.
        judged: both orders gave a verdict.
        cause: why not, in words with what came back; for a judged one, ``""`` or a warning (the non-answer won).
        cached: the result was remembered from an earlier check (no request).
        checked: the comparison was asked (its requests did not fail); an unchecked endpoint passes, unremembered.
        requests: the requests it sent.
        usage: the tokens the server reported for them (``prompt_tokens``, ``completion_tokens``).
    """

    base_url: str
    model: str
    judged: bool
    cause: str
    cached: bool = False
    checked: bool = True
    requests: int = 0
    usage: dict[str, int] = field(default_factory=dict)

    def describe(self) -> str:
        """``http://host/v1 (model m): cause`` for one line of a message."""
        return f"{self.base_url} (model {self.model}): {self.cause}"


def _cache_file() -> Path:
    return Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "verl-arena" / "competence.json")


def _key(endpoint: EndpointConfig, config: JudgeConfig, template: Template) -> str:
    what = [endpoint.base_url, endpoint.model, template.digest, config.language, config.graded, _room(config)]
    return hashlib.sha256(json.dumps(what, default=str).encode()).hexdigest()[:32]


def _room(config: JudgeConfig) -> int:
    return max(config.max_tokens, min(config.reask_room, config.context_tokens // 2))


def _remembered() -> dict[str, Any]:
    with contextlib.suppress(OSError, ValueError):
        found = json.loads(_cache_file().read_text(encoding="utf-8"))
        return found if isinstance(found, dict) else {}
    return {}


def _remember(passed: Mapping[str, str]) -> None:
    """Add the passing endpoints' keys, each with its warning (``""``: none), to the cache file (written whole and
    renamed: readers never see half of it)."""
    if not passed:
        return
    path = _cache_file()
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        known = {**_remembered(), **passed}
        with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False, suffix=".tmp", encoding="utf-8") as f:
            json.dump(known, f)
        os.replace(f.name, path)


def _what_came_back(error: BaseException, text: str, finish: str | None, room: int) -> str:
    """The cause of an unusable reply, in words, with its first characters."""
    shown = " ".join(text.split())[:120]
    quoted = f": {shown!r}" if shown else ""
    if finish == "length":
        return f"its reply was cut at max_tokens ({room} reply tokens) before the verdict{quoted}"
    if not text.strip():
        return "its reply was empty"
    return f"its reply is not a verdict in the template's format ({error}){quoted}"


class _NotAsked(Exception):
    """The comparison's request failed (the endpoint's trouble, which reachability judges): competence is not
    checked."""


async def _one_order(
    client: ChatClient, config: JudgeConfig, template: Template, first: Candidate, second: Candidate
) -> tuple[str | None, str | None]:
    """One order of the comparison: the winner's id (``None`` for a tie) or the cause of an unusable reply;
    ``_NotAsked`` when the request itself failed."""
    query = _TASK[config.language][0]
    verdict_id = make_nonce(template.digest, query, "competence", first.id)
    graded = config.graded != "off"
    messages = template.render_pairwise(query, first, second, verdict_id, graded=graded)
    room = _room(config)
    try:
        reply = await client.chat(messages, max_tokens=room, seed=config.seed)
    except JudgeError as exc:
        raise _NotAsked(f"{reason_words(exc.reason)}: {exc}") from exc
    if reply.finish_reason == "length":
        return None, _what_came_back(ParseError("cut"), reply.text, "length", room)
    try:
        scores = parse_pairwise(reply.text, template, verdict_id, graded=graded)
    except ParseError as exc:
        return None, _what_came_back(exc, reply.text, reply.finish_reason, room)
    if scores.score_a == scores.score_b:
        return None, None
    return (first.id if scores.score_a > scores.score_b else second.id), None


async def _check(endpoint: EndpointConfig, config: JudgeConfig, template: Template) -> Competence:
    url, model = str(endpoint.base_url), str(endpoint.model)
    retry = config.retry.model_copy(update={"max_attempts": 2})
    one = config.model_copy(update={"endpoints": [endpoint], "retry": retry})
    client = ChatClient(one)
    _, clear, vague = _TASK[config.language]
    not_asked: str | None = None
    try:
        (w1, c1), (w2, c2) = await asyncio.gather(
            _one_order(client, one, template, clear, vague), _one_order(client, one, template, vague, clear)
        )
    except _NotAsked as exc:
        w1 = w2 = c1 = c2 = None
        not_asked = str(exc)
    finally:
        await client.aclose()
    stats = client.stats()
    tokens = {k: int(stats[k]) for k in ("prompt_tokens", "completion_tokens")}
    spent: dict[str, Any] = {"requests": int(stats["sent"]), "usage": tokens}
    if not_asked is not None:  # its requests failed: the run's own retries and counts will say more
        cause = f"the tiny comparison could not be asked ({not_asked})"
        return Competence(url, model, True, cause, checked=False, **spent)
    if c1 or c2:
        return Competence(url, model, False, f"in a tiny comparison, {c1 or c2}", **spent)
    if (w1, w2) != ("clear", "clear"):
        said = {None: "a tie", "clear": "the clear answer", "non-answer": "the non-answer"}
        warning = (
            f"it gave verdicts, but preferred {said[w1]} shown first and {said[w2]} shown second over a clear answer "
            "and a non-answer: check its position bias and what it reads with `verl-arena audit`"
        )
        return Competence(url, model, True, warning, **spent)
    return Competence(url, model, True, "", **spent)


async def check_competence(
    config: JudgeConfig | Mapping[str, Any], answering: Collection[tuple[str, str]] | None = None
) -> list[Competence]:
    """The tiny comparison asked of every endpoint of ``config`` (an ensemble's members' too) that has not passed it
    before, all at once; what each did, in the configuration's order. ``answering``: the ``(base_url, model)`` of the
    endpoints to ask (those that answered the reachability request; default: all). Nothing for a judge configured with
    ``competence_check: false``. Never raises for an endpoint's trouble."""
    cfg = parse_judge_config(config)
    if not cfg.competence_check:
        return []
    known = _remembered()
    out: list[Competence | None] = []
    todo: list[tuple[int, str, Any]] = []
    for endpoint, member in addressed_endpoints(cfg, per_template=True):
        if answering is not None and (str(endpoint.base_url), str(endpoint.model)) not in answering:
            continue
        template = load_template(member.template, member.language, kind="pairwise")
        key = _key(endpoint, member, template)
        if isinstance(known.get(key), str):
            out.append(Competence(str(endpoint.base_url), str(endpoint.model), True, known[key], cached=True))
            continue
        todo.append((len(out), key, _check(endpoint, member, template)))
        out.append(None)
    checked = await asyncio.gather(*(work for _, _, work in todo))
    for (index, _, _), result in zip(todo, checked, strict=True):
        out[index] = result
    results = zip(todo, checked, strict=True)
    _remember({key: result.cause for (_, key, _), result in results if result.judged and result.checked})
    return [r for r in out if r is not None]


def require_competence(config: JudgeConfig | Mapping[str, Any]) -> list[Competence]:
    """:func:`check_competence` from synchronous code (a trainer's start; in a thread of its own, so that it runs
    whether or not the caller is inside an event loop). Raises ``ConfigError`` naming each endpoint that gave no
    verdict and what came back; returns the checks (warnings included)."""
    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="verl-arena-competence") as pool:
        checks = pool.submit(asyncio.run, check_competence(config)).result()
    failed = [c for c in checks if not c.judged]
    if failed:
        said = "; ".join(c.describe() for c in failed)
        raise ConfigError(
            f"the judge cannot judge: {said} (use a model that follows the template, or more max_tokens; "
            "judge.competence_check=false skips this check)"
        )
    return checks
