"""Build the compiled (mypyc) engine into a throwaway directory and run a command against it.

    python bench/compiled.py [--keep DIR] -- COMMAND [ARG ...]

It builds a wheel of the work tree exactly as ``PLAYTABLE_COMPILE=1 pip install .`` would (a
regular, isolated build; the tree is copied first so no ``build/`` is left in it), unpacks it
into a temporary directory and runs COMMAND with that directory first on ``PYTHONPATH`` and
``PLAYTABLE_EXPECT_COMPILED=1`` set, so the compiled ``playtable`` shadows the editable
install of the development virtual environment (its finder only answers what the path does
not). Everything is deleted afterwards, whatever happens, unless ``--keep DIR`` names a
directory to build in instead.

``make test-compiled`` runs ``tests/games`` this way, ``bench/engines.py --compiled`` the
benchmark; the tests check ``PLAYTABLE_EXPECT_COMPILED`` against the module they imported.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUILD_TIMEOUT = 900  # seconds: fetching mypy into the build environment, then the C compiler
# What a wheel is built from: the work tree as it is, less what is never part of a build.
_IGNORE = shutil.ignore_patterns(
    ".git",
    ".venv",
    "venv",
    "build",
    "dist",
    "var",
    "node_modules",
    "*.egg-info",
    "__pycache__",
    ".*_cache",
    ".hypothesis",
    "*.so",
)


def _log(message: str) -> None:
    print(f"compiled: {message}", file=sys.stderr, flush=True)


def build(workdir: Path) -> Path:
    """Build the compiled wheel of the work tree under ``workdir``; install it; its site dir."""
    source, wheels, site = workdir / "source", workdir / "wheels", workdir / "site"
    shutil.copytree(ROOT, source, ignore=_IGNORE)
    env = {**os.environ, "PLAYTABLE_COMPILE": "1"}
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--quiet"]
    _log(f"building the mypyc wheel in {workdir} (about a minute)")
    subprocess.run(
        [*pip, "wheel", "--no-deps", "--wheel-dir", str(wheels), str(source)],
        env=env,
        check=True,
        timeout=BUILD_TIMEOUT,
    )
    (wheel,) = wheels.glob("playtable-*.whl")
    if "-none-any" in wheel.name:
        raise RuntimeError(f"{wheel.name} is a pure-Python wheel: nothing was compiled")
    subprocess.run(
        [*pip, "install", "--no-deps", "--no-compile", "--target", str(site), str(wheel)],
        check=True,
        timeout=BUILD_TIMEOUT,
    )
    _log(f"built {wheel.name}")
    return site


@contextlib.contextmanager
def compiled_site(keep: Path | None = None) -> Iterator[Path]:
    """A directory holding the compiled package, deleted on exit unless ``keep`` is given."""
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        yield build(Path(tempfile.mkdtemp(prefix="build-", dir=keep)))
        return
    with tempfile.TemporaryDirectory(prefix="playtable-compiled-") as workdir:
        yield build(Path(workdir))


def compiled_env(site: Path) -> dict[str, str]:
    """The environment of a command that should import the compiled package from ``site``."""
    path = os.environ.get("PYTHONPATH")
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(site), *([path] if path else [])]),
        "PLAYTABLE_EXPECT_COMPILED": "1",
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, help="build here and keep it, not in a temp dir")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND [ARG ...]")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command to run: python bench/compiled.py -- COMMAND [ARG ...]")
    with compiled_site(args.keep) as site:
        return subprocess.run(command, env=compiled_env(site), check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
