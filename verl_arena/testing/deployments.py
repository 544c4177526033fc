# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""How real judge deployments reshape a reply, for the mock judge: pure functions over the prompt and the reply.

A deployment counts tokens its own way (``bytes_per_token``), refuses prompts beyond its context, takes longer on long
prompts, may think aloud before its verdict (quoting the candidates), may quote a candidate after its verdict, and
cuts whatever it writes at ``max_tokens``; with prefix caching it reuses the leading blocks of tokens a prompt shares
with earlier ones (:func:`token_stream` is what it caches). It may count tokens like a BPE on English
(:func:`word_tokens`), garble the verdict ids of some prompts (:func:`miscopies`, :func:`miscopied`), write one fixed
verdict id whatever it is asked (:func:`with_verdict_id`) or obey a verdict written in a candidate's text
(:func:`obeyed`). None of this needs a model: the verdict itself still comes from the lexical judge. The shapes are
what providers and self-hosted servers do; the words are ours.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from verl_arena.judges.parsing import json_objects

__all__ = [
    "Shaping",
    "blocks",
    "garbage",
    "miscopied",
    "miscopies",
    "obeyed",
    "overflow_message",
    "shape_reply",
    "token_stream",
    "tokens",
    "with_verdict_id",
    "word_tokens",
]

_BLOCK = re.compile(r"<<<CANDIDATE (\S+) (\w+)>>>\n(.*?)\n<<<END CANDIDATE \1 \2>>>", re.S)
_ANSWER = re.compile(r"\n\[(?:Final answer|最终答案)\]\n(.*)\Z", re.S)
_WORDS = [
    "the",
    "a",
    "plan",
    "of",
    "judge",
    "score",
    "reply",
    "tokens",
    "and",
    "then",
    "which",
    "because",
    "model",
    "output",
    "value",
]


@dataclass(frozen=True)
class Shaping:
    """What the deployment does to a reply.

    Args:
        bytes_per_token: how densely its tokenizer packs UTF-8 bytes.
        thinking: tokens of reasoning written per prompt token before the verdict (0: none).
        quote_b: after its verdict, it quotes candidate B's answer.
    """

    bytes_per_token: float = 3.0
    thinking: float = 0.0
    quote_b: bool = False


def tokens(text: str, bytes_per_token: float) -> int:
    """Tokens of ``text`` for a tokenizer packing ``bytes_per_token`` bytes per token."""
    return math.ceil(len(text.encode("utf-8", "surrogatepass")) / bytes_per_token)


_LETTERS = re.compile(r"[A-Za-z]+")
_VERDICT_ID = re.compile(r'("verdict_id":\s*")([0-9a-f]+)(")')


def word_tokens(text: str) -> int:
    """Tokens of ``text`` for a tokenizer shaped like a BPE's on English: a token per five letters of a word (rounded
    up), a token per digit, mark, line break and character beyond ASCII; spaces ride along with the next word. English
    prose comes to about five bytes a token, a timetable dense in digits to about one."""
    words = _LETTERS.findall(text)
    letters = sum(len(w) for w in words)
    spaces = text.count(" ") + text.count("\t")
    return sum(-(-len(w) // 5) for w in words) + len(text) - letters - spaces


def miscopied(reply: str) -> str:
    """``reply`` with its verdict id miscopied (each hex digit shifted by one), as a judge that garbles ids would."""
    shift = str.maketrans("0123456789abcdef", "123456789abcdef0")
    return _VERDICT_ID.sub(lambda m: m.group(1) + m.group(2).translate(shift) + m.group(3), reply, count=1)


def with_verdict_id(reply: str, verdict_id: str) -> str:
    """``reply`` with its verdict id replaced by ``verdict_id``, as a judge that copies a fixed id from a prompt of its
    own (an example in its system prompt, a fine-tune's habit) writes it whatever it is asked."""
    return _VERDICT_ID.sub(lambda m: m.group(1) + verdict_id + m.group(3), reply, count=1)


def miscopies(prompt: str, rate: float) -> bool:
    """Whether a judge that miscopies the verdict ids of a ``rate`` share of prompts miscopies this one's (a pure
    function of the prompt)."""
    if rate <= 0:
        return False
    digest = hashlib.blake2b(prompt.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "little") / 2**64 < rate


def obeyed(prompt: str) -> str | None:
    """The last verdict (a JSON object carrying a ``verdict_id``) written in a candidate's block, as a judge that obeys
    it replies; ``None`` when no candidate wrote one."""
    written = [o for block in blocks(prompt).values() for o in json_objects(block) if "verdict_id" in o]
    return json.dumps(written[-1]) if written else None


def token_stream(messages: Sequence[Mapping[str, Any]], bytes_per_token: float) -> list[str | bytes]:
    """A chat prompt as the deployment's tokens, for its prefix cache: each message's role, then its content in
    pieces of ``bytes_per_token`` bytes (rounded up), so two prompts share tokens exactly as far as they share
    bytes, to the piece."""
    step = max(1, math.ceil(bytes_per_token))
    out: list[str | bytes] = []
    for m in messages:
        data = str(m.get("content", "")).encode("utf-8", "surrogatepass")
        out.append(str(m.get("role", "")))
        out += [data[i : i + step] for i in range(0, len(data), step)]
    return out


def blocks(prompt: str) -> dict[str, str]:
    """The candidate blocks of one of our prompts: label (``A``, ``B``, ``1``...) -> the block's text."""
    return {label: body for label, _tag, body in _BLOCK.findall(prompt)}


def _answer(block: str) -> str:
    found = _ANSWER.search(block)
    return found.group(1).strip() if found else block


def _cut(text: str, limit_tokens: int, bytes_per_token: float) -> str:
    data = text.encode("utf-8")[: int(limit_tokens * bytes_per_token)]
    return data.decode("utf-8", "ignore")


def shape_reply(reply: str, prompt: str, prompt_tokens: int, max_tokens: int, shaping: Shaping) -> tuple[str, str]:
    """``(content, finish_reason)`` of the deployment's answer whose verdict is ``reply``."""
    found = blocks(prompt)
    content = reply
    if shaping.quote_b and "B" in found:
        content += f"\n\nFor the record, candidate B's answer was:\n{_answer(found['B'])}"
    if shaping.thinking > 0:
        budget = int(shaping.thinking * prompt_tokens * shaping.bytes_per_token)  # bytes of thinking
        notes, quoted = [], ""
        for label, block in sorted(found.items()):
            notes.append(f"Rereading candidate {label}: {_answer(block)}")
        while len(quoted.encode()) < budget and notes:
            quoted += " ".join(notes) + " "
        content = f"<think>\n{quoted[:budget]}\n</think>\n{content}"
    if tokens(content, shaping.bytes_per_token) > max_tokens:
        return _cut(content, max_tokens, shaping.bytes_per_token), "length"
    return content, "stop"


def garbage(max_tokens: int, seed: int, bytes_per_token: float) -> str:
    """What a tiny random model writes: words without a verdict, until ``max_tokens`` cuts it."""
    rng = np.random.default_rng(seed)
    words = " ".join(_WORDS[i] for i in rng.integers(0, len(_WORDS), size=max_tokens))
    return _cut(words, max_tokens, bytes_per_token)


def overflow_message(context: int, prompt_tokens: int, max_tokens: int) -> str:
    """A server's refusal of a request beyond its context."""
    return (
        f"This model's maximum context length is {context} tokens, but the request needs {prompt_tokens + max_tokens} "
        f"({prompt_tokens} for the messages and {max_tokens} for the completion). Please reduce the length of the "
        "messages or of the completion."
    )
