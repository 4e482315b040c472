"""What the language tests need: the English text that must not show on a translated page."""

from __future__ import annotations

import functools
import re
from pathlib import Path

from babel.messages.pofile import read_po

I18N = Path(__file__).resolve().parents[2] / "playtable" / "i18n"
LANGUAGES = ("en", "fi", "cs", "ko")
PLACEHOLDER = re.compile(r"%\(\w+\)[sd]|<[^>]+>")


def prefixed(lang: str, path: str) -> str:
    return path if lang == "en" else f"/{lang}{path}"


@functools.cache
def english_fragments(lang: str) -> tuple[str, ...]:
    """Pieces of English text long enough to be unmistakable, from every message that the
    catalog of ``lang`` translates differently: if one shows, a translation is missing."""
    with (I18N / "locales" / lang / "LC_MESSAGES" / "messages.po").open("rb") as po:
        catalog = read_po(po, locale=lang)
    fragments: set[str] = set()
    for message in catalog:
        if not message.id:
            continue
        sources = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        for source in sources:
            if source in strings:
                continue  # the same in both languages (a citation, a name)
            for piece in PLACEHOLDER.split(source):
                piece = piece.strip(" .,:;")
                if len(piece) >= 14 and not any(piece in s for s in strings):
                    fragments.add(piece)
    return tuple(sorted(fragments))


def english_on_page(lang: str, text: str) -> list[str]:
    return [fragment for fragment in english_fragments(lang) if fragment in text]
