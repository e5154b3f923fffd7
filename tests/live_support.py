"""A live table in one process: real peers (`p2p.peer.TablePeer`) on loopback TLS links.

Each seat has its own identity, mesh, keys and fairness log, exactly as at a LAN party;
only the process is shared. Seat 1 can be left to a person (a screen, a test) while
the others are played by the normal bot. Used by the client's live tests and by
`bench/tui.py`.
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

import trio
import trio.testing

from cli.game import SeatBook
from engine import NormalBot
from p2p.identity import Identity, load_or_create_identity
from p2p.journal import SeatJournal
from p2p.lobby import LobbyResult, Signing
from p2p.lobby_runner import StartCall, host_table, join_table
from p2p.peer import FULL_SPEED, GameSummary, Pace, TablePeer, table_schemas
from p2p.roster import TableRules
from p2p.session import Line
from p2p.transport import Mesh, open_mesh

LOOPBACK = "127.0.0.1"


@dataclass
class LiveLobby:
    """What a finished lobby left: every seat's identity, open mesh and lobby result."""

    ids: list[Identity]
    meshes: list[Mesh]
    results: list[LobbyResult]


async def seat_live_lobby(root: Path, peers: int, stack: AsyncExitStack,
                          rules: TableRules | None = None) -> LiveLobby:
    """Run the lobby of `peers` live peers (seat 0 hosts as "Ann"); their meshes close
    with `stack`, or here if the lobby fails. A test that fails with the meshes open ends
    with its failure, on a MockClock too (`_failure_unsticks_the_clock`)."""
    ids = [load_or_create_identity(root / f"peer{i}") for i in range(peers)]
    results: list[LobbyResult | None] = [None] * peers
    try:
        meshes = [await stack.enter_async_context(open_mesh(ident, table_schemas(), bind=LOOPBACK,
                                                            hold_incoming=i > 0))
                  for i, ident in enumerate(ids)]
        stack.push(_failure_unsticks_the_clock)
        async with trio.open_nursery() as nursery:

            async def host(task_status: trio.TaskStatus[StartCall]) -> None:
                results[0] = await host_table(meshes[0], name="Ann", table="in-process table", seats=peers,
                                              rules=rules or TableRules(), task_status=task_status)

            async def guest(i: int) -> None:
                results[i] = await join_table(meshes[i], [(LOOPBACK, meshes[0].port)], name=f"Bot {i}",
                                              expect_host=ids[0].peer_id)

            await nursery.start(host)
            for i in range(1, peers):
                nursery.start_soon(guest, i)
    except BaseException as exc:  # (the meshes open so far close here, the failure goes on as itself)
        await stack.__aexit__(type(exc), exc, exc.__traceback__)
        raise
    assert all(result is not None for result in results)
    return LiveLobby(ids, meshes, results)  # type: ignore[arg-type]


def _failure_unsticks_the_clock(kind: type[BaseException] | None, failure: BaseException | None,
                                traceback: TracebackType | None) -> None:
    """Exit callback of a live table's stack, run before its meshes close: after a
    failure, a MockClock jumps by itself. The meshes' goodbyes are bounded in the clock's
    time (`transport.LINGER`, `Mesh.aclose`), and a peer that failed leaves its links
    unanswered: on a clock that only the test advances, the failing test would hang there
    instead of failing."""
    clock = trio.lowlevel.current_clock()
    if failure is not None and isinstance(clock, trio.testing.MockClock):
        clock.autojump_threshold = 0


def journal_as_signed(book: SeatBook, result: LobbyResult) -> SeatJournal | None:
    """The journal `book` writes as the seat signs `result`'s roster (§11.3), for a seat
    whose lobby ran without one."""
    book.sign(Signing(result.game_id, result.roster, result.canonical, result.seat))
    return book.seated


async def seat_live_table(root: Path, peers: int, *, person: bool = True, pace: Pace = FULL_SPEED,
                          rules: TableRules | None = None,
                          classes: Mapping[int, type[TablePeer]] | None = None,
                          journals: bool = False,
                          on_line: Callable[[Line], None] | None = None) -> tuple[AsyncExitStack, list[TablePeer]]:
    """Seat `peers` live peers; seat 1 without a bot when `person`. Close the returned
    stack (after the peers' `run` ended) to close their meshes. `classes` gives some
    seats another kind of peer (a cheating one, in tests); with `journals` every seat
    keeps a journal (§11.3) in its own state folder under `root`; `on_line` is given
    seat 1's lines, as a seat played in line mode gives them."""
    stack = AsyncExitStack()
    lobby = await seat_live_lobby(root, peers, stack, rules)
    table = []
    for i, (mesh, result) in enumerate(zip(lobby.meshes, lobby.results)):
        bot = None if (i == 0 and person) else NormalBot()
        cls = (classes or {}).get(i, TablePeer)
        table.append(cls(mesh, result, lobby.ids[i], log_path=root / f"seat{i + 1}.bandit-log", bot=bot, seed=i,
                         pace=pace, journal_dir=root / f"peer{i}" if journals else None,
                         on_line=on_line if i == 0 else None))
    return stack, table


