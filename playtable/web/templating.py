"""Server-rendered pages: one Jinja2 environment per language, translated with Babel.

Every user-visible string goes through the catalogs in ``playtable/i18n/locales``: templates
use ``{% trans %}`` and ``_()``, and the strings the browser scripts show are rendered into the
page as a JSON block (see :mod:`playtable.web.client_strings`). English is the source language.

The catalogs are read from their ``.po`` files and compiled in memory when a language is first
used, so a fresh checkout needs no build step; ``make i18n`` keeps the ``.po`` files in step
with the sources.
"""

from __future__ import annotations

import functools
import gettext
import io
import os
import re
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jinja2
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import Translations
from starlette.requests import Request
from starlette.responses import HTMLResponse

import playtable
from playtable.web.modules import PageScripts
from playtable.web.static_files import fingerprint

WEB_DIR = Path(__file__).resolve().parent
TEMPLATES_DIR = WEB_DIR / "templates"
STATIC_DIR = WEB_DIR / "static"
LOCALES_DIR = WEB_DIR.parent / "i18n" / "locales"

DEFAULT_LANGUAGE = "en"

#: Each language by its own name, as the language switcher shows it (never translated).
LANGUAGE_NAMES = {"en": "English", "fi": "Suomi", "cs": "Čeština", "ko": "한국어"}


@functools.cache
def available_languages() -> tuple[str, ...]:
    """The languages that have a catalog, the source language first.

    Read from the folder once a process: every request asks (the language middleware), and
    listing the folder each time was 7% of the server's time under a flood of handshakes."""
    found = sorted(
        p.name for p in LOCALES_DIR.iterdir() if (p / "LC_MESSAGES" / "messages.po").is_file()
    )
    return (DEFAULT_LANGUAGE, *(lang for lang in found if lang != DEFAULT_LANGUAGE))


@functools.cache
def translations(lang: str) -> gettext.NullTranslations:
    """The catalog of ``lang``; untranslated text stays English.

    An installed package holds ``.mo`` files compiled by the build (``setup.py``); a source
    checkout compiles the ``.po`` file in memory, so it never runs stale compiled text.
    """
    po_path = LOCALES_DIR / lang / "LC_MESSAGES" / "messages.po"
    mo_path = po_path.with_suffix(".mo")
    if mo_path.is_file() and (
        not po_path.is_file() or mo_path.stat().st_mtime >= po_path.stat().st_mtime
    ):
        with mo_path.open("rb") as mo_file:
            return Translations(fp=mo_file, domain="messages")
    if not po_path.is_file():
        return gettext.NullTranslations()
    with po_path.open("rb") as po_file:
        catalog = read_po(po_file, locale=lang)
    buffer = io.BytesIO()
    write_mo(buffer, catalog)
    buffer.seek(0)
    return Translations(fp=buffer, domain="messages")


@functools.cache
def environment(lang: str) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES_DIR),
        autoescape=jinja2.select_autoescape(["html", "xml"], default_for_string=True),
        extensions=["jinja2.ext.i18n"],
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )
    env.install_gettext_translations(translations(lang), newstyle=True)  # type: ignore[attr-defined]
    env.globals["static"] = static_url
    env.policies["ext.i18n.trimmed"] = True
    return env


@functools.cache
def commit() -> str:
    """The short commit hash shown in the footer, computed once per process."""
    from_env = os.environ.get("PLAYTABLE_COMMIT", "").strip()
    if from_env:
        return from_env[:12]
    try:
        result = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=WEB_DIR,
            capture_output=True,
            text=True,
            timeout=5,
            check=True,
        )
    except (OSError, subprocess.SubprocessError):
        return "dev"
    return result.stdout.strip() or "dev"


def static_url(path: str) -> str:
    """The address of a static file, with a fingerprint of its content in the query: kept
    for a year by browsers, and a new address as soon as the file changes
    (:mod:`playtable.web.static_files`)."""
    return f"/static/{path}?v={fingerprint(STATIC_DIR / path)}"


