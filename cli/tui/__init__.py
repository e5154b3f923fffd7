"""The terminal client: a full-screen prompt_toolkit table for `play`, `host` and `join`.

Public API (called from the commands):

- `run_client(session, memory_aid=False, *, terminal=None, looks=None)` — play a seat of a running
  table (`p2p.session.TableSession`) until the player leaves or the game is over;
- `open_terminal()` — take over the terminal once, for the lobby screens and then the
  table, so nothing flickers in between;
- `pick_table_screen`, `host_lobby_screen`, `join_lobby_screen` — the lobby;
  `sign_again_screen` — a seat taken back as its seating was being signed.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

# Each name, and the module it comes from: loaded when first asked for, so a process that
# uses a plain helper of a submodule (`cli.tui.canvas`, say: a bot, an audit, `tables`)
# never loads prompt_toolkit's application machinery.
_FROM = {
    "run_client": "client", "open_terminal": "terminal", "Terminal": "terminal",
    "TerminalClosed": "terminal", "KeyPress": "terminal", "host_lobby_screen": "lobby",
    "join_lobby_screen": "lobby", "pick_table_screen": "lobby", "sign_again_screen": "lobby",
}  # fmt: skip
__all__ = list(_FROM)


def __getattr__(name: str) -> Any:
    if name not in _FROM:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{_FROM[name]}"), name)
    globals()[name] = value
    return value
