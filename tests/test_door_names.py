"""§6.4: what the host's front door seats, every guest accepts; what it refuses, a guest would.

The door is driven with raw ``lobby.hello`` messages, as any program could send them (ours
checks its own name before it dials), whose names are drawn from every kind of text:
lookalike letters in either case, white space, controls, direction marks, long names,
names alike after NFKC and case folding, the host's own name, the bots' names.
"""

from __future__ import annotations

import re
import tempfile
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cli.bots import BOT_NAMES
from p2p import lobby
from p2p.admission import join_transcript
from p2p.errors import ProtocolError
from p2p.identity import Identity
from p2p.lobby import Broadcast, GuestLobby, HostLobby, SendTo, Signing, SigningAgain, check_names, links_report
from p2p.names import BOT_MARK, _LOOKALIKES
from p2p.roster import PROTOCOL_VERSION, Member, Roster, parse_canonical
from p2p.schema import Schemas
from transport_support import make_identities

with tempfile.TemporaryDirectory() as keys:  # (the lobbies hold their keys in memory: no file is read again)
    IDS = make_identities(Path(keys), 7)
HOST, JOINERS = IDS[0], IDS[1:]
TABLE_NONCE, HOST_NONCE = b"\x01" * 32, b"\x02" * 32
SCHEMAS = Schemas(*lobby.MESSAGES)  # (what the front door checks a hello against before the lobby sees it)

LOOKALIKE = "".join(sorted({chr(c) for c in _LOOKALIKES}))
# letters that reach a lookalike only by case folding: Cyrillic narrow "ᲂ" and wide "ᲃ",
# Komi "Ԁ"; Cherokee small "ꭺ ꮯ ꮮ" (folded, capitals); Greek iota subscripts (read as an
# ogonek, though folded they are an "ι"); and the small palochka "ӏ", read as "i" or "l"
FOLDS_TO_LOOKALIKE = "\u1c82\u1c83\u0500\uab7a\uabaf\uabae\u0345\u037a\u1fb3\u1fbc\u1f80\u04cf"
# lookalikes under a mark, written as one letter: Cyrillic "ё Ё ӧ ї Ѐ", Greek "ό Ό έ Έ ά"
MARKED_LOOKALIKE = "\u0451\u0401\u04e7\u0457\u0400\u03cc\u038c\u03ad\u0388\u03ac"
CONFUSABLE = "".join(sorted(set(LOOKALIKE + LOOKALIKE.swapcase() + LOOKALIKE.upper() + LOOKALIKE.lower()
                                + FOLDS_TO_LOOKALIKE + MARKED_LOOKALIKE
                                + "ABEHIKMNOPTXYabcehikmnopuvxy\u00b5\u1c80\u00e9\u00eb\u00f3\u00c9\u00cb\u00d3 ")))
SCRIPTS = {script: "".join(c for c in CONFUSABLE if unicodedata.name(c, "").startswith(script))
           for script in ("LATIN", "CYRILLIC", "GREEK")}
ODD = ["\u200b", "\u200e", "\u200f", "\u202e", "\u2066", "\u00ad", "\u00a0", "\u3000", "\t", "\n", "\x00", "\x1b",
       "\u0301", "\u3164", "\u2800", "\ufeff", "\ue000"]
FULLWIDTH = {c: chr(ord(c) - 0x21 + 0xFF01) for c in map(chr, range(0x21, 0x7F))}
TO_LOOKALIKE: dict[int, str] = {}  # (a Latin letter's first lookalike in the table: Cyrillic, then Greek, ...)
for _other, _latin in ((chr(k), v) for k, v in _LOOKALIKES.items()):
    TO_LOOKALIKE.setdefault(ord(_latin), _other)
TO_FOLDING = str.maketrans("\u043e\u0441\u13de\u0501\u03b9", "\u1c82\u1c83\uabae\u0500\u0345")  # (о с Ꮮ ԁ ι)

