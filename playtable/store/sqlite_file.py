"""The SQLite file a store opened, checked before each commit.

A process keeps writing into a database file that was deleted or replaced while it ran (an
operator's ``rm -rf var/``, a backup copied over it): SQLite's open descriptors still work,
every move is acknowledged, and all of it is gone at the next start. So the store notes the
file's identity (device and inode) when it first opens it, and before each commit checks
that the path still names that file: if not, the write is refused (and rolled back), the
player is told it failed, and the heartbeat's failure makes the process not ready
(``/readyz``), until an operator restarts it on the file that is there. No connection is
opened at the path meanwhile (``engines.sqlite_engine``): it would create an empty database
there, and reset the write-ahead log the old file's open connections still read.
"""

from __future__ import annotations

import os


class DatabaseFileGone(RuntimeError):
    """The SQLite file this process writes to is no longer at its path."""


class SqliteFile:
    def __init__(self, path: str) -> None:
        self.path = os.path.abspath(path)
        self._identity: tuple[int, int] | None = None

    def opened(self) -> None:
        """A connection was opened on the path: the first one fixes the file's identity."""
        if self._identity is None:
            status = os.stat(self.path)
            self._identity = (status.st_dev, status.st_ino)

    def check(self) -> None:
        """Raise :class:`DatabaseFileGone` unless the path still names the opened file."""
        if self._identity is None:
            return
        try:
            status = os.stat(self.path)
        except FileNotFoundError:
            raise DatabaseFileGone(
                f"the database file {self.path} was deleted while the server ran; nothing "
                "more is stored until the server is restarted"
            ) from None
        if (status.st_dev, status.st_ino) != self._identity:
            raise DatabaseFileGone(
                f"the database file {self.path} was replaced while the server ran; nothing "
                "more is stored until the server is restarted"
            )


__all__ = ["DatabaseFileGone", "SqliteFile"]
