# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""A real LLM tokenizer for counting judge prompt tokens, offline.

No model hub is reachable from a test machine, so the tokenizer must come from a package:

- ``qwen``: Qwen's byte-level BPE (151,643 tokens; the vocabulary Qwen2, Qwen2.5 and Qwen3 share), read from the file
  the ``dashscope`` package ships (``dashscope/resources/qwen.tiktoken``) and run by ``tiktoken``. Install both with
  ``pip install "verl-arena[tokens]"``. The pre-tokenizer pattern is Qwen's own; prompts are rendered with Qwen's
  chat markers (ChatML), so the counts are those of a Qwen judge served by vLLM or SGLang.
- ``tiny``: the fallback, a small byte-level BPE trained offline on a travel-planning corpus
  (:func:`verl_arena.integrations.verl.cpu.tiny_model.build_tokenizer`). It splits text into many more tokens than a
  real vocabulary does, so its counts are too high; shares of a prefix cache are close, since they depend on where
  prompts diverge.

:func:`load_tokenizer` says which one it loaded (``BenchTokenizer.name``); reports name it.
"""

from __future__ import annotations

import base64
import functools
import importlib.util
import logging
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["TOKENIZERS", "BenchTokenizer", "load_tokenizer", "qwen_bpe_path"]

logger = logging.getLogger(__name__)

TOKENIZERS = ("auto", "qwen", "tiny")
#: Qwen's pre-tokenizer: contractions, letters with one leading non-letter, single digits, punctuation runs, newlines
_QWEN_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)
_QWEN_SPECIALS = ("<|endoftext|>", "<|im_start|>", "<|im_end|>")
_QWEN_FIRST_SPECIAL = 151_643


@dataclass(frozen=True)
class BenchTokenizer:
    """A tokenizer and how it renders chat prompts.

    Args:
        name: what it is, for reports.
        encode: text (chat markers included) to token ids.
    """

    name: str
    encode: Callable[[str], list[int]]

    def chat(self, messages: Sequence[Mapping[str, Any]]) -> list[int]:
        """The tokens of a chat prompt as a ChatML server prefills it (with the assistant turn opened)."""
        text = "".join(f"<|im_start|>{m.get('role', '')}\n{m.get('content', '')}<|im_end|>\n" for m in messages)
        return self.encode(text + "<|im_start|>assistant\n")

    def count(self, text: str) -> int:
        """Tokens of ``text``."""
        return len(self.encode(text))


def qwen_bpe_path() -> Path | None:
    """Where the installed ``dashscope`` package keeps Qwen's BPE ranks, or ``None`` (found without importing it)."""
    spec = importlib.util.find_spec("dashscope")
    if spec is None or spec.origin is None:
        return None
    path = Path(spec.origin).parent / "resources" / "qwen.tiktoken"
    return path if path.is_file() else None


@functools.cache
def _qwen() -> BenchTokenizer:
    import tiktoken

    path = qwen_bpe_path()
    if path is None:
        raise ImportError("the dashscope package (which ships Qwen's qwen.tiktoken) is not installed")
    ranks = {}
    for line in path.read_text(encoding="ascii").splitlines():
        if line.strip():
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    specials = {token: _QWEN_FIRST_SPECIAL + i for i, token in enumerate(_QWEN_SPECIALS)}
    encoding = tiktoken.Encoding("qwen", pat_str=_QWEN_PATTERN, mergeable_ranks=ranks, special_tokens=specials)
    return BenchTokenizer(
        f"Qwen BPE ({len(ranks):,} tokens, dashscope's qwen.tiktoken via tiktoken)",
        functools.partial(encoding.encode, allowed_special="all"),
    )


@functools.cache
def _tiny() -> BenchTokenizer:
    from tokenizers import Tokenizer

    from verl_arena.integrations.verl.cpu.tiny_model import build_tokenizer

    with tempfile.TemporaryDirectory(prefix="verl-arena-tokenizer-") as tmp:
        tokenizer = Tokenizer.from_file(str(build_tokenizer(tmp) / "tokenizer.json"))
    size = tokenizer.get_vocab_size()

    def encode(text: str) -> list[int]:
        return tokenizer.encode(text, add_special_tokens=False).ids

    return BenchTokenizer(f"tiny byte-level BPE ({size} tokens, trained offline; fallback)", encode)


def load_tokenizer(which: str = "auto") -> BenchTokenizer:
    """The tokenizer ``which`` names: ``qwen``, ``tiny``, or ``auto`` (Qwen's where its packages are installed,
    else the tiny fallback, with a warning)."""
    if which not in TOKENIZERS:
        raise ValueError(f"tokenizer must be one of {', '.join(TOKENIZERS)}, got {which!r}")
    if which == "tiny":
        return _tiny()
    try:
        return _qwen()
    except ImportError as exc:
        if which == "qwen":
            raise ImportError(f'Qwen\'s tokenizer needs `pip install "verl-arena[tokens]"` ({exc})') from exc
        logger.warning("Qwen's tokenizer is not installed (%s): counting with the tiny fallback BPE", exc)
        return _tiny()