TRANSFORMS: list[Callable[[str], str]] = [
    str.upper, str.lower, str.swapcase, str.casefold, str.title,
    lambda s: f" {s}", lambda s: s.replace(" ", "  "), lambda s: s.replace(" ", "\u00a0"),
    lambda s: "".join(FULLWIDTH.get(c, c) for c in s), lambda s: s.translate(TO_LOOKALIKE),
    lambda s: s.upper().translate(TO_LOOKALIKE), lambda s: s.lower().translate(TO_LOOKALIKE),
    lambda s: s.lower().translate(TO_LOOKALIKE).translate(TO_FOLDING),
    lambda s: unicodedata.normalize("NFC", unicodedata.normalize("NFD", s).translate(TO_LOOKALIKE)),
    lambda s: unicodedata.normalize("NFD", s), lambda s: unicodedata.normalize("NFKC", s),
    lambda s: f"{s}\u200f", lambda s: f"\u202e{s}", lambda s: s + s, lambda s: f"{s} {BOT_MARK}",
]


def fresh_names() -> st.SearchStrategy[str]:
    """A name made up from nothing."""
    return st.one_of(
        st.text(max_size=30),
        st.text(alphabet=CONFUSABLE, min_size=1, max_size=8),
        st.sampled_from(sorted(SCRIPTS.values())).flatmap(lambda letters: st.text(letters, min_size=1, max_size=6)),
        st.text(alphabet=st.sampled_from([*CONFUSABLE, *ODD]), max_size=6),
        st.text(min_size=20, max_size=28),
        st.sampled_from([*BOT_NAMES, *(f"{n} {BOT_MARK}" for n in BOT_NAMES), "alice", "Ann", "ABBA", "Mary Jo"]),
    )


def names_beside(seated: list[str]) -> st.SearchStrategy[str]:
    """A name a joiner gives: made up, or one seated (the host's among them) made over."""
    return st.one_of(fresh_names(), st.builds(lambda f, s: f(s), st.sampled_from(TRANSFORMS), st.sampled_from(seated)))


def raw_hello(joiner: Identity, name: str, nonce: bytes) -> dict[str, Any]:
    """A hello as another program could send it: its own name, its join signature (§6.3)."""
    transcript = join_transcript("T", HOST.peer_id, joiner.peer_id, HOST_NONCE, nonce)
    return {"type": "lobby.hello", "v": 1, "proto": PROTOCOL_VERSION, "name": name, "cert": joiner.certificate.der,
            "nonce": nonce, "port": 5000, "sig": joiner.sign(transcript)}


def guest_refusal(wire: dict[str, Any]) -> ProtocolError | None:
    """Why a guest sent `wire` in a ``lobby.roster`` refuses it (`GuestLobby.on_message`'s
    checks: schema, validity, §6.4's names), if it does."""
    try:
        SCHEMAS.check({"type": "lobby.roster", "v": 1, "roster": wire})
        check_names(Roster.from_wire(wire), HOST.short)
    except ProtocolError as exc:
        return exc
    return None


