"""Incoming connections that are not yet a mesh link: their caps, and the lines that tell
of those refused (§4.1).

Theory of operation
-------------------
A listener takes a TCP connection before it knows who is at the other end: until the
TLS handshake is over it knows only the address. A connection in its handshake, held
(`Mesh.release_incoming`) or at the front door is *unsettled*. `Unsettled` counts them
by address and names the cap a new one would break: `PER_ADDRESS` from its address, or
`IN_ALL` in all. The second cap does not apply to the address of a pinned peer (a seated
player, §6.5): a flood from strangers, however many addresses it comes from, fills only
what strangers may hold, and a seated peer that dials again (§11.3) still gets in. Its
certificate cannot tell it apart sooner: TLS 1.3 sends the client's certificate
encrypted, after the server's first flight, that is after the slot was taken.

A refused connection is answered with `BUSY` in place of TLS, then closed (`Mesh`):
the client reads it as the refusal it is (`p2p.tlsstream.Crowded`), not as a table
that is not there. A connection that sends nothing for `QUIET` seconds is closed:
every client of ours speaks first, its ClientHello, the moment it has connected, so a
silent one is no client of ours, and holds a slot for 2 s, not the handshake's 10 s.

`Refusals` tells of refusals in the host's log: the first at once, then at most one line
every `TOLD_EVERY` seconds, counting the refusals since, by the cap they hit.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Final

IN_ALL: Final = 256  # unsettled connections at once
PER_ADDRESS: Final = 32  # of those, from one address (a table seats at most 15)
QUIET: Final = 2.0  # seconds a new connection may send nothing before it is closed
TOLD_EVERY: Final = 10.0  # seconds at least between two lines of refusals

ADDRESS_CAP: Final = "address"
ALL_CAP: Final = "all"


class Unsettled:
    """The unsettled connections, by address."""

    def __init__(self) -> None:
        self._by_address: Counter[str] = Counter()
        self.total = 0

    def cap_hit(self, host: str, *, pinned: bool) -> str | None:
        """The cap (`ADDRESS_CAP`, `ALL_CAP`) one more connection from `host` would break,
        or None; `pinned`: `host` is the address of a pinned peer (no cap in all)."""
        if self._by_address[host] >= PER_ADDRESS:
            return ADDRESS_CAP
        if self.total >= IN_ALL and not pinned:
            return ALL_CAP
        return None

    def add(self, host: str) -> None:
        self._by_address[host] += 1
        self.total += 1

    def remove(self, host: str) -> None:
        self._by_address[host] -= 1
        if not self._by_address[host]:
            del self._by_address[host]
        self.total -= 1


def _why(cap: str, host: str) -> str:
    if cap == ADDRESS_CAP:
        return f"{PER_ADDRESS} from {host} already wait for their handshake or the lobby"
    return f"{IN_ALL} from all addresses already wait for their handshake or the lobby"


class Refusals:
    """Refused connections as lines for the host's log: the first at once, then at most
    one every `TOLD_EVERY` seconds, counting those since by the cap they hit and naming
    the latest. Fed the time; `due` says when a line is owed."""

    def __init__(self) -> None:
        self._held: Counter[str] = Counter()  # refused and not yet told, by cap
        self._latest: dict[str, str] = {}  # cap -> the address of the latest refused for it
        self._quiet_until = -math.inf

    def add(self, cap: str, host: str, port: int, now: float) -> str | None:
        """A connection from `host`:`port` was refused at `now` for `cap`: the line to tell
        now, if one is owed."""
        self._held[cap] += 1
        self._latest[cap] = host
        if self._held.total() == 1 and now >= self._quiet_until:
            self._held.clear()
            self._quiet_until = now + TOLD_EVERY
            return f"refused a connection from {host}:{port}: {_why(cap, host)} (§4.1)"
        return self.line(now)

    def line(self, now: float) -> str | None:
        """The line owed at `now`, if any."""
        if not self._held or now < self._quiet_until:
            return None
        count = self._held.total()
        parts = [f"{n} because {_why(cap, self._latest[cap])}" for cap, n in sorted(self._held.items())]
        self._held.clear()
        self._quiet_until = now + TOLD_EVERY
        return f"refused {count} connection{'s' * (count != 1)} since the last such line: {'; '.join(parts)} (§4.1)"

    @property
    def due(self) -> float:
        """When the line held back is owed (never, if none is)."""
        return self._quiet_until if self._held else math.inf