UNTIL_WITHIN = 60.0  # seconds of real time an `until` waits at most


async def until(predicate, *peers, within: float = UNTIL_WITHIN) -> None:  # type: ignore[no-untyped-def]
    """Wait (on the peers' change events, never a sleep) until `predicate()` holds. The
    events are taken before the predicate is asked, so a change between the two is not
    missed (a stalled table may change nothing more). A predicate that does not hold
    within `within` seconds of real time (a MockClock's jumps do not count, and a clock
    that stands still does not hide a table that does) fails the test, naming it."""
    if predicate():  # (at once, without a checkpoint, as a test may count on)
        return
    holds = threading.Event()
    late = False
    async with trio.open_nursery() as watched:

        async def deadline() -> None:
            nonlocal late
            if not await trio.to_thread.run_sync(holds.wait, within, abandon_on_cancel=True):
                late = True
                watched.cancel_scope.cancel()

        watched.start_soon(deadline)
        try:
            await _until(predicate, peers)
        finally:
            holds.set()
        watched.cancel_scope.cancel()
    if late:
        raise AssertionError(f"waited {within:g} s of real time for: {_described(predicate)}")


async def _until(predicate, peers) -> None:  # type: ignore[no-untyped-def]
    while True:
        events = [peer._watch.changed for peer in peers]
        if predicate():
            return
        async with trio.open_nursery() as nursery:
            for event in events:

                async def woken(event=event) -> None:  # type: ignore[no-untyped-def]
                    await event.wait()
                    nursery.cancel_scope.cancel()

                nursery.start_soon(woken)


def _described(predicate) -> str:  # type: ignore[no-untyped-def]
    """The source of `predicate` (a lambda: the line that waits), else its name."""
    try:
        return " ".join(inspect.getsource(predicate).split())
    except (OSError, TypeError):
        return getattr(predicate, "__qualname__", repr(predicate))


@asynccontextmanager
async def running(peers: Sequence[TablePeer]) -> AsyncIterator[dict[int, GameSummary]]:
    """Play every peer's game; the summaries come in by index into `peers` (which need
    not be seat order). Leaving the block waits until every game has ended."""
    summaries: dict[int, GameSummary] = {}
    async with trio.open_nursery() as nursery:

        async def run(i: int) -> None:
            summaries[i] = await peers[i].run()

        for i in range(len(peers)):
            nursery.start_soon(run, i)
        yield summaries


def dealt(peer: TablePeer) -> bool:
    """Round 1 is dealt at `peer` (every reveal of the deal done, the first discard up)
    and its order holds nothing undelivered."""
    engine = peer.machine.engine
    return (peer.machine.round_number >= 1 and engine.next_need is None and engine.discard_top() is not None
            and not peer.machine.holding and not peer.orderer.undelivered())


def start_seats(nursery: trio.Nursery, peers: Sequence[TablePeer], *, crashing: Sequence[TablePeer] = (),
                into: dict[int, GameSummary] | None = None) -> dict[int, GameSummary]:
    """Start every seat of `peers` in `nursery`, in that order; each one's summary comes
    into the returned dict (`into`, if given: a seat taken back joins its table's), by
    seat, as its game ends. A seat in `crashing` is one the test crashes (its run ends
    with that fault, which it must have taken): no summary."""
    summaries: dict[int, GameSummary] = {} if into is None else into

    async def run(peer: TablePeer) -> None:
        if peer not in crashing:
            summaries[peer.me] = await peer.run()
            return
        try:
            await peer.run()
        except Exception:  # (the fault, in the seat's task group)
            assert peer.failed

    for peer in peers:
        nursery.start_soon(run, peer)
    return summaries


def shorten_grace(peer: TablePeer, seconds: float) -> None:
    """`peer` waits `seconds` for a seat away or a link reported down (§11.3), from now on,
    while a seat's acks keep the table's grace period (§9.11 "Acks"): on a busy machine an
    honest seat's acks can come more than a second after what they answer."""
    if peer.acks_grace is None:
        peer.acks_grace = peer.grace
    peer.grace = seconds
    peer._wake.set()  # (its timers count the new grace period at once)