@settings(max_examples=300, deadline=None)
@given(host_name=st.one_of(fresh_names(), st.just("Alice")), data=st.data())
def test_s6_4_every_roster_the_door_seats_every_guest_signs_and_every_name_it_refuses_a_guest_refuses(
        host_name: str, data: st.DataObject) -> None:
    """Each hello's name is seated only if every guest (the newcomer too) then takes the
    roster, and the start, and signs; a name refused is refused as `name-taken` or
    `bad-name`, naming the rule, and a roster seating it anyway is one every guest
    refuses. Only a hello whose name is too long (§6.2) is refused before the door, as a
    roster naming it is."""
    try:
        host = HostLobby(HOST, name=host_name, table="T", seats=6, table_nonce=TABLE_NONCE, port=4000)
    except (ValueError, ProtocolError):  # (the host's own name follows the door's rules: a guest would refuse it)
        alone = Roster("T", TABLE_NONCE, 6, (Member(0, host_name, HOST.certificate, TABLE_NONCE, ("", 4000)),))
        assert guest_refusal(alone.to_wire()) is not None, host_name
        return
    guests: dict[bytes, GuestLobby] = {}
    for k, joiner in enumerate(JOINERS):
        if host.roster.free == 0:
            break
        name = data.draw(names_beside([m.name for m in host.roster.members]), label=f"joiner {k + 1}")
        nonce = bytes([k + 10]) * 32
        hello = raw_hello(joiner, name, nonce)
        seated_anyway = {**host.roster.to_wire(), "members": [
            *host.roster.to_wire()["members"],
            {"seat": len(host.roster.members), "name": name, "cert": joiner.certificate.der, "nonce": nonce,
             "addr": f"10.0.0.{k + 2}", "port": 5000}]}
        try:
            SCHEMAS.check(hello)
        except ProtocolError as exc:
            assert exc.section == "§6.2" and "name" in exc.reason and len(name) > 24, exc
            assert guest_refusal(seated_anyway) is not None, name
            continue
        before = host.roster
        reply, actions = host.on_hello(hello, HOST_NONCE, f"10.0.0.{k + 2}")
        if reply["type"] == "lobby.refuse":
            assert reply["reason"] in ("name-taken", "bad-name") and reply["detail"].endswith("(§6.4)"), reply
            assert host.roster is before
            refused = guest_refusal(seated_anyway)
            assert refused is not None and refused.section in ("§6.4", "§6.5"), (name, reply)
            continue
        # seated: the newcomer (were it our program, so named) takes its welcome...
        guest = GuestLobby(joiner, name=name, port=5000, nonce=nonce)
        guest.on_offer(host.offer(HOST_NONCE), HOST.certificate, ("10.0.0.1", 4000))
        guest.on_reply(reply)
        # ... and every guest seated before it the roster with it
        for action in actions:
            if isinstance(action, SendTo) and action.message["type"] == "lobby.roster":
                guests[action.peer].on_message(HOST.peer_id, action.message)
        guests[joiner.peer_id] = guest
    if not guests:
        return
    actions = host.start()
    for peer in guests:
        actions += host.on_message(peer, links_report(host.roster.version))
    start = next(a.message for a in actions if isinstance(a, Broadcast))
    for peer, guest in guests.items():  # (R, checked as every member checks it, §6.6)
        assert any(isinstance(a, Signing) for a in guest.on_message(HOST.peer_id, start))
    # (and a seat taken back from its journal signs R again, §11.3)
    SigningAgain(next(j for j in JOINERS if j.peer_id in guests), start["roster"])


@pytest.mark.parametrize("seated,name", [
    ("\u041c\u0438\u043b\u0430", "\u043c\u0438\u043b\u0430"),  # Cyrillic "Мила" beside "мила"
    ("\u0397\u03bb\u03b9\u03b1\u03c2", "\u03b7\u03bb\u03b9\u03b1\u03c2"),  # Greek "Ηλιας" beside "ηλιας"
    ("\u039d\u03b9\u03ba\u03b7", "\u03bd\u03b9\u03ba\u03b7"),  # Greek "Νικη" beside "νικη"
    ("\u0500\u0430\u0440", "\u0501\u0430\u0440"),  # Cyrillic "Ԁар" beside "ԁар"
    ("\u00b5", "\u039c"),  # the micro sign beside a Greek capital mu
])
def test_s6_4_the_door_refuses_a_name_that_differs_from_a_seated_one_only_by_the_case_of_a_lookalike(
        seated: str, name: str) -> None:
    """A lookalike letter reads as Latin in one case only (a Cyrillic "М" as "M", its
    small "м" as nothing else): the door let "мила" sit beside "Мила", and every guest
    then refused the roster (two names the same after case folding, §6.5), so one such
    hello broke the table for everyone. The door refuses it now, as taken."""
    host = HostLobby(HOST, name="Alice", table="T", seats=6, table_nonce=TABLE_NONCE, port=4000)
    reply, _ = host.on_hello(raw_hello(JOINERS[0], seated, b"\x03" * 32), HOST_NONCE, "10.0.0.2")
    assert reply["type"] == "lobby.welcome"
    reply, _ = host.on_hello(raw_hello(JOINERS[1], name, b"\x04" * 32), HOST_NONCE, "10.0.0.3")
    assert (reply["reason"], reply["detail"]) == (
        "name-taken", f"{seated!r} is already seated (seat 2) and {name!r} reads the same: names must differ by more "
                      "than case, spacing or lookalike letters (§6.4)")


