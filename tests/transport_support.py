"""Shared helpers for the transport, lobby and discovery tests: identities and peers."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import trio

from p2p import lobby, roster
from p2p.identity import Identity, load_or_create_identity
from p2p.lobby import LobbyResult
from p2p.lobby_runner import StartCall, host_table, join_table
from p2p.schema import Schemas
from p2p.transport import Mesh, open_mesh, link_schemas

LOOPBACK = "127.0.0.1"


def make_identities(root: Path, count: int) -> list[Identity]:
    return [load_or_create_identity(root / f"peer{i}") for i in range(count)]


def lobby_schemas() -> Schemas:
    return link_schemas(*lobby.MESSAGES)


@asynccontextmanager
async def meshes(identities: list[Identity], *, hold: bool = True, schemas: Schemas | None = None) -> AsyncIterator[list[Mesh]]:
    """One listening mesh per identity on loopback (all but the first hold incoming links)."""
    async with AsyncExitStack() as stack:
        out = []
        for i, ident in enumerate(identities):
            out.append(await stack.enter_async_context(
                open_mesh(ident, schemas or lobby_schemas(), bind=LOOPBACK, hold_incoming=hold and i > 0)))
        yield out


async def run_table(
    meshes_: list[Mesh], *, seats: int | None = None, code: str | None = None, names: list[str] | None = None,
) -> list[LobbyResult]:
    """Host on meshes_[0], join from the others one after another; every peer's result."""
    names = names or [f"player{i}" for i in range(len(meshes_))]
    results: list[LobbyResult | None] = [None] * len(meshes_)
    host = meshes_[0]
    async with trio.open_nursery() as nursery:

        async def run_host(task_status: trio.TaskStatus[StartCall]) -> None:
            results[0] = await host_table(host, name=names[0], table="Test table", seats=seats or len(meshes_), code=code,
                                          task_status=task_status)

        async def run_guest(i: int, task_status: trio.TaskStatus[None]) -> None:
            seated = trio.Event()
            task_status.started()
            results[i] = await join_table(
                meshes_[i], [(LOOPBACK, host.port)], name=names[i], code=code, expect_host=host.me,
                on_roster=lambda roster: seated.set(),
            )

        await nursery.start(run_host)
        for i in range(1, len(meshes_)):
            await nursery.start(run_guest, i)
    return [r for r in results if r is not None]


def next_release(monkeypatch: pytest.MonkeyPatch) -> None:
    """Joiners answer offers from here on as the next release would: their offer check and
    hello speak the next protocol version (a host in the same process keeps this one)."""
    on_offer = lobby.GuestLobby.on_offer
    newer = roster.PROTOCOL_VERSION + 1

    def on_next_release_offer(self: lobby.GuestLobby, *args: Any) -> dict[str, Any]:
        with pytest.MonkeyPatch.context() as patch:  # (only while this joiner answers: nothing awaits in it)
            patch.setattr(lobby, "PROTOCOL_VERSION", newer)
            patch.setattr(roster, "PROTOCOL_VERSION", newer)
            return on_offer(self, *args)

    monkeypatch.setattr(lobby.GuestLobby, "on_offer", on_next_release_offer)
