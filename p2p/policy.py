"""What a seat does about a peer that breaks the protocol (protocol.md §11.2).

Theory of operation
-------------------
Each rule is checked where it lives: the transport refuses bad frames and signatures
(§4), the order refuses messages that break chains, stamps or the game id (§7), the
table machine judges cards, proofs and moves (§8, §9) and the engine the rules (R1–R10).
This module only decides what follows, so the live peer and the test networks answer
every kind of misbehaviour alike, and name the same culprit for it:

* ``REJECT``: the message is refused and changes nothing; its sender is named; play goes
  on. An intent the rules refuse is judged by every peer at the same place of the
  order; a message of another game (a replay) is simply not part of this one.
* ``ABORT``: the game ends here, naming the culprit; the log is closed and stays valid
  up to this point. Violations of §8/§9 halt every honest machine at the same place of
  the order (the machine decides, `TableViolation`); frames that break §4 and messages
  that break §7 are seen on receipt, by each peer for itself, so the peer that saw one
  also says why it leaves (a ``leave`` naming the culprit) so that the others end too.

A verdict never depends on which peer judges it, except in *who noticed first*: the
culprit and the section are the same wherever they are found. A violation that stops the
game is told in the audit's plain words (`p2p.plain`), its section in brackets, before
the check's own account: the player reads at the table what the audit will say.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import Enum

from engine.errors import Where, Who, Words, slot_named, spell
from p2p.errors import ProtocolError
from p2p.order import ForeignGame, OrderError
from p2p.plain import broke, either, either_seats
from p2p.table.machine import Refused, TableViolation


class Response(Enum):
    REJECT = "reject"  # refuse the message, name its sender, play on
    ABORT = "abort"  # end the game here, naming the culprit


@dataclass(frozen=True)
class Verdict:
    """What happened, who is to blame, under which rule, and what this seat does about it."""

    response: Response
    seat: int | None  # the culprit's seat (None: nobody can be named alone)
    section: str  # the violated rule: an R-number or a protocol section
    reason: str
    suspects: tuple[int, ...] = ()  # (seat None) the seats one of which broke it, if that much is known
    words: Words = ()  # the reason with its seats and slots left to name, as the engine or the table gave it

    @property
    def aborts(self) -> bool:
        return self.response is Response.ABORT

    def who(self, names: Sequence[str]) -> str:
        if self.seat is None and self.suspects and all(s < len(names) for s in self.suspects):
            return either(self.suspects, names)
        return "a peer" if self.seat is None or self.seat >= len(names) else names[self.seat]

    def _seats(self) -> str:
        if self.seat is None and self.suspects:
            return either_seats(self.suspects)
        return f"seat {self.seat if self.seat is None else self.seat + 1}"

    def told(self, names: Sequence[str]) -> str:
        """The reason with the seats and slots it names told by their players' names, as
        the audit's report tells them (the bare reason counts them from 1, as people do)."""
        return told_with(self.words, self.reason, names)

    def did(self) -> str | None:
        """What the culprit did, in the audit's plain words (`p2p.plain.broke`), for a
        violation that stops the game (of suspects: that nothing tells which); None for a
        refusal (the rules' own words tell it) or where those words do not tell it."""
        did = broke(self.section, self.reason) if self.aborts else None
        return f"{did}, and nothing tells which" if did is not None and self.seat is None and self.suspects else did

    def _plainly(self, who: str, names: Sequence[str], then: str = "") -> str | None:
        """"Bo sent … [§4.5]`then`. In detail: §4.5: …": the plain words (`did`) first, as the
        audit's verdict gives them, then the check's own account; None where `did` is."""
        did = self.did()
        if did is None:
            return None
        return f"{who} {did} [{self.section}]{then}. In detail: {self.section}: {self.told(names)}"

    def line(self, names: Sequence[str]) -> str:
        """The sentence for the screen: what the culprit did in plain words, then the detail."""
        plainly = self._plainly(self.who(names), names, "; the game stops")
        if plainly is not None:
            return plainly
        if self.aborts:
            return f"{self.who(names)} broke the rules of the table ({self.section}: {self.told(names)}); the game stops."
        return f"{self.who(names)}'s message was refused ({self.section}: {self.told(names)})."

    def after_the_game(self, names: Sequence[str]) -> str:
        """The sentence for the screen of a violation that came after this seat's game
        ended (§11.4): it stops nothing, and the log, closed, keeps nothing of it."""
        said = self._plainly(self.who(names), names) or f"{self.who(names)} broke {self.section}: {self.told(names)}"
        return f"After the game ended: {said}. Your log was closed before it and keeps nothing of it."

    def note(self, names: Sequence[str]) -> str:
        """The sentence for the fairness log (§10.1 ``log.note``), in the words of `line`."""
        # (a refusal may come after the game's end: it changed nothing, and nothing goes on)
        what = "the game stops" if self.aborts else "refused: it changes nothing"
        plainly = self._plainly(f"{self.who(names)} ({self._seats()})", names)
        if plainly is not None:
            return f"{plainly} ({what})"
        return f"{self.who(names)} ({self._seats()}): {self.section}: {self.told(names)} ({what})"

    def leave_reason(self, names: Sequence[str]) -> str:
        """Why this seat leaves, for the others' screens (a §9.8 ``leave``, ≤ 200 characters)."""
        plainly = self._plainly(self.who(names), names)
        if plainly is not None and len(plainly) > 200:  # (the plain sentence whole, rather than its detail cut)
            plainly = f"{self.who(names)} {self.did()} [{self.section}]"
        return (plainly or f"{self.who(names)} broke {self.section}: {self.told(names)}")[:200]