@pytest.mark.parametrize("seated,name", [
    ("Pop", "\u0420\u1c82\u0440"),  # Cyrillic "Рᲂр", its narrow "ᲂ" folding to "о"
    ("coco", "\u1c83\u1c82\u1c83\u1c82"),  # Cyrillic wide "ᲃ" and narrow "ᲂ"
    ("Lea", "\u04c0\u0435\u0430"),  # Cyrillic "Ӏеа", its palochka a stroke, here an "l"
])
def test_s6_4_the_door_refuses_a_name_whose_letters_read_as_latin_only_once_case_folded(
        seated: str, name: str) -> None:
    """A letter that folds to a lookalike ("ᲂ" to a Cyrillic "о") was read after the
    lookalikes, so it read as none: an all-Cyrillic "Рᲂр" sat beside "Pop" and passed for
    its player on every screen. It reads as the Latin letter its folding reads as now."""
    host = HostLobby(HOST, name=seated, table="T", seats=6, table_nonce=TABLE_NONCE, port=4000)
    reply, _ = host.on_hello(raw_hello(JOINERS[0], name, b"\x03" * 32), HOST_NONCE, "10.0.0.2")
    assert (reply["type"], reply["reason"]) == ("lobby.refuse", "name-taken"), reply
    assert reply["detail"].startswith(
        f"{seated!r} is already seated (seat 1) and {name!r} (in Cyrillic letters) reads the same: "), reply


@pytest.mark.parametrize("seated,name,letters", [
    ("Jo\u00eb", "\u0408\u043e\u0451", "Cyrillic"),  # Cyrillic "Јоё", its "ё" an "е" with a diaeresis
    ("\u00d3PA", "\u038c\u03a1\u0391", "Greek"),  # Greek "ΌΡΑ", its "Ό" an "Ο" with a tonos
])
def test_s6_4_the_door_refuses_a_name_whose_lookalikes_carry_marks(seated: str, name: str, letters: str) -> None:
    """A lookalike with a mark is written as one letter ("ё"), which the table does not
    hold: an all-Cyrillic "Јоё" sat beside "Joë". Its letter is read apart from the mark now."""
    host = HostLobby(HOST, name=seated, table="T", seats=6, table_nonce=TABLE_NONCE, port=4000)
    reply, _ = host.on_hello(raw_hello(JOINERS[0], name, b"\x03" * 32), HOST_NONCE, "10.0.0.2")
    assert (reply["type"], reply["reason"]) == ("lobby.refuse", "name-taken"), reply
    assert reply["detail"].startswith(
        f"{seated!r} is already seated (seat 1) and {name!r} (in {letters} letters) reads the same: "), reply


