"""Bots: pure decision functions over a seat's view (see `engine.bots.base`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType

from engine.bots.base import Bot, SnapDelay
from engine.bots.normal import NormalBot
from engine.bots.randombot import RandomBot

BOTS: Mapping[str, Callable[[], Bot]] = MappingProxyType({"normal": NormalBot, "random": RandomBot})
"""Bot constructors by name (the names `--bots` accepts)."""


def make_bot(name: str) -> Bot:
    """A bot by name; ValueError naming the known bots otherwise."""
    try:
        return BOTS[name]()
    except KeyError:
        raise ValueError(f"unknown bot {name!r}; known bots: {', '.join(sorted(BOTS))}") from None


__all__ = ["BOTS", "Bot", "NormalBot", "RandomBot", "SnapDelay", "make_bot"]
