"""The difference between two versions of a table's JSON, as a JSON Patch (RFC 6902).

A move changes a few fields of a table's public JSON (a line drawn, a box owned, the score,
whose turn), while the rest, the board's geometry above all, stays as it was: sending the
difference instead of the whole table is what keeps a move's message small on a large board.
:func:`diff` makes the patch, :func:`apply` applies one (the pages do the same in
``table_events.js``), and ``apply(old, diff(old, new)) == new`` for every pair of JSON values.

Only three operations are used: ``replace``, ``add`` (``/-`` appends to a list) and
``remove``. Lists of equal length are compared item by item; a list that grew at its end gets
``add``s, one that lost a few items (the legal moves after a move) ``remove``s from the last to
the first, so that each index is right when its operation is applied; anything else is
replaced whole.

>>> diff({"ply": 1, "moves": ["a"], "legal": ["a", "b", "c"]},
...      {"ply": 2, "moves": ["a", "b"], "legal": ["a", "c"]})
[{'op': 'replace', 'path': '/ply', 'value': 2}, \
{'op': 'add', 'path': '/moves/-', 'value': 'b'}, {'op': 'remove', 'path': '/legal/1'}]
"""

from __future__ import annotations

from typing import Any

Operation = dict[str, Any]

# A list that changed in more places than this is sent whole (cheaper to read and to apply).
MAX_LIST_CHANGES = 16


class PatchError(ValueError):
    """A patch that does not apply to the value it was given (a page would read afresh)."""


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def _unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def diff(old: Any, new: Any) -> list[Operation]:
    """The operations that turn ``old`` into ``new`` (both JSON values)."""
    operations: list[Operation] = []
    _diff(old, new, "", operations)
    return operations


def _diff(old: Any, new: Any, path: str, out: list[Operation]) -> None:
    """Append to ``out`` the operations that turn ``old`` into ``new`` at ``path``. Each
    value is walked once: parts shared by identity (a view's unchanged lines and cells) are
    skipped, and a path is spelt out only where something changed."""
    if old is new:
        return
    kind = type(new)
    if type(old) is not kind:
        out.append({"op": "replace", "path": path, "value": new})
    elif kind is dict:
        added = 0
        for key, value in new.items():
            if key not in old:
                out.append({"op": "add", "path": f"{path}/{_escape(key)}", "value": value})
                added += 1
                continue
            before = old[key]
            if before is not value:
                _diff(before, value, f"{path}/{_escape(key)}", out)
        if len(old) + added != len(new):  # some keys of ``old`` are gone
            for key in old:
                if key not in new:
                    out.append({"op": "remove", "path": f"{path}/{_escape(key)}"})
    elif kind is list:
        _diff_list(old, new, path, out)
    elif old != new:
        out.append({"op": "replace", "path": path, "value": new})


def _diff_list(old: list[Any], new: list[Any], path: str, out: list[Operation]) -> None:
    changes: list[Operation] = []
    if len(old) == len(new):
        for index, after in enumerate(new):
            before = old[index]
            # Identity first: a view's unchanged parts are shared objects.
            if before is not after:
                _diff(before, after, f"{path}/{index}", changes)
            if len(changes) > MAX_LIST_CHANGES:
                break
        if not changes:
            return  # equal, item by item
    elif len(new) > len(old) and new[: len(old)] == old:
        changes = [{"op": "add", "path": f"{path}/-", "value": v} for v in new[len(old) :]]
    elif len(new) < len(old) and len(old) - len(new) <= MAX_LIST_CHANGES:
        removed = _removed(old, new)
        if removed is not None:
            changes = [{"op": "remove", "path": f"{path}/{i}"} for i in reversed(removed)]
    if not changes or len(changes) > MAX_LIST_CHANGES:
        out.append({"op": "replace", "path": path, "value": new})
    else:
        out.extend(changes)


