"""Playtable: two-player abstract strategy games in the browser."""

__version__ = "0.1.0"