def told_with(words: Words, reason: str, names: Sequence[str]) -> str:
    """`words` told with the players' `names` for the seats and slots they name; `reason`
    (the words as the logs keep them) where there are none, or a seat has no name."""
    if not words or any(not 0 <= s < len(names) for s in _seats_in(words)):
        return reason
    return spell(words, lambda w: f"{names[w.seat]}'s" if w.form == "possessive" else names[w.seat],
                 lambda w: f"{names[w.owner]}'s {slot_named(w.slot)}")


def _seats_in(words: Words) -> Iterator[int]:
    """Every seat `words` names, as a player or as a slot's owner."""
    for word in words:
        if isinstance(word, Who):
            yield word.seat
        elif isinstance(word, Where):
            yield word.owner


def on_link_fault(error: ProtocolError, seat: int | None) -> Verdict:
    """A frame that breaks §4 (or a message schema) on the authenticated link of `seat`.

    Over TLS nothing is garbled in transit, so the peer at the other end sent it."""
    return Verdict(Response.ABORT, seat, error.section, error.reason)


def on_order_error(error: OrderError, signer: int | None, link: int | None) -> Verdict:
    """A message the order refused on receipt (§7), signed by `signer`, received over the
    link of `link`.

    A message of another game is a replay: it is refused and blamed on whoever sent it
    over its link (the signer may have sent it honestly in that other game). Anything else
    the order refuses is proven by the signer's own signatures (§7.2, §7.3), or, for an
    ack that declares holding what this seat never signed (§7.10), known to this seat
    alone as the author of its chain: abort."""
    if isinstance(error, ForeignGame):
        return Verdict(Response.REJECT, link, error.section, f"{error.reason} (a replay)")
    return Verdict(Response.ABORT, signer, error.section, error.reason)


def on_refusal(refused: Refused) -> Verdict:
    """An intent the rules (or §9.5) refused: every peer refuses it at the same place."""
    return Verdict(Response.REJECT, refused.seat, refused.section, refused.reason, words=refused.words)


def on_violation(violation: TableViolation) -> Verdict:
    """A §8/§9 violation: every honest machine halted at the same place."""
    return Verdict(Response.ABORT, violation.seat, violation.section, violation.reason, violation.suspects,
                   words=violation.words)
