"""`bandit-lan` whose lobby never reads the roster signature of one seat (a test double).

``python -m tests.deaf_signer SEAT ARGS…`` runs ``bandit-lan ARGS…`` as a real process,
but its lobby drops every ``lobby.sign`` that comes from seat SEAT: it signs, its
signature goes out, and it waits for that one signature while the others, holding every
signature, begin their game. Killed then, it is a seat stopped while the roster was
being signed, deterministically (§11.3).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

from p2p.lobby import GuestLobby


def main() -> int:
    deaf_to = int(sys.argv[1])
    on_message = GuestLobby.on_message

    def hears(self: GuestLobby, peer: bytes, message: Mapping[str, Any]) -> list[Any]:
        sender = self.roster.member(peer) if self.roster is not None else None
        if message["type"] == "lobby.sign" and sender is not None and sender.seat == deaf_to:
            return []
        return on_message(self, peer, message)

    GuestLobby.on_message = hears  # type: ignore[method-assign]
    from cli.main import main as bandit_lan

    return bandit_lan(sys.argv[2:])


if __name__ == "__main__":
    raise SystemExit(main())
