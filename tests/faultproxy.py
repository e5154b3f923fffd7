"""A TCP proxy between two peers that can delay, cut and restore their link.

`LinkProxy` listens on loopback and forwards every connection to `target`, byte for
byte (TLS passes through untouched: the peers still authenticate each other). `cut()`
resets every connection it carries and refuses new ones until `restore()`; `delay`
holds each chunk for that long before forwarding it; with `admit`, connections after the
first `admit` are refused (a firewall that lets only some peers in); `drop(n)` resets
the n-th connection it carried, alone (a hiccup on one route); `freeze()` carries nothing
on open connections and keeps new ones waiting (the peer's process stopped, Ctrl-Z). Used by the live
fault and lobby tests and `bench/faults.py`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial

import trio

LOOPBACK = "127.0.0.1"


class LinkProxy:
    def __init__(self, target: tuple[str, int], nursery: trio.Nursery, *, delay: float = 0.0,
                 admit: int | None = None) -> None:
        self.target = target
        self.delay = delay
        self.admit = admit
        self.port = 0
        self.connections = 0
        self.accepted = 0
        self._nursery = nursery
        self._open: set[trio.CancelScope] = set()
        self._carried: list[trio.CancelScope] = []  # every connection forwarded, in order
        self._blocked = False
        self._held: trio.Event | None = None  # new connections wait for it (`hold`)
        self._frozen: trio.Event | None = None  # open connections wait for it (`freeze`)

    def hold(self) -> None:
        """Keep new connections waiting, neither carried nor refused, until `restore`
        (a route that is down for a while)."""
        self._held = trio.Event()

    def freeze(self) -> None:
        """The peer behind the proxy stopped (Ctrl-Z, a laptop asleep): its connections
        stay open but carry nothing, and new ones are accepted (by its operating system)
        but not answered, until `restore`."""
        self.hold()
        self._frozen = trio.Event()

    def cut(self) -> None:
        """Drop every connection now and refuse new ones (a cable pulled)."""
        self._blocked = True
        for scope in list(self._open):
            scope.cancel()

    def drop(self, n: int) -> None:
        """Reset the n-th connection this proxy carried (1 is the first); the others and
        new ones go on."""
        self._carried[n - 1].cancel()

    def restore(self) -> None:
        self._blocked = False
        if self._frozen is not None:
            self._frozen.set()
            self._frozen = None
        if self._held is not None:
            self._held.set()
            self._held = None

    async def _handle(self, client: trio.SocketStream) -> None:
        self.accepted += 1
        if self._held is not None:
            await self._held.wait()
        if self._blocked or (self.admit is not None and self.accepted > self.admit):
            await trio.aclose_forcefully(client)
            return
        try:
            server = await trio.open_tcp_stream(*self.target)
        except OSError:
            await trio.aclose_forcefully(client)
            return
        self.connections += 1
        with trio.CancelScope() as scope:
            self._open.add(scope)
            self._carried.append(scope)
            try:
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(self._pump, client, server, nursery.cancel_scope)
                    nursery.start_soon(self._pump, server, client, nursery.cancel_scope)
            finally:
                self._open.discard(scope)
        await trio.aclose_forcefully(client)
        await trio.aclose_forcefully(server)

    async def _pump(self, src: trio.SocketStream, dst: trio.SocketStream, done: trio.CancelScope) -> None:
        try:
            while data := await src.receive_some(65536):
                if self._frozen is not None:
                    await self._frozen.wait()
                if self.delay:
                    await trio.sleep(self.delay)
                await dst.send_all(data)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass
        done.cancel()


@asynccontextmanager
async def link_proxy(target: tuple[str, int], *, delay: float = 0.0, admit: int | None = None) -> AsyncIterator[LinkProxy]:
    async with trio.open_nursery() as nursery:
        proxy = LinkProxy(target, nursery, delay=delay, admit=admit)
        listeners = await nursery.start(partial(trio.serve_tcp, proxy._handle, 0, host=LOOPBACK))
        proxy.port = listeners[0].socket.getsockname()[1]
        try:
            yield proxy
        finally:
            nursery.cancel_scope.cancel()
