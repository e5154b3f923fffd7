"""The lobby on screen: pick a table on the LAN, host one, or join one.

Each flow runs the real lobby (`p2p.lobby_runner.host_table` / `join_table`, or
`p2p.discovery.browse` in a loop) in a trio task and a screen loop beside it: the task
reports progress (a roster changed, tables found) and the loop redraws and reads keys.
Each returns when the lobby is done — the `LobbyResult` of a started game, the table
picked — or None when the player gave up. Network and protocol failures propagate as
the lobby runner raises them (`ProtocolError`, `OSError`), except a refused or missing
table code, which the join screen asks for and retries.

All three take the `Terminal` that the table screen will use next, so the screen goes
from lobby to game without leaving the alternate screen.
"""

from __future__ import annotations

import math
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from typing import TypeVar

import trio

from p2p.discovery import TableAd, browse
from p2p.errors import JoinRefused
from p2p.groups import lone_exception_unwrapped
from p2p.identity import Certificate
from p2p.lobby import SIGN_WAIT, LobbyResult, RosterChanged
from p2p.lobby_runner import SigningCallback, StartCall, host_table, join_table
from p2p.roster import DEFAULT_RULES, TableRules
from p2p.transport import Mesh
from cli.argtypes import split_address
from cli.commands import shell_word, this_program
from cli.lobby_common import AS_ANNOUNCED, JoinHint, LobbyNews, then_shown
from cli.tui.lobby_view import BrowseScene, HostScene, JoinScene, Note, ReturnScene, seats_of
from cli.tui.terminal import PASTE, KeyPress, Terminal, TerminalClosed

TOO_FEW = Note("A game needs at least two players.", "warning")
BROWSE_S = 1.5
"""One discovery pass of the table list (it repeats while the screen is up)."""

_CHANGED = "changed"
CODE_ASKED = "This table asks for a code: type the one its host chose (the host's screen does not show it)."


class _Screen:
    """A lobby screen loop: keys from the terminal and nudges from the lobby task."""

    def __init__(self, terminal: Terminal) -> None:
        self.terminal = terminal
        self._send, self._receive = trio.open_memory_channel[KeyPress | str](math.inf)

    def nudge(self) -> None:
        self._send.send_nowait(_CHANGED)

    async def forward_keys(self) -> None:
        while True:
            try:
                event = await self.terminal.receive()
            except TerminalClosed:
                self._send.send_nowait("closed")
                return
            if isinstance(event, KeyPress):
                self._send.send_nowait(event)

    async def next(self) -> KeyPress | str:
        return await self._receive.receive()

    async def key(self, scene: Callable[[], object], over: Callable[[], bool]) -> str | None:
        """Show `scene()`, then the name of the next key pressed; None once `over()` holds
        (what the lobby task waited for came) or the terminal went away. A nudge alone
        shows the scene again."""
        while True:
            self.terminal.show(scene())  # type: ignore[arg-type]
            event = await self.next()
            if over() or event == "closed":
                return None
            if isinstance(event, KeyPress):
                return event.key


def _news_note(news: LobbyNews, change: RosterChanged) -> Note | None:
    """What `change` tells (`LobbyNews`: who left, who is reconnecting, who is back) as a
    screen's note (None: nothing)."""
    told = news.after(change)
    if not told:
        return None
    return Note(" ".join(sentence for sentence, _ in told), "warning" if any(k == "warning" for _, k in told) else "info")


_Asking = TypeVar("_Asking", HostScene, JoinScene, ReturnScene)
_Found = TypeVar("_Found")


def _question(scene: _Asking, key: str) -> tuple[_Asking, bool] | None:
    """The leave question's part of `key`: Ctrl-C asks it, yes leaves, no closes it (and
    any other key waits for an answer; Ctrl-C again is told that it does not answer).
    The scene after the key and whether the player leaves, or None if the key is not the
    question's."""
    if scene.quitting:
        if _is_yes(key):
            return scene, True
        if _is_no(key):
            return replace(scene, quitting=False), False
        if key == "ctrl-c":
            return replace(scene, quit_again=True), False
        return scene, False  # (it waits for an answer)
    if key == "ctrl-c":
        return replace(scene, quitting=True, quit_again=False), False
    return None


def _is_yes(key: str) -> bool:
    return key in ("enter", "y", "Y")  # (not Ctrl-C: a reflex double press is no answer)


def _is_no(key: str) -> bool:
    return key in ("esc", "n", "N")


