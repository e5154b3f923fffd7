"""The terminal client: a full-screen prompt_toolkit table for `play`, `host` and `join`.

Public API (called from the commands):

- `run_client(session, memory_aid=False, *, terminal=None, looks=None)` — play a seat of a running
  table (`p2p.session.TableSession`) until the player leaves or the game is over;
- `open_terminal()` — take over the terminal once, for the lobby screens and then the
  table, so nothing flickers in between;
- `pick_table_screen`, `host_lobby_screen`, `join_lobby_screen` — the lobby;
  `sign_again_screen` — a seat taken back as its seating was being signed.
"""

from cli.tui.client import run_client
from cli.tui.lobby import host_lobby_screen, join_lobby_screen, pick_table_screen, sign_again_screen
from cli.tui.terminal import KeyPress, Terminal, TerminalClosed, open_terminal

__all__ = [
    "run_client", "open_terminal", "Terminal", "TerminalClosed", "KeyPress",
    "host_lobby_screen", "join_lobby_screen", "pick_table_screen", "sign_again_screen",
]  # fmt: skip
