"""An outage in the log: said when it begins (with its traceback) and when it ends, not at
every failed try (docs/deploy.md). Redis or the database away for a minute otherwise wrote
thousands of tracebacks: one per retry, per table, per process."""

from __future__ import annotations

import logging


class Outage:
    """Failures of one kind of work (``what``) in a row: the first is a warning with its
    traceback, the next ones debug lines, and the first success after them a warning."""

    def __init__(self, logger: logging.Logger, what: str) -> None:
        self.logger = logger
        self.what = what
        self.failures = 0

    def failed(self, detail: str = "") -> None:
        """Call from the ``except`` block of a failed try (its traceback is the first one's)."""
        self.failures += 1
        if self.failures == 1:
            self.logger.warning("%s failed%s; trying again", self.what, detail, exc_info=True)
        else:
            self.logger.debug("%s failed again%s", self.what, detail, exc_info=True)

    def worked(self) -> None:
        if self.failures:
            self.logger.warning("%s works again after %d failures", self.what, self.failures)
            self.failures = 0


__all__ = ["Outage"]