async def host_lobby_screen(
    terminal: Terminal,
    mesh: Mesh,
    *,
    name: str,
    table: str,
    seats: int,
    code: str | None = None,
    rules: TableRules | None = None,
    join_hint: str = "",
    on_roster: Callable[[RosterChanged], None] | None = None,
    warnings: Sequence[trio.abc.ReceiveChannel[str | JoinHint]] = (),
    on_signing: SigningCallback | None = None,
    bots: Sequence[str] = (),
    game_ended: trio.Event | None = None,
) -> LobbyResult | None:
    """Host `table` on `mesh`, showing the roster as it fills; Enter starts early with at
    least two players (`host_table`'s start call), and again if all but the host left
    meanwhile. `rules`, `on_roster`, `on_signing`, `bots` (the host's bots' names) and
    `game_ended` are passed
    through (the host command refreshes its advertisement with `on_roster`); what comes
    on each of `warnings` is shown as it comes (a bot that could not sit down, a table
    that could not be advertised; a `JoinHint` changes the join command shown, with its
    warning, or takes its warning back if that is still shown), and a joiner turned
    away for running another release or a wrong code, one line until it is seated
    (`host_table`'s `on_turned_away`). None if the host closed the table."""
    screen = _Screen(terminal)
    identity = mesh.identity
    hint = join_hint or f"{this_program()} join {shell_word(table)}"
    scene = HostScene(table, seats, (), identity.short, hint, bool(code), starting=False)
    result: LobbyResult | None = None
    news = LobbyNews()

    def roster_changed(change: RosterChanged) -> None:
        nonlocal scene
        scene = replace(scene, members=seats_of(change.roster, identity.peer_id, change.reconnecting, change.linking))
        if scene.starting and len(scene.members) < 2:  # (the lobby forgot the call: the table is open again)
            scene = replace(scene, starting=False)
        if (note := _news_note(news, change)) is not None:
            scene = replace(scene, note=note)
        elif scene.note == TOO_FEW and len(scene.members) >= 2:  # (no longer true: Enter starts now)
            scene = replace(scene, note=None)
        if on_roster is not None:
            on_roster(change)
        screen.nudge()

    def signing() -> None:
        nonlocal scene  # (a question open before is closed: its answer was to another question)
        scene = replace(scene, starting=True, quitting=False, note=None if scene.note == TOO_FEW else scene.note)
        screen.nudge()

    def turned_away(line: str | None) -> None:
        nonlocal scene  # (stamped with the time of day: it stays until the next, and must not look current)
        note = None if line is None else Note(f"{time.strftime('%H:%M')} {line}", "warning")
        scene = replace(scene, turned_away=note)  # (None: its joiner is seated now)
        screen.nudge()

    with lone_exception_unwrapped():
        async with trio.open_nursery() as nursery:

            async def run_host(task_status: trio.TaskStatus[StartCall]) -> None:
                nonlocal result
                result = await host_table(mesh, name=name, table=table, seats=seats, code=code,
                                          rules=rules or DEFAULT_RULES, on_roster=roster_changed,
                                          on_signing=then_shown(on_signing, signing), on_turned_away=turned_away,
                                          bots=bots, game_ended=game_ended, task_status=task_status)
                screen.nudge()

            async def show_warnings(channel: trio.abc.ReceiveChannel[str | JoinHint]) -> None:
                nonlocal scene
                hinted: Note | None = None  # (the warning of the latest JoinHint)
                async for news in channel:
                    if isinstance(news, str):
                        scene = replace(scene, note=Note(news, "warning"))
                    elif news.warning:
                        hinted = Note(news.news, "warning")
                        scene = replace(scene, join_hint=news.command, note=hinted)
                    else:  # (its warning no longer holds: it goes, unless other news replaced it)
                        back = Note(news.news) if hinted is not None and scene.note is hinted else scene.note
                        scene = replace(scene, join_hint=news.command, note=back)
                        hinted = None
                    screen.nudge()

            start = await nursery.start(run_host)
            nursery.start_soon(screen.forward_keys)
            for channel in warnings:
                nursery.start_soon(show_warnings, channel)
            while (key := await screen.key(lambda: scene, lambda: result is not None)) is not None:
                if (asked := _question(scene, key)) is not None:
                    scene, leaving = asked
                    if leaving:  # (even if the start came with the answer: the player left)
                        nursery.cancel_scope.cancel()
                        return None
                elif key == "enter" and not scene.starting:
                    if len(scene.members) >= 2:
                        scene = replace(scene, starting=True, note=None)
                        start()
                    else:
                        scene = replace(scene, note=TOO_FEW)
            nursery.cancel_scope.cancel()  # (the game started, or the screen closed: None)
    return result


class LeftWhileLooking(Exception):
    """Ctrl-C on a screen that only waits (`until_left`): the player left at once."""