ACROSS_SCRIPTS = [
    ("Coco", "\u03f9\u03bf\u03f2\u03bf"),  # Greek lunate sigmas "Ϲοϲο"
    ("Jo", "\u037f\u03bf"),  # Greek capital yot "Ϳο"
    ("Anna", "\u0391\u03b7\u03b7\u03b1"),  # Greek small eta "Αηηα"
    ("Jake", "\u13ab\u13aa\u13e6\u13ac"),  # Cherokee "ᎫᎪᏦᎬ"
    ("Jake", "\uab7b\uab7a\uabb6\uab7c"),  # Cherokee small letters "ꭻꭺꮶꭼ", folded to those
    ("Tom", "\u2ca6\u2c9e\u2c98"),  # Coptic "ⲦⲞⲘ"
    ("\u03a0\u039f\u03a0", "\u2ca0\u2c9e\u2ca0"),  # Coptic "ⲠⲞⲠ" beside Greek "ΠΟΠ"
    ("Dan", "\ua4d3\ua4ee\ua4e0"),  # Lisu "ꓓꓮꓠ"
    ("IKEA", "\u04c0\u041a\u0415\u0410"),  # Cyrillic palochka "ӀКЕА", read as an "I"
    ("AI", "\ua4ee\ua4f2"), ("Al", "\ua4ee\ua4f2"),  # Lisu "ꓮꓲ", its stroke an "I" or an "l"
]


@pytest.mark.parametrize("seated,name", ACROSS_SCRIPTS)
def test_s6_4_the_door_refuses_a_name_drawn_in_another_script_s_lookalikes(seated: str, name: str) -> None:
    """Greek "ϲ Ϲ ϳ Ϳ η", Cherokee, Coptic and Lisu letters drawn like a seated player's
    letters were read as none: the door seated "ᎫᎪᏦᎬ" beside "Jake", and each screen
    showed two players of one name. It refuses them now, as taken."""
    host = HostLobby(HOST, name=seated, table="T", seats=6, table_nonce=TABLE_NONCE, port=4000)
    reply, _ = host.on_hello(raw_hello(JOINERS[0], name, b"\x03" * 32), HOST_NONCE, "10.0.0.2")
    assert (reply["type"], reply["reason"]) == ("lobby.refuse", "name-taken"), reply
    assert reply["detail"].startswith(f"{seated!r} is already seated (seat 1) and {name!r}"), reply


@pytest.mark.parametrize("seated,name", ACROSS_SCRIPTS)
def test_s6_4_a_guest_refuses_a_roster_seating_another_script_s_lookalikes(seated: str, name: str) -> None:
    """A guest replays the door (§6.4): a roster from a host that seated such a name
    (an earlier release's door did) ends its lobby, naming both seats."""
    members = tuple(Member(seat, n, ident.certificate, bytes([seat + 5]) * 32, ("10.0.0.9", 4000 + seat))
                    for seat, (n, ident) in enumerate(zip((seated, name), IDS)))
    with pytest.raises(ProtocolError, match=rf"^§6\.4: the host seats {re.escape(repr(seated))} \(seat 1\) and "
                                            rf"{re.escape(repr(name))}.* \(seat 2\), names that read the same"):
        check_names(Roster("T", TABLE_NONCE, 6, members), HOST.short)


def test_s6_4_an_iota_subscript_is_read_as_a_mark_at_the_door_and_by_each_guest() -> None:
    """The iota subscript reads as the ogonek it looks like, not as the letter "ι" case
    folding makes of it: the door refused Greek "Κᾳ" beside "Kai", and seated "Βᾳκ"
    beside "Bąk". Now it seats the one and refuses the other, and a guest agrees."""
    host = HostLobby(HOST, name="Kai", table="T", seats=6, table_nonce=TABLE_NONCE, port=4000)
    reply, _ = host.on_hello(raw_hello(JOINERS[0], "\u039a\u1fb3", b"\x03" * 32), HOST_NONCE, "10.0.0.2")
    assert reply["type"] == "lobby.welcome", reply
    check_names(host.roster, HOST.short)
    host = HostLobby(HOST, name="B\u0105k", table="T", seats=6, table_nonce=TABLE_NONCE, port=4000)
    reply, _ = host.on_hello(raw_hello(JOINERS[0], "\u0392\u1fb3\u03ba", b"\x03" * 32), HOST_NONCE, "10.0.0.2")
    assert (reply["type"], reply["reason"]) == ("lobby.refuse", "name-taken"), reply
    members = tuple(Member(seat, n, ident.certificate, bytes([seat + 5]) * 32, ("10.0.0.9", 4000 + seat))
                    for seat, (n, ident) in enumerate(zip(("B\u0105k", "\u0392\u1fb3\u03ba"), IDS)))
    with pytest.raises(ProtocolError, match="names that read the same"):
        check_names(Roster("T", TABLE_NONCE, 6, members), HOST.short)


