"""A verdict in a player's words (§10.2): who did what, with the rule and the record in
brackets, before the check's own technical account, which follows it for experts.

`CHECKS` (by the name of the check that failed, as the card protocol gives it: §8),
`SAID` (by how the table's account starts, where one rule is broken in several ways) and
`SECTIONS` (by the rule, where no check is named) are the one table of plain words that
tells a violation (`broke`): the audit's report wherever it tells a verdict (its story,
its verdict line, the line of each log compared, §10.3), and the table itself, on its
player's screen and in its log's note, when it stops a peer (`p2p.policy.Verdict`), so a
player reads the same sentence at the table and in the audit. A side message (§7.8) is
named here too, by what it carried and its place in its sender's chain counted from the
first (`side_message`: "first share message"), with what one is (`SHARE_MESSAGES`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (the audit's results are only read here: the table's words must not need the audit)
    from p2p.audit import AuditResult, Failure
    from p2p.log import Note

CHECKS: dict[str, str] = {
    # the shared random seed (§8.6)
    "beacon-commitment": "revealed another random value for the shuffle's seed than the one they had committed to",
    "duplicate-commit": "committed twice to the shuffle's random seed",
    "duplicate-reveal": "revealed their part of the shuffle's random seed twice",
    "reveal-too-early": "revealed their part of the shuffle's random seed before everyone had committed",
    "reused-nonce": "reused a value that must be fresh for the shuffle's random seed",
    # keys (§8.3)
    "schnorr": "gave a proof of their deck key that does not hold",
    "duplicate-key": "gave a deck key that another player had already given",
    "joint-key": "gave a deck key that cannot be used at the table",
    # shuffles (§8.4, §8.7)
    "not-a-reencryption": "shuffled a card into the deck that is not one of the cards they were given: they changed a card",
    "shuffle-commitment": "showed a shuffle other than the one they had committed to: they could have arranged the "
                          "deck",
    "missing-opening": "did not show every step of their shuffle",
    "duplicate-opening": "showed a step of their shuffle twice",
    "duplicate-ciphertext": "shuffled two copies of one card into the deck",
    "shuffle-proof": "sent a shuffled deck they could not prove holds exactly the cards they were given (a card "
                     "changed, copied or invented)",
    "deck-size": "sent a shuffled deck that does not hold the table's number of cards",
    "deck-point": "sent a shuffled deck that holds something that is no card",
    "wrong-step": "sent a shuffle step out of its turn",
    "wrong-chain": "sent a shuffle step for a shuffle that is not under way",
    "out-of-turn": "sent a shuffle step out of its turn",
    "chain-complete": "sent a shuffle step after the shuffle was complete",
    "duplicate-card": "shuffled a copy of a card into the deck, so one card turned up twice",
    "not-a-card": "shuffled something that is no card into the deck",
    # shares of a card (§8.5)
    "chaum-pedersen": "published a share of a card whose proof does not hold: a false share, which could show a wrong card",
    "share-point": "published a share of a card that is not a valid share",
    "seal": "sealed a share of a card for a player with a proof that does not hold",
    "sealed-point": "sealed a share of a card for a player that is not a valid share",
    "own-share-published": "published openly a share of a card that was for a player's eyes only",
    "not-owed": "sent a share of a card that was not theirs to reveal to that player",
    "duplicate-share": "sent their share of one card twice",
    "wrong-card": "sent a share for another card than the one being turned up",
    "wrong-kind": "sent a share of the wrong kind (open where it had to be sealed for a player, or the reverse)",
    "not-rerandomized": "shuffled the deck without disguising a card anew, so it could be followed through the shuffle",
    # any card-protocol message
    "wrong-round": "sent a card-protocol message for another round than the one under way",
    "unknown-peer": "sent a card-protocol message naming someone not seated at the table",
    "point": "sent a value that is not a valid card-protocol value",
    "length": "sent a card-protocol message of the wrong form",
    "permutation": "sent a card-protocol message of the wrong form",
    "range": "sent a card-protocol message of the wrong form",
    "scalar": "sent a card-protocol message of the wrong form",
    "type": "sent a card-protocol message of the wrong form",
}
"""A failed check of the card protocol (§8), as its name starts the technical account."""

SECTIONS: dict[str, str] = {
    "§4.2": "sent a frame of a length the protocol does not allow",
    "§4.3": "sent bytes that are not a message (a garbled frame)",
    "§4.4": "sent a message of the wrong form",
    "§4.5": "sent a message whose signature is not theirs: a forged or altered message",
    "§4.6": "sent a link message that does not belong on the link (a second hello, or another table's)",
    "§7.1": "sent a message of another game",
    "§7.2": "signed two different messages as one: told players different things",
    "§7.3": "stamped a message with a place in the order that the rules do not allow",
    "§7.5": "signed something false about which messages were sent (a message named as seen that its sender's "
            "promises say it had not sent)",
    "§7.10": "declared holding another player's messages that that player never sent, or other ones than it sent "
             "(a false echo, which holds back the others' tables)",
    "§8.3": "gave a proof of their deck key that does not hold",
    "§8.5": "published a false share of a card",
    "§8.6": "broke the procedure for the shuffle's random seed",
    "§8.7": "shuffled the deck dishonestly",
    "§9": "sent a message that is not one of the table's",
    "§9.2": "did not give their deck key",
    "§9.3": "sent a message that does not belong to the round under way",
    "§9.4": "withheld their share of a card, so it could not be turned up",
    "§9.6": "ran out a player's time by their own clock",
    "§9.7": "did not end the round as the rules say",
    "§9.8": "did not end the game as the rules say",
    "§9.10": "challenged the round falsely: every shuffle was shown and checked, and every card checks out",
    "§9.11": "withheld their part of the protocol, so the table could not go on",
}
"""A broken rule, where no check of `CHECKS` names it (a player's action after a name)."""

SAID: tuple[tuple[str, str, str], ...] = (
    ("§4.2", "empty frame", "sent an empty frame"),
    ("§7.1", "sender is not another seat", "sent a message whose header names no other seat of the table as its "
                                           "sender"),
    ("§7.1", "away names the sender's own", "sent a message whose header names its own seat away"),
    ("§7.1", r"(?:side )?message is for another game", "sent a message of another game"),
    ("§7.1", r"(?:heads|sides|away|lamport|seq|prev|sseq|sprev) must", "sent a message whose header is not of the "
                                                                         "form the order needs"),
    ("§7.2", r".*(?:already wait for|or more beyond its seq)", "sent more of their messages ahead of one still "
                                                               "missing than a table keeps"),
    ("§7.2", r".*would already wait here", "sent more of their messages than a table keeps waiting for its turn to take them"),
    ("§9.2", "a second key", "gave a second deck key"),
    ("§9.3", "a shuffle step for a chain", "sent a shuffle step for a shuffle the table did not start"),
    ("§9.4", "'[^']*' is not a side message", "sent beside the agreed order a message that is not a share message, "
                                              "the only kind that travels there"),
    ("§9.4", "a shares message that carries no share", "sent a message of shares that holds none"),
    ("§9.4", "more than", "sent more shares for cards not yet being turned up than a table keeps"),
    ("§9.4", "a share for need", "sent a share of a card that was not being turned up"),
    ("§9.7", "its engine state", "ended the round in another game state than the agreed order gives"),
    ("§9.7", "opened its shuffles before", "showed how they shuffled before the round ended, which would give the "
                                           "deck away"),
    ("§9.7", "a second opening", "showed how they shuffled twice"),
    ("§9.8", "its final state", "ended the game in another state than the agreed order gives"),
    ("§9.8", "said the game is done", "said the game was over before it was"),
    ("§9.10", "challenged a round whose cards", "challenged a round before its cards were dealt"),
    ("§9.11", "a stall claim must", "said the table was held up by seats it did not name as the rules say"),
)
"""Where one rule is broken in several ways: (rule, how the table's account starts, as a
pattern, the words)."""

WITHHELD: dict[str, str] = {
    "opening": "how they shuffled, which every seat shows at the round's end",
    "key": "their key for the game's cards, which every shuffle and every card turned up needs",
    "beacon message": "their part of the round's lot, which picks the first player and orders moves made at the "
                      "same moment",
    "shuffle step": "their turn to shuffle the deck",
    "end of game": "their word that the game is over",
    "acknowledgements": "their acknowledgements of the others' messages, without which no move counts",
}
"""What a seat withheld (§9.11), where the table's word for it (`its beacon message`) is
the protocol's, in a player's words (the report gives the protocol's word after them, "In
detail: …"); any other is "their" thing ("their share")."""

_WITHHELD = re.compile(r"withheld its ([^:]+):")
_STOPPED = re.compile(r".+ stopped waiting for .+?'s (.+?) \(§9\.11\), and at a table of two")
_FIELD = re.compile(r"field '[^']*': expected ")
_CODE = re.compile(r"(?:round \d+ is void: )?([a-z]+(?:-[a-z]+)*): ")


def did(failure: Failure) -> str:
    """What the one who broke `failure`'s rule did, in a player's words."""
    return broke(failure.section, failure.what) or f"broke rule {failure.section}"


def broke(section: str, what: str) -> str | None:
    """What the one who broke rule `section` did, in a player's words, from the table's
    own account of it (`what`, seats counted from 1: a failed check's name first, where
    one failed); None where these words do not tell it (a rule of the game, R1–R10)."""
    code = _CODE.match(what)
    if code is not None and code.group(1) in CHECKS:
        return CHECKS[code.group(1)]
    said = next((words for rule, start, words in SAID if section == rule and re.match(start, what)), None)
    if said is not None:
        return said
    if _FIELD.match(what):  # (a field of the wrong kind, missing or not declared: whatever rule's message it is)
        return SECTIONS["§4.4"]
    withheld = _WITHHELD.match(what)
    if withheld is not None:  # (§9.11: every other seat claimed it stalled the table)
        return f"withheld {_withheld(withheld.group(1))}, so the table could not go on"
    stopped = _STOPPED.match(what)
    if stopped is not None:  # (§9.11 at a table of two: the one named, or the one who named it)
        return f"withheld {_withheld(stopped.group(1))}, or said falsely that the other had, so the table could not go on"
    return SECTIONS.get(section)


def _withheld(thing: str) -> str:
    """What a seat withheld, after "withheld" (`WITHHELD`)."""
    return WITHHELD.get(thing, f"their {thing}")


LINK_SECTIONS = ("§3.", "§4.", "§5.", "§6.")
"""The chapters whose faults are seen on a link, before or outside any signed message
(§4.6: a certificate refused at TLS, §3.1; a frame, §4; discovery, §5; the lobby, §6)."""


def unsigned_fault(section: str) -> bool:
    """Whether a fault under `section` is one no signed message shows, by its nature: on
    a link (`LINK_SECTIONS`: a certificate or a frame no seat signed) or a replay of a
    signed message (§7.1: its signer sent it honestly, once), so a log can hold no proof
    of it, nor of its absence."""
    return section.startswith(LINK_SECTIONS) or section == "§7.1"


def leave_claim(name: str, reason: str) -> str:
    """What a log says of a `leave` (§9.8) whose reason accuses (`p2p.session.accuses`),
    after it: the accusation is the leaver's (`name`'s) word, signed as a reason and no
    more; one that names a player but no rule is nothing a log could check; a fault seen on a link leaves no signed record, so no log can confirm or refute
    it; any other the log would hold, and holds none of (a log that proves one is told
    by its proof: `plain`)."""
    sections = re.findall(r"§\d+(?:\.\d+)*", reason)
    if not sections and not re.search(r"\bR\d+\b", reason):  # (it names a player, no rule: nothing to check)
        return (f"those words are {name}'s own, signed as a reason to leave and no more: they name no rule, so "
                "nothing in the log could show them true")
    if sections and all(unsigned_fault(s) for s in sections):
        return (f"those words are {name}'s own: a fault on a link leaves no signed record, so the log can neither "
                "confirm nor refute them")
    return f"those words are {name}'s own, and nothing in the log supports them: no signed record in it shows that rule broken"


SHARE_MESSAGES = "a share message carries a player's shares of cards being revealed, and travels beside the agreed order"
"""What a side message (§7.8) is, in a player's words, said where one is told: shares
(§9.4) are the only messages that travel beside the agreed order."""

_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")


def ordinal(number: int) -> str:
    """"first" for 1, …, "tenth", then "11th", "21st", "102nd"."""
    if 1 <= number <= len(_ORDINALS):
        return _ORDINALS[number - 1]
    last = {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{'th' if 11 <= number % 100 <= 13 else last}"


def side_message(sseq: object, kind: object = "shares") -> str:
    """A side message (§7.8) by what it carried and its place in its sender's side chain
    (its `sseq`, counted from 0), for a player: "first share message" for a `shares`
    message of sseq 0 (any other kind: "message beside the agreed order"), as exact as
    the number."""
    what = "share message" if kind == "shares" else "message beside the agreed order"
    return f"{ordinal(sseq + 1)} {what}" if type(sseq) is int and sseq >= 0 else what


def table_message(seq: object) -> str:
    """A content message (§7.2) by its place in its sender's chain (its `seq`, counted from
    0), for a player: "15th message to the table (content message 14)", the protocol's
    name after it."""
    if type(seq) is not int or seq < 0:
        return "message to the table"
    return f"{ordinal(seq + 1)} message to the table (content message {seq})"


def either(suspects: Sequence[int], names: Sequence[str]) -> str:
    """Suspects by name, one of whom broke a rule (§7.5): "Bo or Cy"."""
    return " or ".join(names[s] for s in suspects)


def either_seats(suspects: Sequence[int]) -> str:
    """Suspects by seat, counted from 1: "seats 2 or 3"."""
    return "seats " + " or ".join(str(s + 1) for s in suspects)


def plain(failure: Failure, names: Sequence[str]) -> str:
    """The verdict in a sentence: who, what they did, [the rule, the record]."""
    where = failure.section if failure.record is None else f"{failure.section}, record {failure.record + 1}"
    if failure.signed_by is not None and failure.signed_by < len(names):
        name = names[failure.signed_by]
        return (f"{name}'s log is false: it is not as a player's program writes a log, yet {name}'s key signed its "
                f"end over it as it is, so {name}'s program or key made it so; nothing in it can be held against "
                f"anyone else [{where}].")
    if failure.altered:
        return (f"The log file was changed or damaged after its writer wrote it, so nothing in it can be held "
                f"against anyone and nobody is blamed [{where}].")
    if failure.seat is not None and failure.seat < len(names):
        return f"{names[failure.seat]} (seat {failure.seat + 1}) {did(failure)} [{where}]."
    if failure.suspects and all(s < len(names) for s in failure.suspects):
        return f"{either(failure.suspects, names)} {did(failure)}, and one log cannot tell which [{where}]."
    if failure.section == "§10.2":
        return f"The log stops before the game ended; what it holds proves nothing against anyone [{where}]."
    return f"The log is incomplete, or was not closed as a player's program closes it; nobody is blamed [{where}]."


def verdict(result: AuditResult) -> str:
    """The verdict of a log that fails its audit in a sentence (`plain`); for a log that
    stops because its writer's table was stopped by a fault no signed record shows (a
    frame on a link, §4; a malformed header, §7.1), who stopped it by its writer's word
    (`link_fault`)."""
    failure = result.first_failure
    assert failure is not None
    if result.not_a_log:
        return "The file is not a fairness log, so nothing in it is checked."
    fault = stopped_on_a_link(result)
    if fault is None:
        return plain(failure, result.names)
    seat, section = fault
    name = result.names[seat]
    how = ("Such a message is refused as it arrives, before it is delivered or kept" if section == "§7.1" else
           f"Only {result.writer_name} can know such an ack false: to anybody else, {result.writer_name} may as well "
           "have signed two messages as one" if section == "§7.10" else
           f"Such a fault happens on a link, in a frame {name} did not sign")
    return (f"The table stopped because of {name} (seat {seat + 1}) under {section}: {name} "
            f"{link_fault_words(result)}, by the word of the log's writer, "
            f"{result.writer_name} (a note in its log, and the reason its program signed as it closed the log). "
            f"{how}, so the log holds no signed proof of it and blames nobody [{failure.section}].")


def stopped_on_a_link(result: AuditResult) -> tuple[int, str] | None:
    """The seat and section of the fault on a link that stopped a log's writer's table,
    where that is all the log fails on (`verdict`: it ends early, every record checks)."""
    failure = result.first_failure
    return link_fault(result) if failure is not None and failure.section == "§10.2" else None


def link_fault(result: AuditResult) -> tuple[int, str] | None:
    """The seat and section of the fault no signed record shows that stopped the
    writer's table (`_stopping_note`), or None."""
    found = _stopping_note(result)
    return (found[0], found[1].section or "") if found is not None else None


def link_fault_words(result: AuditResult) -> str:
    """What the seat of `link_fault` did, in this program's words for its writer's note's
    account of it (`broke`: "sent a message of the wrong form"), never the note's own."""
    found = _stopping_note(result)
    assert found is not None
    note = found[1]
    section = note.section or ""
    detail = note.text.partition(f"In detail: {section}: ")[2]
    return broke(section, detail) or f"broke rule {section}"


def unproven(section: str) -> str:
    """Why no log holds signed proof of a fault under `section` that stopped a table
    (`link_fault`): a frame on a link its sender did not sign, or a signed message whose
    §7.1 header is malformed, refused as it arrives and kept nowhere."""
    if section == "§7.1":
        return "a message refused for its header is kept in no log"
    if section == "§7.10":
        return "only the author of a chain can know an ack's head about it false"
    return "a fault on a link leaves no signed proof"


STOPPED_UNSIGNED = ("§4.", "§7.1", "§7.10")
"""The sections of the faults that stop a table with nothing signed in the log to show
them: a frame on a link (§4), a signed message whose header is malformed (§7.1), an ack
whose head about the writer's own chain is false (§7.10: the writer's word alone)."""


def _stopping_note(result: AuditResult) -> tuple[int, Note] | None:
    """The seat and the writer's note of a fault that stopped the writer's table, that no
    signed record in the log shows (`STOPPED_UNSIGNED`), as its writer noted it (a note
    about that seat that stopped the game) and closed its log for it (its `log.end` names
    that seat and section), or None."""
    contents = result.contents
    if contents is None or contents.ended is None or result.end_signed is not True:
        return None
    for note in contents.notes:
        member = result.member(note.peer) if note.peer is not None else None
        if (member is None or member.seat == result.writer or not (note.section or "").startswith(STOPPED_UNSIGNED)
                or not note.text.endswith("(the game stops)")):
            continue
        if member.name in contents.ended and f"({note.section})" in contents.ended:
            return member.seat, note
    return None
