"""Every cheat of protocol.md §11.2, tried and judged.

`tests/test_cheats.py` asserts on these runs; `bench/cheats.py` tabulates them (cheats
detected / cheats tried). A run plays a table with one cheating seat (`tests.malicious`)
and judges what the honest seats did, on the same criteria for every cheat:

* detected: every honest seat named the culprit's seat under the rule it broke (alone,
  or, where nothing can tell which of two seats signed falsely, §7.5, as one of the two
  suspects);
* in the log: every honest fairness log holds a note naming the culprit (its peer id,
  or its name among the suspects) and the section; on screen: every honest live peer
  showed a line naming the culprit and the section;
* consistent: the honest seats' delivered sequences are prefixes of one another, and
  where the machine judged (a §8/§9 violation) they halted at the same place with the
  same verdict; where the cheat is refused and play goes on, they finished alike;
* the policy: the response each honest seat chose is the documented one (§11.2);
* the audit of every honest log: names the culprit where the log holds the proof (a
  machine violation), is clean where the cheat was refused, and never blames an honest
  seat (a log that ends early is reported as incomplete, with nobody blamed).
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

import trio

from p2p.audit import AuditResult, audit
from p2p.log import read_log
from p2p.order import message_hash
from p2p.peer import TablePeer
from p2p.policy import Response, Verdict
from p2p.signing import SignedMessage
from p2p.table import TableMachine
from tests.live_support import seat_live_table, until
from tests.test_table_games import SMALL
from tests.malicious import (
    BackdatedStamp,
    InflatedStamp,
    BlindSnap,
    Cheat,
    CheatingPeer,
    CheatingTable,
    Equivocation,
    FalseChallenge,
    OtherDigest,
    UnseenHeads,
    ForeignReplay,
    ForgedCard,
    IllegalAction,
    LastOpeningMachine,
    LiveCheat,
    OpeningDoesNotOpen,
    OutOfTurn,
    RoundReplay,
    SideEquivocation,
    Withhold,
    WithheldShare,
    WithholdingMachine,
    WrongShare,
    WrongSealedShare,
    AccompliceSeal,
    LeakedShare,
    BadKeyProof,
    backdated_stamp,
    equivocation,
    forged_ack_signature,
    forged_signature,
    foreign_replay,
    game_under_way,
    garbled_frame,
    malformed_header,
    impersonation,
    oversized_frame,
)

RULES = SMALL  # a 30-card deck with every power and both Bandits, a game to 20: short games
PLAYERS = 3
CHEATER = PLAYERS - 1  # the last to shuffle: its step fixes the final positions
LIVE_LIMIT = 60.0  # seconds a live table may take before the run is judged as it stands


@dataclass
class Judged:
    """One cheat tried at a table, and what the honest seats made of it."""

    cheat: str
    sections: tuple[str, ...]  # the rule(s) it breaks: the honest seats must name one
    policy: Response
    where: str = "in-memory"
    tried: bool = False
    detected: bool = False
    in_log: bool = False
    on_screen: bool | None = None  # None: no screen (in-memory seats)
    consistent: bool = False
    policy_followed: bool = False
    audit_ok: bool = False
    named: str = ""  # the verdict, as the honest seats gave it
    audit: str = ""  # what the audit of the honest logs says
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return (
            self.tried and self.detected and self.in_log and self.on_screen is not False and self.consistent
            and self.policy_followed and self.audit_ok
        )

    def explain(self) -> str:
        return f"{self.cheat} ({self.where}): " + ("; ".join(self.problems) or "ok")


def _prefixes(sequences: Sequence[Sequence[bytes]]) -> bool:
    """Whether each sequence is a prefix of the longest (the honest seats never diverge)."""
    longest = max(sequences, key=len)
    return all(list(s) == list(longest[: len(s)]) for s in sequences)


def _judge_audits(judged: Judged, results: Sequence[AuditResult], culprit: int, provable: bool) -> None:
    """`provable`: the honest logs hold the proof (the violating message among the
    delivered records, or signed evidence of a §7 violation), so the audit must name the
    culprit; otherwise it must blame nobody."""
    verdicts = set()
    ok = True
    for result in results:
        failure = result.first_failure
        if failure is not None and failure.seat is not None and failure.seat != culprit:
            ok = False
            judged.problems.append(f"the audit blames seat {failure.seat}, who is honest: {failure.describe()}")
        if judged.policy is Response.REJECT:
            ok = ok and result.ok
            verdicts.add("clean" if result.ok else f"NOT clean: {failure.describe() if failure else ''}")
        elif provable:
            alone = failure is not None and failure.seat == culprit
            among = failure is not None and failure.seat is None and culprit in failure.suspects
            named = (alone or among) and failure is not None and failure.section in judged.sections
            ok = ok and named
            verdicts.add(f"names seat {culprit}{' among its suspects' if among else ''} ({failure.section})"
                         if named and failure else f"misses it: {failure}")
        else:  # seen on receipt: the log holds no proof, and must blame nobody
            ok = ok and failure is not None and failure.seat is None
            verdicts.add("no proof in the log: blames nobody" if failure is not None and failure.seat is None else f"{failure}")
    judged.audit_ok = ok
    judged.audit = "; ".join(sorted(verdicts))
    if not ok and not judged.problems:
        judged.problems.append(f"audit: {judged.audit}")


def _suspects(note: str) -> list[str]:
    """The names a note of a verdict with suspects begins with ("Bo or Cy (seats 2 or 3): …")."""
    who = note.split(" (", 1)[0]
    return who.split(" or ") if " or " in who else []


def _named(verdicts: Sequence[Verdict], culprit: int, sections: tuple[str, ...], policy: Response) -> Verdict | None:
    """The verdict naming the culprit under one of `sections`, the one of `policy` first
    (a cheater's intents refused in a void round are named too, but do not decide)."""
    named = [v for v in verdicts if (v.seat == culprit or v.seat is None and culprit in v.suspects)
             and v.section in sections]
    return next((v for v in named if v.response is policy), named[0] if named else None)


# -- in-memory runs --------------------------------------------------------------------


def judge_table(net: CheatingTable, cheat: Cheat, sections: tuple[str, ...], policy: Response, logs: Path) -> Judged:
    """Judge a finished `CheatingTable` run (see the module docstring for the criteria)."""
    judged = Judged(cheat.name, sections, policy, tried=cheat.tried)
    culprit, honest = net.cheater, net.honest
    culprit_id = net.peers[culprit].orderer.seats[culprit]
    if not cheat.tried:
        judged.problems.append("the cheat was never committed")
    named = {seat: _named(net.verdicts[seat], culprit, sections, policy) for seat in honest}
    judged.detected = all(v is not None for v in named.values())
    if not judged.detected:
        judged.problems.append(f"not named by every honest seat: {[(s, net.verdicts[s][:3]) for s in honest]}")
    first = next((v for v in named.values() if v is not None), None)
    judged.named = f"seat {culprit}: {first.section}: {first.reason}" if first else "-"
    paths = net.write_logs(logs)
    name = net.roster.members[culprit].name
    judged.in_log = all(
        any(n.section in sections and (n.peer == culprit_id or n.peer is None and name in _suspects(n.text))
            for n in read_log(paths[seat]).notes)
        for seat in honest
    )
    if not judged.in_log:
        judged.problems.append("a log lacks the note naming the culprit")
    machines = {seat: net.tables[seat].machine for seat in honest}
    delivered = [[message_hash(d.envelope.body) for d in net.tables[seat].log] for seat in honest]
    halts = {(m.halted.section, m.halted.seat, m.position) for m in machines.values() if m.halted is not None}
    machine_judged = all(m.halted is not None for m in machines.values())
    if policy is Response.REJECT:
        judged.consistent = len({tuple(d) for d in delivered}) == 1 and len({m.engine.state_hash() for m in machines.values()}) == 1
        judged.policy_followed = all(m.finished for m in machines.values()) and all(
            v is not None and v.response is Response.REJECT for v in named.values()
        )
    else:
        judged.consistent = _prefixes(delivered) and (not machine_judged or len(halts) == 1)
        judged.policy_followed = all(net.over_for(s) and not machines[s].finished for s in honest) and all(
            v is not None and v.response is Response.ABORT for v in named.values()
        )
    if not judged.consistent:
        judged.problems.append(f"honest seats disagree: halts {halts}, delivered {[len(d) for d in delivered]}")
    if not judged.policy_followed:
        judged.problems.append("the documented policy was not followed")
    evidence = all(read_log(paths[seat]).evidence for seat in honest)
    _judge_audits(judged, [audit(paths[seat]) for seat in honest], culprit, machine_judged or evidence)
    return judged


def run_table(cheat: Cheat, sections: tuple[str, ...], policy: Response, logs: Path, *, seed: int = 6,
              **net: Any) -> tuple[CheatingTable, Judged]:
    """Play a table where seat `CHEATER` runs `cheat`, and judge it."""
    table = CheatingTable(PLAYERS, seed, cheat, CHEATER, **{"rules": RULES, **cheat.table, **net})
    table.run(limit=3600.0)
    return table, judge_table(table, cheat, sections, policy, logs)


MEMORY: dict[str, tuple[Callable[[], Cheat], tuple[str, ...], Response]] = {
    "out-of-turn": (OutOfTurn, ("R5",), Response.REJECT),
    "illegal-action": (IllegalAction, ("R3",), Response.REJECT),
    "blind-snap": (BlindSnap, ("§9.5",), Response.REJECT),
    "wrong-share": (WrongShare, ("§8.5",), Response.ABORT),
    "wrong-sealed-share": (WrongSealedShare, ("§8.5",), Response.ABORT),
    "leaked-share": (LeakedShare, ("§8.5",), Response.ABORT),
    "sealed-to-accomplice": (AccompliceSeal, ("§8.5",), Response.ABORT),
    "bad-proof": (BadKeyProof, ("§8.3",), Response.ABORT),
    "commitment": (OpeningDoesNotOpen, ("§8.7",), Response.ABORT),
    "not-a-card-public": (lambda: ForgedCard("not-a-card public"), ("§8.4",), Response.ABORT),
    "not-a-card-private": (lambda: ForgedCard("not-a-card private"), ("§8.4",), Response.ABORT),
    "duplicate-card": (lambda: ForgedCard("duplicate"), ("§8.4",), Response.ABORT),
    "replaced-card": (lambda: ForgedCard("replaced"), ("§8.4",), Response.ABORT),
    "copied-ciphertext": (lambda: ForgedCard("verbatim"), ("§8.4",), Response.ABORT),
    "false-challenge": (FalseChallenge, ("§9.10",), Response.ABORT),
    "other-digest": (OtherDigest, ("§9.7",), Response.ABORT),
    "withheld-share": (WithheldShare, ("§9.4",), Response.ABORT),
    "withheld-key": (lambda: Withhold("keys", "key"), ("§9.2",), Response.ABORT),
    "withheld-beacon-reveal": (lambda: Withhold("beacon.reveal", "beacon reveal"), ("§8.6",), Response.ABORT),
    "withheld-shuffle-step": (lambda: Withhold("shuffle", "shuffle step"), ("§9.3",), Response.ABORT),
    "withheld-opening": (lambda: Withhold("opening", "opening"), ("§9.7",), Response.ABORT),
    "withheld-done": (lambda: Withhold("done", "end of game"), ("§9.8",), Response.ABORT),
    "equivocation": (lambda: Equivocation({0}), ("§7.2",), Response.ABORT),
    "side-equivocation": (lambda: SideEquivocation({0}), ("§7.2",), Response.ABORT),
    "backdated-stamp": (BackdatedStamp, ("§7.3",), Response.ABORT),
    "inflated-stamp": (InflatedStamp, ("§7.3",), Response.ABORT),
    "unseen-heads": (UnseenHeads, ("§7.5",), Response.ABORT),
    "replay-other-game": (ForeignReplay, ("§7.1",), Response.REJECT),
    "replay-earlier-round": (RoundReplay, ("§9.3",), Response.ABORT),
}
"""In-memory cheats: name -> (the cheat, the sections it breaks, the policy of §11.2)."""


# -- live runs (real TLS links on loopback) --------------------------------------------------


LIVE: dict[str, tuple[Callable[[list[Any]], Callable[[CheatingPeer, bytes], bytes]], tuple[str, ...], Response]] = {
    "forged-signature": (lambda ids: forged_signature, ("§4.5",), Response.ABORT),
    "impersonation": (lambda ids: impersonation, ("§4.5",), Response.ABORT),
    "oversized-frame": (lambda ids: oversized_frame, ("§4.2",), Response.ABORT),
    "garbled-frame": (lambda ids: garbled_frame, ("§4.3",), Response.ABORT),
    "malformed-header": (lambda ids: malformed_header, ("§7.1",), Response.ABORT),
    "replay-across-links": (foreign_replay, ("§7.1",), Response.REJECT),
    "equivocation-live": (lambda ids: equivocation(), ("§7.2",), Response.ABORT),
    "backdated-stamp-live": (lambda ids: backdated_stamp(), ("§7.3",), Response.ABORT),
    "forged-ack-signature": (lambda ids: forged_ack_signature(), ("§4.5",), Response.ABORT),
}
"""Cheats on the wire: name -> (the frame maker, given every seat's identity; sections; policy)."""

LIVE_WORDS = {
    "forged-signature": "forged signature",
    "impersonation": "signed as another seat",
    "oversized-frame": "oversized frame",
    "garbled-frame": "garbled frame",
    "malformed-header": "malformed header",
    "replay-across-links": "replayed message (across links)",
    "equivocation-live": "equivocation",
    "backdated-stamp-live": "backdated Lamport stamp",
    "forged-ack-signature": "ack with a forged signature",
}


def swap_machine(peer: TablePeer, cls: type[TableMachine], **extra: Any) -> TableMachine:
    """Give a live peer a machine of class `cls` (a cheating one) before it runs."""
    old = peer.machine
    machine = cls(game_id=old.context.game_id, seats=old.seats, rules=old.rules, me=old.me, source=os.urandom)
    for name, value in extra.items():
        setattr(machine, name, value)
    peer.machine = machine
    machine.on_applied = partial(peer._narrate, machine)
    if peer.driver is not None:
        peer.driver.machine = machine
    return machine


async def play_live(peers: list[TablePeer], cheater: TablePeer,
                    beside: Callable[[], Awaitable[None]] | None = None) -> None:
    """Run the table until every honest peer's game ended (or `LIVE_LIMIT` passed);
    `beside`, a task of the cheat's (`LateFrames.sending`), runs until the peers are done."""
    honest = [p for p in peers if p is not cheater]
    async with trio.open_nursery() as cheat:
        if beside is not None:
            cheat.start_soon(beside)
        async with trio.open_nursery() as nursery:
            for peer in peers:
                nursery.start_soon(peer.run)
            with trio.move_on_after(LIVE_LIMIT):
                await _until_ended(honest)
            for peer in peers:
                peer._finish("the test is over")
        cheat.cancel_scope.cancel()


class LateFrames:
    """Frames a cheater sends `lag` seconds after it made them, in the order made, by
    `send`: `hold` one now; `sending` is the task that sends them (`play_live`'s `beside`)."""

    def __init__(self, lag: float, send: Callable[[bytes], None]) -> None:
        self.lag, self._send = lag, send
        self._held, self._due = trio.open_memory_channel[tuple[float, bytes]](float("inf"))

    def hold(self, frame: bytes) -> None:
        self._held.send_nowait((trio.current_time() + self.lag, frame))

    async def sending(self) -> None:
        async for at, frame in self._due:
            await trio.sleep_until(at)
            self._send(frame)


async def _until_ended(peers: Sequence[TablePeer]) -> None:
    """Wait, on the peers' own change events (no polling), until each one's game ended."""
    while pending := [p for p in peers if not p.progress.ended]:
        events = [p._watch.changed for p in pending]  # taken before yielding: no poke is missed
        async with trio.open_nursery() as nursery:
            for event in events:

                async def wake(event: trio.Event = event) -> None:
                    await event.wait()
                    nursery.cancel_scope.cancel()

                nursery.start_soon(wake)


def judge_live(name: str, peers: list[TablePeer], cheater: TablePeer, cheat: LiveCheat | None, tried: bool,
               sections: tuple[str, ...], policy: Response) -> Judged:
    judged = Judged(name, sections, policy, where="live TLS", tried=tried)
    culprit = cheater.me
    culprit_id = cheater.identity.peer_id
    honest = [p for p in peers if p is not cheater]
    culprit_name = cheater.names[culprit]
    if not tried:
        judged.problems.append("the cheat was never committed")
    logs = [read_log(p.log.path) for p in honest]
    judged.in_log = all(any(n.peer == culprit_id and n.section in sections for n in log.notes) for log in logs)
    judged.detected = judged.in_log
    lines = [[line for line in p.lines if line.seat == culprit and line.kind in ("error", "warning")] for p in honest]
    judged.on_screen = all(
        any(culprit_name in line.text and any(s in line.text for s in sections) for line in mine) for mine in lines
    )
    named = next((line.text for line in lines[0] if any(s in line.text for s in sections)), "-")
    judged.named = named
    if not judged.detected:
        judged.problems.append(f"not named in every honest log: {[[n.text for n in log.notes] for log in logs]}")
    if not judged.on_screen:
        judged.problems.append(f"not named on every honest screen: {[[l.text for l in mine] for mine in lines]}")
    delivered = [[message_hash(body) for body, _ in log.messages] for log in logs]
    if policy is Response.REJECT:
        judged.consistent = len({tuple(d) for d in delivered}) == 1
        judged.policy_followed = all(p.machine.finished for p in honest)
    else:
        judged.consistent = _prefixes(delivered)
        judged.policy_followed = all(p.progress.ended and not p.machine.finished for p in honest) and all(
            culprit_name in p.progress.ended_why for p in honest
        )
    if not judged.consistent:
        judged.problems.append("honest peers delivered different sequences")
    if not judged.policy_followed:
        judged.problems.append(f"policy not followed: {[(p.machine.finished, p.progress.ended_why) for p in honest]}")
    provable = all(p.machine.halted is not None for p in honest) or all(log.evidence for log in logs)
    _judge_audits(judged, [audit(p.log.path) for p in honest], culprit, provable)
    return judged


async def run_live_frame(name: str, root: Path, *, later: int = 0) -> Judged:
    """A live table whose cheating seat sends one bad frame to every other seat (with
    `later`, to one seat first and to the others `later` of its inputs after)."""
    make, sections, policy = LIVE[name]
    stack, peers = await seat_live_table(root, PLAYERS, person=False, rules=RULES, classes={CHEATER: CheatingPeer})
    async with stack:
        cheater = peers[CHEATER]
        assert isinstance(cheater, CheatingPeer)
        cheat = LiveCheat(name, make([p.identity for p in peers]), later=later)
        cheater.cheat = cheat
        await play_live(peers, cheater)
    return judge_live(LIVE_WORDS[name], peers, cheater, cheat, cheat.tried, sections, policy)


async def run_live_withheld_share(root: Path, stall_s: float = 0.5, *, unreached: int | None = None) -> Judged:
    """A live table whose cheating seat never publishes its share of one reveal; with
    `unreached` (an index into the peers), every ack it sends also says it has no link to
    that peer's seat (§7.1 `away`), while the link is up."""
    stack, peers = await seat_live_table(root, PLAYERS, person=False, rules=RULES)
    async with stack:
        cheater = peers[CHEATER]
        cheat = WithheldShare(need=6)  # the first discard, a reveal to all: every seat owes a share
        swap_machine(cheater, WithholdingMachine, cheat=cheat)
        if unreached is not None:
            say_away(cheater, peers[unreached].me)
        for peer in peers:
            peer.machine.stall_s = stall_s
        await play_live(peers, cheater)
    return judge_live(cheat.name, peers, cheater, None, cheat.tried, ("§9.4",), Response.ABORT)



async def run_live_frozen_acks(root: Path, stall_s: float = 0.5) -> tuple[list[TablePeer], bool]:
    """A live table whose cheating seat, once others' content came, sends copies of one
    ack for good, and no content (which would cover the others' messages as its
    promise, §7.3): its heartbeats keep its links up while nothing can be delivered. The
    peers, and whether the acks froze."""
    stack, peers = await seat_live_table(root, PLAYERS, person=False, rules=RULES)
    async with stack:
        cheater = peers[CHEATER]
        for peer in peers:
            peer.machine.stall_s = stall_s
            peer.grace = 12.0
        tried = False

        async def freeze() -> None:
            nonlocal tried
            await until(lambda: cheater.orderer.holding_back() is not None, cheater)  # (others' content came)
            frozen = cheater.orderer.ack(trio.current_time())
            cheater.orderer.ack = lambda now: frozen  # type: ignore[method-assign]
            cheater.orderer.post = lambda payload, now: []  # type: ignore[method-assign]
            cheater.orderer.deliveries = lambda: iter(())  # type: ignore[method-assign]  # (nor judges the claims)
            tried = True

        async with trio.open_nursery() as nursery:
            nursery.start_soon(freeze)
            await play_live(peers, cheater)
    return peers, tried


async def run_live_late_acks(root: Path, lag: float, stall_s: float = 2.0) -> tuple[list[TablePeer], bool]:
    """A live table whose cheating seat, once the game is under way, sends every ack
    (heartbeats too) `lag` seconds late, each as it was made: each one covers what the
    others sent before it, so the table goes on, one late promise after another. The
    peers, and whether an ack went out late. (A long game: none ends before the claims.)"""
    stack, peers = await seat_live_table(root, PLAYERS, person=False, rules=replace(RULES, target=10_000))
    async with stack:
        cheater = peers[CHEATER]
        for peer in peers:
            peer.machine.stall_s = stall_s
            peer.grace = 12.0
        late = LateFrames(lag, cheater.mesh.broadcast_frame)
        broadcast = cheater._broadcast
        tried = False

        def slow(envelope: SignedMessage) -> None:
            nonlocal tried
            if envelope.inner["type"] != "ack" or not game_under_way(cheater.machine):
                broadcast(envelope)
                return
            tried = True
            cheater._journal_sent(envelope)
            late.hold(envelope.wire)

        cheater._broadcast = slow  # type: ignore[method-assign]
        await play_live(peers, cheater, late.sending)
    return peers, tried


async def run_live_slow_link(root: Path, lag: float, victim: int = 0) -> list[TablePeer]:
    """A live table whose cheating seat, once the game is under way, holds back every
    frame it sends to one honest seat (`victim`, an index into the peers) for `lag`
    seconds, each as it was made, and sends the other seat everything at once: to the
    victim, a link that is up (frames keep coming) but late. The peers, once every honest
    game ended."""
    stack, peers = await seat_live_table(root, PLAYERS, person=False, rules=replace(RULES, target=10_000))
    async with stack:
        cheater, slowed = peers[CHEATER], peers[victim].identity.peer_id
        for peer in peers:
            peer.machine.stall_s = 2.0
            peer.grace = 12.0
        mesh = cheater.mesh
        send_frame, broadcast_frame = mesh.send_frame, mesh.broadcast_frame
        late = LateFrames(lag, partial(send_frame, slowed))

        def send_slowly(peer_id: bytes, frame: bytes) -> None:
            if peer_id == slowed and game_under_way(cheater.machine):
                late.hold(frame)
            else:
                send_frame(peer_id, frame)

        def broadcast_slowly(frame: bytes, exclude: Iterable[bytes] = ()) -> None:
            if slowed in exclude or not game_under_way(cheater.machine):
                broadcast_frame(frame, exclude)
                return
            broadcast_frame(frame, [*exclude, slowed])
            late.hold(frame)

        mesh.send_frame, mesh.broadcast_frame = send_slowly, broadcast_slowly  # type: ignore[method-assign]
        await play_live(peers, cheater, late.sending)
    return peers


def say_away(peer: TablePeer, seat: int) -> None:
    """Make every ack `peer` sends say it has no link to `seat`, whatever its links are."""
    orderer = peer.orderer
    set_away = orderer.set_away
    orderer.set_away = lambda seats: set_away({*seats, seat})  # type: ignore[method-assign]
    orderer.set_away(())


async def run_live_last_opening(root: Path) -> tuple[Judged, list[TablePeer]]:
    """A live table whose cheating seat opens the game's last round with a salt it did not
    commit to: the round's scores, and so the winner, never stand (§8.9)."""
    stack, peers = await seat_live_table(root, PLAYERS, person=False, rules=RULES)
    async with stack:
        cheater = peers[CHEATER]
        machine = swap_machine(cheater, LastOpeningMachine)
        await play_live(peers, cheater)
    return judge_live("last round's shuffle commitment that does not open", peers, cheater, None, machine.tried,
                      ("§8.7",), Response.ABORT), peers


def table(runs: Sequence[Judged]) -> list[str]:
    """The cheats tried and what the honest seats made of them, as a readable table."""
    head = ("cheat", "where", "rule", "policy", "named by every honest seat", "log", "screen", "agree", "audit of honest logs")
    rows = [
        (
            j.cheat, j.where, "/".join(j.sections), j.policy.value,
            ("yes: " if j.detected else "NO: ") + j.named[:60], _yes(j.in_log), "-" if j.on_screen is None else _yes(j.on_screen),
            _yes(j.consistent), j.audit[:48],
        )
        for j in runs
    ]
    widths = [max(len(str(r[i])) for r in (head, *rows)) for i in range(len(head))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip() for row in (head, *rows)]
    detected, scenarios = score(runs)
    lines.insert(1, "  ".join("-" * w for w in widths))
    untried = sum(not j.tried for j in runs)
    lines.append(f"cheats detected / cheats tried: {detected}/{scenarios}"
                 + (f" ({untried} never happened: counted as not detected)" if untried else ""))
    return lines


def score(runs: Sequence[Judged]) -> tuple[int, int]:
    """(detected, scenarios): a cheat that never happened counts as not detected, so a
    scenario that stops cheating shows as a miss instead of leaving the count."""
    return sum(j.tried and j.ok for j in runs), len(runs)


def _yes(flag: bool) -> str:
    return "yes" if flag else "NO"