@pytest.mark.parametrize("name,problem", [
    ("bo\u200bb", "holds an invisible or control character (U+200B)"),
    ("\u202eboB", "holds an invisible or control character (U+202E)"),
    ("\x1b[2Jbob", "holds an invisible or control character (U+001B)"),
    ("", "is blank"),
    ("\U000e0041" * 24, "holds an invisible or control character (U+E0041)"),
])
def test_s6_4_a_hello_whose_name_holds_an_invisible_character_is_refused_bad_name_saying_so(
        name: str, problem: str) -> None:
    """A name with a control or format character, or none at all, is refused `bad-name`
    with the rule it breaks, as §6.4 says, and the host's player is told: the hello's
    schema took it for a malformed hello (an error frame, §6.2, and nothing on the
    host's screen)."""
    hello = raw_hello(JOINERS[0], name, b"\x03" * 32)
    assert SCHEMAS.check(hello) is hello  # (what the front door checks first)
    host = HostLobby(HOST, name="Alice", table="T", seats=6, table_nonce=TABLE_NONCE, port=4000)
    reply, (away,) = host.on_hello(hello, HOST_NONCE, "10.0.0.2")
    assert reply["reason"] == "bad-name" and reply["detail"].endswith(f"{problem} (§6.4)"), reply
    assert len(reply["detail"]) <= 200 and away.sentence().startswith("A player at 10.0.0.2 could not join: the name ")


def test_s6_4_a_name_taken_refused_with_two_long_names_keeps_the_rule_it_names() -> None:
    """A refusal's detail holds 200 characters: one quoting two long names lost its end,
    the rule and its section (§6.4); it loses characters from its middle instead."""
    host = HostLobby(HOST, name="00000000000000QAT", table="T", seats=6, table_nonce=TABLE_NONCE, port=4000)
    reply, (away,) = host.on_hello(raw_hello(JOINERS[0], "00000000000000\u051aA\u03a4", b"\x03" * 32), HOST_NONCE, "x")
    assert reply["reason"] == "name-taken" and len(reply["detail"]) == 200, reply
    assert reply["detail"].startswith("'00000000000000QAT' is already seated (seat 1) and '00000000000000")
    assert reply["detail"].endswith("reads the same: names must differ by more than case, spacing or lookalike "
                                    "letters (§6.4)")
    assert away.why.endswith("(in Latin and Cyrillic and Greek letters) reads the same: names must differ by more "
                             "than case, spacing or lookalike letters")  # (the host's screen: every word)


@pytest.mark.parametrize("table,names,words", [
    ("T", ("Alice", "ABBA", "\u0410\u0412\u0412\u0410"),
     "the host seats 'ABBA' (seat 2) and 'АВВА' (in Cyrillic letters) (seat 3), names that read the same"),
    ("T", ("Alice", "b\u043eb"), "the host seats 'bоb' (seat 2), and that name mixes Latin and Cyrillic letters"),
    ("Friday ", ("Alice", "bob"), "the host names its table 'Friday ', and that name is not written plainly"),
])
def test_s11_3_a_seat_taken_back_from_its_journal_signs_no_roster_the_door_would_not_have_made(
        table: str, names: tuple[str, ...], words: str) -> None:
    """A seat stopped as R was being signed takes it back from its journal and signs it
    again (§11.3): it checks R's names as a guest checks each roster it is shown (§6.4),
    not only R's validity (§6.6), which lets "АВВА" sit beside "ABBA"."""
    members = tuple(Member(seat, name, ident.certificate, bytes([seat + 5]) * 32)
                    for seat, (name, ident) in enumerate(zip(names, IDS)))
    canonical = Roster(table, members[0].nonce, len(members), members).canonical()
    assert parse_canonical(canonical).members == members  # (a valid R, §6.6)
    with pytest.raises(ProtocolError, match=rf"^§6\.4: {re.escape(words)}") as info:
        SigningAgain(IDS[1], canonical)
    assert info.value.peer == HOST.short


