"""A page's script modules, each at its fingerprinted address, all asked for at once.

A page names its entry module (``js/table.js``) with a fingerprint of its content, like
every static file (``static_files.py``), but the modules it imports are named by the
modules themselves (``import ... from "./board.js"``): without more, the browser asked for
each one without a fingerprint, which the server must answer ``no-cache``, so every visit
revalidated each module (the table page imports 22) before running any, and the first visit
found them one level of imports at a time. :func:`module_script` writes, for the entry:

- an import map from each module's plain address to its fingerprinted one, so every module
  is kept for a year and a new release changes exactly the addresses whose content changed;
- a ``modulepreload`` link for every module the entry imports, however deep, so the browser
  asks for them all at once instead of discovering them level by level;
- the entry's own ``<script type="module">``, after ``js/scripts_failed.js``, which loads
  the page again (at most once in 30 s) if the entry or a module it imports could not be
  loaded: a process of the other release answers 404 to this one's addresses
  (``static_files.py``), and the page stayed at 'Loading the board…'.

The import map is an inline script, which the site's Content-Security-Policy (``script-src
'self'``) would refuse: the page's response carries the policy with the map's SHA-256 added
(:func:`policy`), and nothing else inline runs.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from markupsafe import Markup

from playtable.web.security import CONTENT_SECURITY_POLICY
from playtable.web.static_files import fingerprint

STATIC_DIR = Path(__file__).with_name("static")
# The relative imports of a module: `import {a} from "./x.js"`, `export ... from "./x.js"`,
# `import "./x.js"`, and the dynamic `import("./x.js")` (mapped, but not preloaded: it may
# never be wanted).
STATIC_IMPORT = re.compile(r'(?:\bfrom|\bimport)\s*"(\./[\w./-]+\.js)"')
DYNAMIC_IMPORT = re.compile(r'\bimport\(\s*"(\./[\w./-]+\.js)"\s*\)')
# The module of translated strings: a placeholder in the static folder, mapped to the
# page's language's own module (web/script_strings.py).
STRINGS = "js/strings.js"
# Before every entry: what loads the page again when the entry's modules cannot be loaded.
FAILED = "js/scripts_failed.js"


def _address(path: str) -> str:
    """``js/board.js`` -> ``/static/js/board.js`` (the static mount's plain address)."""
    return "/static/" + path


def _fingerprinted(path: str) -> str:
    return f"{_address(path)}?v={fingerprint(STATIC_DIR / path)}"


@functools.lru_cache(maxsize=256)
def _imports(path: str, version: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(static, dynamic) imports of the module ``path`` (relative to the static folder) at
    its content ``version``: read once per version of the file."""
    text = (STATIC_DIR / path).read_text(encoding="utf-8")
    folder = Path(path).parent

    def resolve(found: list[str]) -> tuple[str, ...]:
        return tuple(
            dict.fromkeys((folder / name).as_posix().replace("/./", "/") for name in found)
        )

    return resolve(STATIC_IMPORT.findall(text)), resolve(DYNAMIC_IMPORT.findall(text))


def graph(entry: str) -> tuple[list[str], list[str]]:
    """The modules ``entry`` imports statically, however deep (in the order first met), and
    those only imported dynamically."""
    static: dict[str, None] = {}
    dynamic: dict[str, None] = {}
    todo = [entry]
    while todo:
        path = todo.pop(0)
        found, later = _imports(path, fingerprint(STATIC_DIR / path))
        for name in found:
            if name != entry and name not in static:
                static[name] = None
                todo.append(name)
        dynamic.update(dict.fromkeys(later))
    return list(static), [name for name in dynamic if name not in static and name != entry]


@dataclass
class PageScripts:
    """The module scripts of one page being rendered, and the hashes its policy needs."""

    hashes: list[str] = field(default_factory=list)

    def __call__(self, entry: str, strings: str | None = None) -> Markup:
        """The page's scripts from ``entry``; ``strings``: the address of the module of
        translated strings (``web/script_strings.py``) that ``js/strings.js`` stands for."""
        preload, dynamic = graph(entry)
        script = Markup(
            '<script type="module" src="{}"></script>\n'
            '<script type="module" src="{}" data-entry></script>'
        ).format(_fingerprinted(FAILED), _fingerprinted(entry))
        if not preload and not dynamic:
            return script  # a module that imports nothing needs no map
        addresses = {path: _fingerprinted(path) for path in [entry, *preload, *dynamic]}
        if strings is not None and STRINGS in addresses:
            addresses[STRINGS] = strings
        imports = {_address(path): address for path, address in addresses.items()}
        text = json.dumps({"imports": imports}, separators=(",", ":"))
        digest = base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()
        self.hashes.append(f"'sha256-{digest}'")
        parts = [Markup('<script type="importmap">{}</script>').format(Markup(text))]
        parts += [
            Markup('<link rel="modulepreload" href="{}">').format(addresses[path])
            for path in preload
        ]
        parts.append(script)
        return Markup("\n").join(parts)

    def policy(self) -> str | None:
        """The site's Content-Security-Policy allowing this page's import maps, or None if
        the page has none (the site's own policy applies)."""
        if not self.hashes:
            return None
        allowed = "script-src 'self' " + " ".join(self.hashes)
        return CONTENT_SECURITY_POLICY.replace("script-src 'self'", allowed, 1)
