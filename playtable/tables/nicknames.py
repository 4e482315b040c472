"""The name a player chooses for the table: what is kept of what they typed."""

from __future__ import annotations

import unicodedata

NICKNAME_LENGTH = 24  # characters a nickname may have (the store's column)


def clean_nickname(text: str) -> str:
    r"""``text`` as a name to show the table: spaces folded, no control or format characters
    (no line breaks, no bidirectional overrides), at most :data:`NICKNAME_LENGTH` characters.

    The two joiners stay: the zero-width joiner makes one picture of an emoji sequence
    (a family, the rainbow flag) and the non-joiner is how Persian and the Indian scripts
    spell many words; a name of nothing but joiners is still no name.

    Characters that draw nothing (Hangul fillers, the blank Braille pattern) count as
    spaces, so a name cannot be invisible: one with nothing to see is no name.

    >>> clean_nickname("  Anna\u202e  the\n Great ")
    'Anna the Great'
    >>> clean_nickname("\u3164\u115f \u2800")
    ''
    """
    kept = "".join(
        " " if c in _BLANK else c
        for c in text
        if unicodedata.category(c)[0] != "C" or c in " \t\n" or c in _JOINERS
    )
    name = " ".join(kept.split())[:NICKNAME_LENGTH]
    return name if name.strip("".join(_JOINERS) + " ") else ""


#: Letters that draw nothing: the Hangul fillers and the blank Braille pattern.
_BLANK = frozenset("\u115f\u1160\u3164\uffa0\u2800")
#: The zero-width non-joiner and joiner: they draw nothing but change how their neighbours do.
_JOINERS = frozenset("\u200c\u200d")