async def until_left(terminal: Terminal, work: Callable[[], Awaitable[_Found]]) -> _Found:
    """`work()`'s result, read while a screen that only waits is up (as `_find`'s search
    for a table): Ctrl-C there, or the terminal going away, raises `LeftWhileLooking` at
    once; any other key is let go."""
    screen = _Screen(terminal)
    done: list[_Found] = []
    with lone_exception_unwrapped():
        async with trio.open_nursery() as nursery:

            async def run() -> None:
                done.append(await work())
                nursery.cancel_scope.cancel()

            nursery.start_soon(run)
            nursery.start_soon(screen.forward_keys)
            while True:
                event = await screen.next()
                if event == "closed" or (isinstance(event, KeyPress) and event.key == "ctrl-c"):
                    nursery.cancel_scope.cancel()
                    break
    if not done:
        raise LeftWhileLooking
    return done[0]


async def pick_table_screen(
    terminal: Terminal,
    *,
    interfaces: Sequence[str] | None = None,
    find: Callable[..., Awaitable[list[TableAd]]] | None = None,
    trouble: str | None = None,
) -> TableAd | tuple[str, int] | None:
    """Tables with free seats on the LAN, refreshed continuously; returns the table
    picked, or (host, port) typed in, or None. `trouble`: why the last one picked could
    not be joined, shown until the next key. `find` replaces discovery (tests)."""
    screen = _Screen(terminal)
    scene = BrowseScene((), 0, looking=True, note=None if trouble is None else Note(f"{trouble[0].upper()}{trouble[1:]}.", "error"))
    search = find or browse

    with lone_exception_unwrapped():
        async with trio.open_nursery() as nursery:

            async def keep_browsing() -> None:
                nonlocal scene
                while True:
                    found = await search(BROWSE_S, interfaces=interfaces)
                    tables = tuple(sorted((t for t in found if t.free > 0), key=lambda t: not t.compatible))
                    chosen = scene.tables[scene.selected] if scene.tables else None
                    selected = next((i for i, t in enumerate(tables) if chosen is not None
                                     and (t.fingerprint, t.port) == (chosen.fingerprint, chosen.port)), 0)
                    scene = replace(scene, tables=tables, selected=selected, looking=False)
                    screen.nudge()

            nursery.start_soon(keep_browsing)
            nursery.start_soon(screen.forward_keys)
            while True:
                terminal.show(scene)
                event = await screen.next()
                if event == "closed":
                    break
                if not isinstance(event, KeyPress):
                    continue
                key = event.key
                entry = scene.entry
                if entry is not None:
                    if key == "enter":
                        address = parse_address(entry)
                        if address is None:
                            scene = replace(scene, note=Note("Type HOST:PORT, e.g. 192.168.1.20:41234", "error"))
                            continue
                        nursery.cancel_scope.cancel()
                        return address
                    if key == "esc":
                        scene = replace(scene, entry=None, note=None)
                    else:
                        scene = replace(scene, entry=edit(entry, key, 64))
                    continue
                if key in ("ctrl-c", "esc", "q"):
                    break
                if key in ("up", "w", "k") and scene.tables:
                    scene = replace(scene, selected=(scene.selected - 1) % len(scene.tables))
                elif key in ("down", "s", "j") and scene.tables:
                    scene = replace(scene, selected=(scene.selected + 1) % len(scene.tables))
                elif key.isdigit() and 1 <= int(key) <= len(scene.tables):
                    scene = replace(scene, selected=int(key) - 1)
                elif key == "enter" and scene.tables:
                    if not scene.tables[scene.selected].compatible:
                        scene = replace(scene, note=Note(scene.tables[scene.selected].other_version() + ".", "error"))
                        continue
                    nursery.cancel_scope.cancel()
                    return scene.tables[scene.selected]
                elif key == "p":
                    scene = replace(scene, entry="", note=None)
            nursery.cancel_scope.cancel()
    return None