def test_s6_4_a_host_that_seats_bots_keeps_their_first_words_from_people() -> None:
    """`host --bots 2` named its bots "Bo (bot)" and "Cy (bot)"; people named Bo and Cy
    then sat down, and the screens read "Bo (bot) cannot reach Bo". A person's name that
    begins as one of the host's bots' names is refused (seated yet or not: the bots are
    named before they sit), saying why; the bots themselves sit, and a bot-looking name
    is refused beside a person of its first word. A host without bots refuses none of
    these (no guest checks it: a roster seating them stays valid)."""
    bots = ("Bo (bot)", "Cy (bot)")
    host = HostLobby(HOST, name="Alice", table="T", seats=6, table_nonce=TABLE_NONCE, port=4000, bots=bots)
    for k, name in enumerate(["Bo", "bo", "Bo Lee", "\u0412\u043e", "Cy Young"]):  # (a Cyrillic "Во" reads "Bo")
        reply, actions = host.on_hello(raw_hello(JOINERS[0], name, bytes([k + 3]) * 32), HOST_NONCE, "10.0.0.2")
        namesake = "Bo (bot)" if name != "Cy Young" else "Cy (bot)"
        assert (reply["reason"], reply["detail"]) == ("name-taken", f"{name!r} shares its first word with "
                                                      f"{namesake!r}, a bot at this table: a person and a bot must "
                                                      "not, or nobody could tell them apart (§6.4)"), reply
        assert [a.sentence() for a in actions] == [  # (the host's screen says whom it turned away, and why)
            f"{name} (10.0.0.2) could not join under that name: {reply['detail'].removesuffix(' (§6.4)')}."]
    assert len(host.roster.members) == 1
    for k, name in enumerate(["Bob", "Bo (bot)", "Dee"]):  # ("Bob" is another word; the bot is the host's own)
        reply, _ = host.on_hello(raw_hello(JOINERS[k], name, bytes([k + 10]) * 32), HOST_NONCE, f"10.0.0.{k + 2}")
        assert reply["type"] == "lobby.welcome", (name, reply)
    reply, _ = host.on_hello(raw_hello(JOINERS[3], "Dee (bot)", b"\x20" * 32), HOST_NONCE, "10.0.0.9")
    assert reply["detail"].startswith("'Dee (bot)' shares its first word with 'Dee', a person at this table"), reply
    plain_host = HostLobby(HOST, name="Alice", table="T", seats=6, table_nonce=TABLE_NONCE, port=4000)
    for k, name in enumerate(["Bo (bot)", "Bo"]):
        reply, _ = plain_host.on_hello(raw_hello(JOINERS[k], name, bytes([k + 30]) * 32), HOST_NONCE, "10.0.0.5")
        assert reply["type"] == "lobby.welcome", (name, reply)


def test_s6_4_a_host_s_bots_never_begin_as_the_host_s_own_name_does() -> None:
    """A host called "Bo Lee" got a "Bo (bot)" (its whole name was compared): that bot
    gives way now, as one named like the host did."""
    from cli.bots import bot_names

    assert bot_names(3, "Bo Lee") == bot_names(3, "bo") == ["Ada (bot)", "Cy (bot)", "Dee (bot)"]
    assert bot_names(5, "Hal") == ["Ada (bot)", "Bo (bot)", "Cy (bot)", "Dee (bot)", "Eve (bot)"]
