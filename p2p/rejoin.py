"""Resuming a seat after a crash: rebuild its order and table machines from its own
fairness log and journal (protocol.md §11.3). Sans-I/O.

Theory of operation
-------------------
A peer's state is a function of what it processed, in the order it processed it, plus
its seat seed. The fairness log records exactly that order (delivered messages and
side messages, interleaved as they were handled), so replaying the log through a fresh
`Orderer` (`restore_delivered`, `restore_side`) and a fresh `TableMachine` made from
the same seed reproduces the machine call for call: the same engine state, the same
secrets (every secret is derived from the seed by what it is for, §9.12), the same
messages to send.

Those messages were sent already, all but what the crash interrupted. Every message
the replay asks to send is matched against what the seat did send: side messages
against its own side records in the log (in chain order, payload for payload), content
against the content in its journal and log. What matches is dropped; what does not is
returned as `unsent`, to be sent now. A replay whose own side message differs from the
one the log holds would mean the seed or the code changed: that is refused, because
sending a second, different share would be equivocation.

Then the journal restores what the log cannot know: content that was sent but not yet
delivered goes back into the seat's chain, and acks restore the promises they made (a
resumed seat must never stamp below a stamp it promised, §7.3). Messages of others that
had arrived but were not yet in the log (not delivered yet, or delivered but kept in the
intake behind a held message, `p2p.table.intake`) are simply lost with the process; the
others resend them, because a peer's heads are believed even when they go down (§7.6).
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from engine import Event, Note
from p2p.errors import ProtocolError
from p2p.journal import JournalContents
from p2p.log import LogContents
from p2p.order import HEADER, SIDE_HEADER, Orderer, OrderError, Sign, is_side
from p2p.roster import TableRules
from p2p.schema import Schemas
from p2p.signing import SignedMessage, open_signed, signed_frame
from p2p.table import Step, TableMachine
from p2p.table.secrets import SeatSecrets
from p2p.wire import encode


class ResumeError(Exception):
    """The log and journal cannot be resumed from (§11.3)."""

    section = "§11.3"


@dataclass
class Restored:
    orderer: Orderer
    machine: TableMachine
    steps: list[Step] = field(default_factory=list)  # what the replay produced, in order
    unsent: Step = field(default_factory=Step)  # what the crash kept from being sent
    replayed: int = 0  # records replayed
    shares: int = 0  # of them, side messages (shares, §7.8); the rest are in the agreed order


def resumed_note(replayed: int, shares: int, ms: float) -> str:
    """The log's note of a resume (§11.3): what it replayed, counted as the audit's report
    tells it, messages in the agreed order apart from share messages."""
    ordered = replayed - shares
    return (f"resumed after a restart: {ordered} message{'s' * (ordered != 1)} in the agreed order and "
            f"{shares or 'no'} share message{'s' * (shares != 1)} replayed from this log in {ms:.0f} ms")


def _payload_key(inner: Mapping[str, Any]) -> bytes:
    """A message's own fields, without the §7.1/§7.8 header, canonically encoded."""
    return encode({k: v for k, v in inner.items() if k not in HEADER and k not in SIDE_HEADER})


def restore(
    *,
    log: LogContents,
    journal: JournalContents,
    seats: Sequence[bytes],
    rules: TableRules,
    keys: Mapping[bytes, bytes],
    schemas: Schemas,
    sign: Sign,
    now: float,
    on_applied: Callable[[TableMachine, Event, Sequence[Note], int | None], None] | None = None,
    on_step: Callable[[Step], None] | None = None,
) -> Restored:
    """Replay `log` and `journal` into fresh machines for seat `journal.seat`.

    `on_applied` and `on_step` watch the replay as the live peer watched the game (its
    narration, its round reports): `on_applied` right after every engine transition, with
    the machine in its new state, `on_step` after every call to the machine."""
    me, game = journal.seat, journal.game
    if log.header.seat != me:
        raise ResumeError(f"the log was written by seat {log.header.seat + 1}, the journal by seat {me + 1}")
    orderer = Orderer(seats=seats, me=me, game=game, sign=sign)
    machine = TableMachine(game_id=game, seats=seats, rules=rules, me=me, secrets=SeatSecrets(journal.seed))
    if on_applied is not None:
        machine.on_applied = partial(on_applied, machine)
    restored = Restored(orderer, machine)
    produced: Counter[bytes] = Counter()
    produced_payloads: dict[bytes, dict[str, Any]] = {}
    pending_side: deque[dict[str, Any]] = deque()

    def take(step: Step) -> None:
        restored.steps.append(step)
        if on_step is not None:
            on_step(step)
        if step.salt is not None:
            orderer.set_salt(step.salt)
        for payload in step.send:
            key = _payload_key(payload)
            produced[key] += 1
            produced_payloads[key] = payload
        pending_side.extend(step.side)
        if machine.owes_work:  # what the live peer made right after this step
            take(machine.catch_up())

    def opened(body: bytes, sig: bytes, where: str) -> SignedMessage:
        try:
            return open_signed(signed_frame(body, sig), keys, schemas)
        except ProtocolError as exc:
            raise ResumeError(f"{where}: {exc}") from None

    own_content: dict[int, bytes] = {}
    take(machine.start())
    try:
        for index, (side, body, sig) in enumerate(log.records()):
            envelope = opened(body, sig, f"log record {index}")
            if side:
                restored.shares += 1
                seat = orderer.restore_side(envelope)
                if seat == me:
                    if not pending_side:
                        raise ResumeError(f"log record {index}: our side message was not produced by the replay")
                    expected = pending_side.popleft()
                    if _payload_key(expected) != _payload_key(envelope.inner):
                        raise ResumeError(f"log record {index}: our side message differs from the replay's")
                    machine.sent_side(envelope)
                else:
                    take(machine.receive_side(seat, envelope, now))
            else:
                delivered = orderer.restore_delivered(envelope)
                if delivered.seat == me:
                    own_content[int(envelope.inner["seq"])] = _payload_key(envelope.inner)
                take(machine.deliver(delivered, now))
            restored.replayed += 1
        for index, (body, sig) in enumerate(journal.sent):
            envelope = opened(body, sig, f"journal record {index}")
            if envelope.sender != seats[me]:
                raise ResumeError(f"journal record {index} is not ours")
            orderer.restore_sent(envelope, now)
            if not is_side(envelope.inner) and envelope.inner.get("type") != "ack":
                own_content[int(envelope.inner["seq"])] = _payload_key(envelope.inner)
    except OrderError as exc:
        raise ResumeError(f"the records do not replay: {exc}") from None
    orderer.restored()
    missing = produced - Counter(own_content.values())
    for key, count in missing.items():
        restored.unsent.send.extend([produced_payloads[key]] * count)
    restored.unsent.side.extend(pending_side)
    return restored
