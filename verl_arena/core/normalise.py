# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Text as a reader sees it, for pattern matching: what a detector compares is the letters a judge would read, not
the code points a policy chose to hide them behind.

:func:`normalise` folds compatibility forms (fullwidth letters, ligatures, mathematical alphanumerics, circled letters:
Unicode's NFKC), drops what renders as nothing or only decorates a letter (zero-width spaces and joiners, the word
joiner, byte-order marks, soft hyphens, bidirectional controls, tag characters: category ``Cf``; the Hangul fillers
and the braille blank, letters that print nothing; combining marks, accents included: ``Mn`` and ``Me``; variation
selectors) and maps the common look-alikes of Latin letters, of the colon and of quotes (Cyrillic ``а``, Greek ``ο``,
Armenian ``օ``, Cherokee ``Ꭺ``, small capitals ``ᴊᴜᴅɢᴇ``, the ratio sign ``∶``, typographic quotes...) to the
character they imitate. An invisible character can hide a word two ways: inside it (``ver\u200bdict``: dropped, the
word is whole again) or in place of the space between two words (``ignore\u200bprevious``: dropped, the words run
together); ``normalise(text, spaced=True)`` turns the invisible characters into spaces instead, and a matcher reads
both (:mod:`~verl_arena.outcomes.hack_detectors`).

The look-alike table (:data:`CONFUSABLES`) is a small explicit one, chosen from the Unicode confusables list (UTS #39)
for the scripts a policy would borrow letters from; it is not UTS #39's full skeleton, which also merges Latin letters
with each other and with digits (``rn`` and ``m``, ``l`` and ``1``) and would change honest text.
(``confusable-homoglyphs``, the PyPI library over that data, tells whether text mixes look-alikes from other scripts but
does not map them back to the letters they imitate.)

Normalised text is for matching only: it drops accents and marks of every script (Devanagari vowel signs, Arabic
vowel marks), so it is never shown to a judge or a user. ASCII text is returned as it is, at no cost.
"""

from __future__ import annotations

import functools
import re
import unicodedata

__all__ = ["CONFUSABLES", "normalise", "readings"]

#: look-alikes of Latin letters, of the colon and of quotes -> what they imitate (see the module docstring)
CONFUSABLES: dict[str, str] = {
    # Cyrillic
    **dict(zip("аАВсСеЕһНіІјЈкКМоОрРѕЅТуУҮхХԁԛԚԝԜӏӀѴѵ", "aABcCeEhHiIjJkKMoOpPsSTyYYxXdqQwWlIVv", strict=True)),
    # Greek
    **dict(zip("αΑΒεΕΖΗιΙκΚΜΝνοΟρΡτΤυΥχΧϲϹϳͿγω", "aABeEZHiIkKMNvoOpPtTuYxXcCjJyw", strict=True)),
    # Armenian, Cherokee, Latin letters that pass for others
    **dict(zip("օսցհոᎪᏴᏟᎬᎻᎫᏦᎷᏢᏚᎢᏔᏃıȷɑɩɡʏ", "oughnABCEHJKMPSTWZijaigy", strict=True)),
    # small capitals (which NFKC leaves as they are)
    **dict(zip("ᴀʙᴄᴅᴇꜰɢʜɪᴊᴋʟᴍɴᴏᴘʀꜱᴛᴜᴠᴡᴢ", "abcdefghijklmnoprstuvwz", strict=True)),
    # colons and quotes
    **dict.fromkeys("∶꞉ːˑ˸։׃᠄⁚", ":"),
    **dict.fromkeys("‘’‚‛′", "'"),
    **dict.fromkeys("“”„‟", '"'),
}
#: what is left after NFKD of the characters most text is made of (ASCII, CJK ideographs and punctuation, kana and
#: their voicing marks, Hangul jamo), none of them a format character, a look-alike or a mark that NFKC does not put
#: back: the rest is looked at one distinct character at a time
_UNCOMMON = re.compile(r"[^\x00-\x7f\u1100-\u115e\u1161-\u11ff\u3000-\u3029\u3030-\u30ff\u3400-\u4dbf\u4e00-\u9fff]")
#: letters and symbols that print nothing (the Hangul fillers, which NFKD turns into U+1160, and the braille blank):
#: read as the format characters are
_BLANKS = frozenset("\u115f\u1160\u2800")


#: the look-alikes as NFKD leaves them (the lunate sigma ``ϲ`` becomes a final sigma)
_AFTER_NFKD = {unicodedata.normalize("NFKD", fake): real for fake, real in CONFUSABLES.items()}


@functools.lru_cache(maxsize=1 << 16)
def _fold(char: str, spaced: bool) -> str:
    """What one character reads as: nothing for a mark, nothing (a space if ``spaced``) for a format character or a
    blank, the letter a look-alike imitates."""
    category = unicodedata.category(char)
    if category == "Cf" or char in _BLANKS:
        return " " if spaced else ""
    if category in ("Mn", "Me"):
        return ""
    return _AFTER_NFKD.get(char, char)


def normalise(text: str, *, spaced: bool = False) -> str:
    """``text`` as a reader sees it (see the module docstring): NFKD, format characters, blanks and marks dropped
    (accents too; with ``spaced``, format characters and blanks become spaces), look-alikes mapped, NFKC (which puts
    together again what NFKD took apart and nothing dropped: Hangul syllables, kana with their voicing marks)."""
    if text.isascii():
        return text
    text = unicodedata.normalize("NFKD", text)
    return _folded(text, set(_UNCOMMON.findall(text)), spaced)


def readings(text: str) -> tuple[str, str | None]:
    """``normalise(text)``, and ``normalise(text, spaced=True)`` where ``text`` holds an invisible character (``None``
    where it holds none, and both readings are the same), for one decomposition of ``text``."""
    if text.isascii():
        return text, None
    text = unicodedata.normalize("NFKD", text)
    uncommon = set(_UNCOMMON.findall(text))
    invisible = any(_fold(char, True) == " " for char in uncommon)
    return _folded(text, uncommon, False), _folded(text, uncommon, True) if invisible else None


def _folded(decomposed: str, uncommon: set[str], spaced: bool) -> str:
    """``decomposed`` (NFKD) with its ``uncommon`` characters folded, recomposed (NFKC)."""
    for char in uncommon:
        folded = _fold(char, spaced)
        if folded != char:
            decomposed = decomposed.replace(char, folded)
    return unicodedata.normalize("NFKC", decomposed)