def _removed(old: list[Any], new: list[Any]) -> list[int] | None:
    """The indices of ``old`` whose removal leaves ``new``, if it is ``old`` with some items
    taken out (the first of equal neighbours is the one taken); else ``None``."""
    removed: list[int] = []
    j = 0
    for i, item in enumerate(old):
        if j < len(new) and new[j] == item:
            j += 1
        else:
            removed.append(i)
            if len(removed) > len(old) - len(new):
                return None
    return removed if j == len(new) else None


def apply(value: Any, operations: list[Operation]) -> Any:
    """``value`` with ``operations`` applied; ``value`` itself is left as it was (only the
    containers on the operations' paths are copied). Raises :class:`PatchError`."""
    for operation in operations:
        value = _apply(value, operation)
    return value


def _apply(root: Any, operation: Operation) -> Any:
    try:
        op, path = operation["op"], operation["path"]
        if path == "":
            if op in ("replace", "add"):
                return operation["value"]
            raise PatchError(f"cannot {op} the whole document")
        tokens = [_unescape(t) for t in path.split("/")[1:]]
        copy = _copied(root)
        parent = copy
        for token in tokens[:-1]:
            key: Any = int(token) if isinstance(parent, list) else token
            child = _copied(parent[key])
            parent[key] = child
            parent = child
        last = tokens[-1]
        if isinstance(parent, list):
            if op == "add" and last == "-":
                parent.append(operation["value"])
            elif op == "add":
                parent.insert(int(last), operation["value"])
            elif op == "replace":
                parent[int(last)] = operation["value"]
            elif op == "remove":
                del parent[int(last)]
            else:
                raise PatchError(f"unknown operation {op!r}")
        elif isinstance(parent, dict):
            if op in ("add", "replace"):
                if op == "replace" and last not in parent:
                    raise PatchError(f"nothing to replace at {path}")
                parent[last] = operation["value"]
            elif op == "remove":
                del parent[last]
            else:
                raise PatchError(f"unknown operation {op!r}")
        else:
            raise PatchError(f"{path} is not inside an object or a list")
    except (KeyError, IndexError, ValueError, TypeError) as error:
        if isinstance(error, PatchError):
            raise
        raise PatchError(f"the patch does not apply: {error!r}") from None
    return copy


def _copied(value: Any) -> Any:
    if isinstance(value, dict):
        return dict(value)
    if isinstance(value, list):
        return list(value)
    raise PatchError("a path goes through a value that is neither an object nor a list")


class Follower:
    """A table followed from its socket's messages, as a page does: ``state`` replaces it,
    a ``change`` is applied if it starts from the version held (else :attr:`missed` is set:
    send ``join``). For scripts, benchmarks and tests.

    :meth:`receive` answers in the protocol's former shape, each ``change`` as its events
    (``{"type": "event", "version", "event"}``) followed by the ``state`` it leads to, and
    every other message as it came.
    """

    def __init__(self) -> None:
        self.table: dict[str, Any] | None = None
        self.missed = False

    @property
    def version(self) -> int:
        return -1 if self.table is None else int(self.table["version"])

    def receive(self, message: dict[str, Any]) -> list[dict[str, Any]]:
        kind = message.get("type")
        if kind == "state":
            if self.table is None or message["version"] >= self.version:
                self.table, self.missed = message["table"], False
            return [message]
        if kind != "change":
            return [message]
        version = message["version"]
        if "table" in message:
            if version < self.version:
                return []
            table = message["table"]
        elif self.table is not None and message["base"] == self.version:
            table = apply(self.table, message["patch"])
        else:
            self.missed = self.missed or version > self.version
            return []
        self.table, self.missed = table, False
        events = [{"type": "event", "version": version, "event": e} for e in message["events"]]
        return [*events, {"type": "state", "version": version, "table": table}]


__all__ = ["MAX_LIST_CHANGES", "Follower", "Operation", "PatchError", "apply", "diff"]
