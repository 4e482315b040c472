"""No template shows words outside the catalogs: every visible text is in a trans block or _()."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

TEMPLATES = Path(__file__).resolve().parents[2] / "playtable" / "web" / "templates"
#: words that are the same in every language: the product's name
ALLOWED = {"Playtable"}
#: attributes a person reads or hears
VISIBLE_ATTRIBUTES = {"aria-label", "title", "alt", "placeholder", "aria-description", "label"}
LETTER = re.compile(r"[^\W\d_]", re.UNICODE)

JINJA = [
    re.compile(r"\{#.*?#\}", re.S),
    re.compile(r"\{%-?\s*trans\b.*?\{%-?\s*endtrans\s*-?%\}", re.S),
    re.compile(r"\{\{.*?\}\}", re.S),
    re.compile(r"\{%.*?%\}", re.S),
    re.compile(r"<script\b.*?</script>", re.S),
    re.compile(r"<style\b.*?</style>", re.S),
]


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            words = [w for w in (value or "").split() if LETTER.search(w) and w not in ALLOWED]
            if name in VISIBLE_ATTRIBUTES and words:
                self.found.append(f"<{tag} {name}={value!r}>")

    def handle_data(self, data: str) -> None:
        words = [w for w in data.split() if LETTER.search(w) and w not in ALLOWED]
        if words:
            self.found.append(" ".join(words))


def loose_text(source: str) -> list[str]:
    """The user-visible text of a template that is not handed to the catalogs."""
    for pattern in JINJA:
        source = pattern.sub(" ", source)
    parser = _Text()
    parser.feed(source)
    parser.close()
    return parser.found


@pytest.mark.parametrize(
    "path", sorted(TEMPLATES.rglob("*.html")), ids=lambda p: str(p.relative_to(TEMPLATES))
)
def test_templates_hold_no_text_outside_the_catalogs(path: Path) -> None:
    assert not loose_text(path.read_text("utf-8")), path.name


def test_the_scan_finds_loose_text() -> None:
    sample = """
    {# a comment with words #}
    <h1>{{ _("Rules") }}</h1>
    <p>{% trans n=3 %}Three {{ n }} lines{% endtrans %}</p>
    <p>Forgotten sentence</p>
    <button aria-label="Close">×</button>
    <img alt="{{ _('Board') }}">
    <span>Playtable</span> <span>4 × 4</span>
    """
    assert loose_text(sample) == ["Forgotten sentence", "<button aria-label='Close'>"]
