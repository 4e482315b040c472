"""Type stubs of the C search (playtable/ai/_dotscore.c)."""

from collections.abc import Sequence
from typing import TypedDict

class Profile(TypedDict):
    offered: int
    safe: int
    loony: int
    simple: int
    by_free: list[int]

class Core:
    """The exact Dots and Boxes search on at most 64 lines."""

    def __init__(
        self,
        cells: Sequence[int],
        lines: int,
        perms: Sequence[Sequence[int]],
        sym_min_free: int,
        table_bits: int,
        sym_slack: int = 2,
        misere: bool = True,
        etc: bool = True,
        loony: bool = True,
    ) -> None: ...
    def search(self, drawn: int, alpha: int, beta: int, seconds: float) -> int | None: ...
    def clear(self) -> None: ...
    @property
    def nodes(self) -> int: ...
    @property
    def entries(self) -> int: ...
    @property
    def profile(self) -> Profile: ...