async def join_lobby_screen(
    terminal: Terminal,
    mesh: Mesh,
    addresses: Sequence[tuple[str, int]],
    *,
    name: str,
    code: str | None = None,
    expect_host: bytes | str | None = None,
    what: str = "the table",
    check: Callable[[RosterChanged], None] | None = None,
    on_signing: SigningCallback | None = None,
    announced: bool = False,
) -> LobbyResult | None:
    """Join the table at `addresses` and wait, showing the roster, until the game starts.
    A missing or wrong table code is asked for on screen and the join retried. None if
    the player gave up. `check` sees each roster first (an exception it raises leaves
    the lobby before anything is signed); `on_signing` is passed through to `join_table`.
    `announced`: `expect_host` is only what the host announced on the LAN (no
    --fingerprint given), so the screen does not call it verified."""
    screen = _Screen(terminal)
    me = mesh.identity.peer_id
    scene = JoinScene(what, "", (), 0, "connecting")
    result: LobbyResult | None = None
    refused: JoinRefused | None = None
    asked = False  # the code is asked for because the host's offer wants one (no refusal yet)
    news = LobbyNews()

    def on_host(cert: Certificate) -> None:
        nonlocal scene
        how = ("trusted on first use: compare it with the host's screen" if expect_host is None else
               AS_ANNOUNCED if announced else "verified")
        scene = replace(scene, host_line=f"Host fingerprint {cert.short} ({how}).")
        screen.nudge()

    def on_roster(change: RosterChanged) -> None:
        nonlocal scene
        if check is not None:
            check(change)
        roster = change.roster
        scene = replace(scene, members=seats_of(roster, me, change.reconnecting), seats=roster.seats,
                        state="starting" if scene.state == "starting" else "waiting", note=_news_note(news, change))
        screen.nudge()

    def signing() -> None:
        nonlocal scene  # (a question open before is closed: its answer was to another question)
        scene = replace(scene, state="starting", quitting=False)
        screen.nudge()

    with lone_exception_unwrapped():
        async with trio.open_nursery() as nursery:

            async def attempt(with_code: str | None) -> None:
                nonlocal result, refused, asked
                try:
                    result = await join_table(mesh, addresses, name=name, code=with_code, expect_host=expect_host,
                                              on_host=on_host, on_roster=on_roster,
                                              on_signing=then_shown(on_signing, signing))
                except JoinRefused as exc:
                    if exc.code != "bad-code":
                        raise
                    refused = exc
                    asked = not with_code  # (no code yet: our own check of the host's offer, not its reply)
                screen.nudge()

            nursery.start_soon(attempt, code)
            nursery.start_soon(screen.forward_keys)
            while True:
                key = await screen.key(lambda: scene, lambda: result is not None or refused is not None)
                if refused is not None and result is None:
                    note = (Note(CODE_ASKED) if asked else Note(f"The host says: {refused.detail}.", "error"))
                    scene = replace(scene, state="code", entry="", note=note)
                    refused = None
                    continue
                if key is None:
                    break
                if scene.state == "code" and not scene.quitting:  # (Ctrl-C gives up the code at once)
                    if key == "enter" and scene.entry:
                        scene = replace(scene, state="connecting", note=None)
                        nursery.start_soon(attempt, scene.entry)
                    elif key in ("esc", "ctrl-c"):
                        nursery.cancel_scope.cancel()
                        return None
                    else:
                        scene = replace(scene, entry=edit(scene.entry, key, 64))
                elif (asked := _question(scene, key)) is not None:
                    scene, leaving = asked
                    if leaving:
                        nursery.cancel_scope.cancel()
                        return None
            nursery.cancel_scope.cancel()  # (the game started, or the screen closed: None)
    return result


async def sign_again_screen(terminal: Terminal, lines: Sequence[str],
                            gather: Callable[[], Awaitable[LobbyResult]]) -> LobbyResult | None:
    """A seat taken back as the seating was being signed (§11.3): `lines` (what the
    resume found) on screen while `gather` collects every member's signature again
    (`sign_again`); its result, or None if the player gave up (Ctrl-C, asked first) or
    the screen closed. What `gather` raises goes on."""
    screen = _Screen(terminal)
    scene = ReturnScene(tuple(lines), int(SIGN_WAIT))
    result: LobbyResult | None = None
    with lone_exception_unwrapped():
        async with trio.open_nursery() as nursery:

            async def run() -> None:
                nonlocal result
                result = await gather()
                screen.nudge()

            nursery.start_soon(run)
            nursery.start_soon(screen.forward_keys)
            while (key := await screen.key(lambda: scene, lambda: result is not None)) is not None:
                if (asked := _question(scene, key)) is not None:
                    scene, leaving = asked
                    if leaving:
                        terminal.show(replace(scene, quitting=False, leaving=True))  # (the caller tells the others)
                        nursery.cancel_scope.cancel()
                        return None
            nursery.cancel_scope.cancel()  # (every signature came, or the screen closed: None)
    return result


def edit(text: str, key: str, limit: int) -> str:
    """A line being typed, after `key` (or a paste, taken whole up to `limit`)."""
    if key.startswith(PASTE):
        return (text + key[len(PASTE):])[:limit]
    if key == "backspace":
        return text[:-1]
    if key == "space":
        key = " "
    if len(key) == 1 and key.isprintable() and len(text) < limit:
        return text + key
    return text


def parse_address(text: str) -> tuple[str, int] | None:
    try:
        return split_address(text)
    except ValueError:
        return None
