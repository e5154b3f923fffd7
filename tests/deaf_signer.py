"""`bandit-lan` whose lobby never reads the roster signature of one seat (a test double).

``python -m tests.deaf_signer SEAT ARGS…`` runs ``bandit-lan ARGS…`` as a real process,
but its lobby drops every ``lobby.sign`` that comes from seat SEAT: it signs, its
signature goes out, and it waits for that one signature while the others, holding every
signature, begin their game. Killed then, it is a seat stopped while the roster was
being signed, deterministically (§11.3). Its ``--resume`` is as deaf to that seat when it
signs again (`SigningAgain`), so that it waits for it there too.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

from p2p.lobby import GuestLobby, SigningAgain
from p2p.roster import Roster


def main() -> int:
    deaf_to = int(sys.argv[1])
    for machine in (GuestLobby, SigningAgain):
        _deaf(machine, deaf_to)
    from cli.main import main as bandit_lan

    return bandit_lan(sys.argv[2:])


def _deaf(machine: type[GuestLobby] | type[SigningAgain], seat: int) -> None:
    """`machine` drops every ``lobby.sign`` of `seat`."""
    on_message = machine.on_message

    def hears(self: Any, peer: bytes, message: Mapping[str, Any]) -> list[Any]:
        roster: Roster | None = self.roster
        sender = roster.member(peer) if roster is not None else None
        if message["type"] == "lobby.sign" and sender is not None and sender.seat == seat:
            return []
        return on_message(self, peer, message)

    machine.on_message = hears  # type: ignore[method-assign]


if __name__ == "__main__":
    raise SystemExit(main())