def language_of(request: Request) -> str:
    """The page language: set by a language-prefix middleware on ``request.state``, if any.

    This is the one place the render context gets ``lang`` from.
    """
    lang = getattr(request.state, "lang", None)
    if isinstance(lang, str) and lang in available_languages():
        return lang
    return DEFAULT_LANGUAGE


def page_path(request: Request) -> str:
    """The address of the page without its language prefix (set by the language middleware)."""
    path = getattr(request.state, "page_path", None)
    return path if isinstance(path, str) else request.url.path


# Seat and invitation links carry a secret in their path; an error page shown for one must not
# repeat it in its links to the other languages, so those point at the table instead. The
# invitation's own page keeps it (``request.state.shows_invitation``): its reader holds it, and
# a friend who switched to their language lost the button that seats them.
_SECRET_LINK = re.compile(r"^(/t/[^/]+)/(?:seat|join)/[^/]+/?$")


# Pages answered to a form's POST have no address of their own: their links to the other
# languages lead to the page the form is on (a refused home form was shown at /tables, and
# its switcher led to "/fi/tables", which only takes a POST; My games' link for another
# device, to "/fi/games/carry").
_FORM_PAGES = {"/tables": "/", "/games/carry": "/games"}


def language_links(request: Request) -> list[dict[str, str]]:
    """The same page in every language: for the switcher and the hreflang alternates."""
    path = page_path(request)
    secret = _SECRET_LINK.match(path)
    if secret and not getattr(request.state, "shows_invitation", False):
        path = secret.group(1)
    path = _FORM_PAGES.get(path, path)
    query = request.url.query
    links = []
    for lang in available_languages():
        if lang == DEFAULT_LANGUAGE:
            href = path
            # the bare home page negotiates: an explicit choice of English must say so
            switch = path + "?" + "&".join(p for p in (query, "lang=en") if p)
        else:
            href = f"/{lang}{path}"
            switch = href + (f"?{query}" if query else "")
        links.append(
            {
                "lang": lang,
                "name": LANGUAGE_NAMES.get(lang, lang),
                "href": str(request.base_url).rstrip("/") + href,
                "switch": switch,
            }
        )
    return links


def page_url(request: Request, path: str) -> str:
    """A link to one of the site's pages, in the request's language.

    A language-prefix middleware sets ``request.state.url_prefix`` (for example ``"/fi"``);
    without one, paths are used as they are.
    """
    prefix = getattr(request.state, "url_prefix", "")
    return f"{prefix}{path}" if isinstance(prefix, str) else path


def gettext_for(request: Request) -> gettext.NullTranslations:
    """The translations of the request's language, for strings built in Python code."""
    return translations(language_of(request))


def render(
    request: Request,
    name: str,
    context: Mapping[str, Any] | None = None,
    *,
    status_code: int = 200,
    headers: Mapping[str, str] | None = None,
) -> HTMLResponse:
    """Render the template ``name`` in the request's language."""
    lang = language_of(request)
    full_context: dict[str, Any] = {
        "request": request,
        "lang": lang,
        "version": playtable.__version__,
        "commit": commit(),
        # the release, as the footer shows it: a version number is the same in every language
        "release": f"v{playtable.__version__} · {commit()}",
        "nav": None,
        "languages": language_links(request),
        "url": lambda path: page_url(request, path),
    }
    scripts = PageScripts()  # module_script("js/x.js"): the entry, its imports, their map
    full_context["module_script"] = scripts
    if context:
        full_context.update(context)
    html = environment(lang).get_template(name).render(full_context)
    response_headers = dict(headers or {})
    policy = scripts.policy()
    if policy:
        response_headers["content-security-policy"] = policy
    return HTMLResponse(html, status_code=status_code, headers=response_headers)
