"""Files holding a key made on first use (the server secret, the VAPID key pair), safe when
several processes start at once: each reads a whole key, the same one.

The key is written whole under another name and linked into place (``link`` fails if a
file is already there), so nobody ever reads a file half-written, and a process that dies
while writing leaves no empty key behind. A file found empty (left by an older release's
writer) is read again for a while before it is taken as it is.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import time
from collections.abc import Callable
from pathlib import Path

RETRIES = 50  # reads of an empty file, RETRY_S apart
RETRY_S = 0.1


def made_once(path: Path, make: Callable[[], bytes]) -> bytes:
    """The content of ``path``, made by ``make`` by whichever process gets there first."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        draft = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
        fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(make())
                handle.flush()
                os.fsync(handle.fileno())
            with contextlib.suppress(FileExistsError):
                os.link(draft, path)  # fails if another process linked its own first
        finally:
            draft.unlink()
    content = b""
    for _ in range(RETRIES):
        content = path.read_bytes()
        if content.strip():
            break
        time.sleep(RETRY_S)
    return content


__all__ = ["made_once"]
