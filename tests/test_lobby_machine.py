"""§6 sans-I/O: the host and guest lobby state machines driven directly, no sockets."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cli.lobby_common import explain
from p2p.errors import JoinRefused, NotReached, ProtocolError, StartFailed, TableClosed
from p2p.lobby import (
    MESH_WAIT, REDIALS, SIGN_WAIT, WHY_LEN, Broadcast, GuestLobby, HostLobby, Left, Pin, Probe, Redial, RosterChanged,
    WRONG_CODE, SendTo, Signing, SigningAgain, Started, TurnedAway, fail_message, links_report, refuse,
)
from p2p.roster import PROTOCOL_VERSION, game_id_of
from transport_support import make_identities

N = [bytes([i]) * 32 for i in range(1, 9)]


def setup(tmp_path: Path, seats: int = 3, code: str | None = None):  # type: ignore[no-untyped-def]
    ids = make_identities(tmp_path, 4)
    host = HostLobby(ids[0], name="alice", table="T", seats=seats, table_nonce=N[0], port=4000, code=code)
    return ids, host


def linked(host: HostLobby, *guests: bytes) -> list:  # type: ignore[type-arg]
    """Each of `guests` tells the host it holds every link of the current roster (§6.6)."""
    actions = []
    for guest in guests:
        actions += host.on_message(guest, links_report(host.roster.version))
    return actions


def linked_to(host: HostLobby, *guests: bytes) -> None:
    """The host holds its mesh link to each of `guests` (a report naming a guest it has
    no link to waits for the host's own dial, §6.6)."""
    for guest in guests:
        host.on_link_up(guest)


def hello_for(host: HostLobby, ident, name: str, nonce: bytes, code: str | None = None):  # type: ignore[no-untyped-def]
    guest = GuestLobby(ident, name=name, port=5000, nonce=nonce, code=code)
    host_nonce = bytes(32) if not hasattr(host, "_n") else host._n  # noqa: SLF001
    offer = host.offer(host_nonce)
    return guest, guest.on_offer(offer, host.identity.certificate, ("127.0.0.1", 4000)), host_nonce


def test_three_peers_start_in_memory(tmp_path: Path) -> None:
    ids, host = setup(tmp_path)
    g1, h1, n1 = hello_for(host, ids[1], "bob", N[1])
    w1, a1 = host.on_hello(h1, n1, "10.0.0.2")
    linked(host, ids[1].peer_id)  # (bob holds his link to the host)
    assert w1["type"] == "lobby.welcome" and isinstance(a1[0], Pin) and a1[0].dial
    g1.on_reply(w1)
    g2, h2, n2 = hello_for(host, ids[2], "carol", N[2])
    w2, a2 = host.on_hello(h2, n2, "10.0.0.3")
    a2 += linked(host, ids[1].peer_id, ids[2].peer_id)  # full and all linked: the start (§6.6)
    g2.on_reply(w2)
    update = next(a for a in a2 if isinstance(a, SendTo) and a.message["type"] == "lobby.roster")
    pins = g1.on_message(ids[0].peer_id, update.message)
    assert any(isinstance(p, Pin) and p.dial and p.member.name == "carol" for p in pins)  # lower seat dials
    start = next(a for a in a2 if isinstance(a, Broadcast)).message
    s1 = next(a for a in g1.on_message(ids[0].peer_id, start) if isinstance(a, Broadcast)).message
    s2 = next(a for a in g2.on_message(ids[0].peer_id, start) if isinstance(a, Broadcast)).message
    assert g1.on_message(ids[2].peer_id, s2)[0].__class__ is Started
    assert g2.on_message(ids[1].peer_id, s1)[0].__class__ is Started
    host.on_message(ids[1].peer_id, s1)
    done = host.on_message(ids[2].peer_id, s2)
    assert isinstance(done[0], Started) and done[0].result.seat == 0


def test_refusals_leave_the_roster_unchanged(tmp_path: Path) -> None:
    ids, host = setup(tmp_path, seats=2)
    g, h, n = hello_for(host, ids[1], "bob", N[1])
    before = host.roster
    reply, actions = host.on_hello({**h, "name": "ALICE "}, n, "x")  # (a hello's name is not signed, §6.3)
    assert reply["reason"] == "name-taken" and host.roster is before
    assert [type(a) for a in actions] == [TurnedAway]  # (told to the host's player: nothing else done)
    g, h, n = hello_for(host, ids[1], "\uff41\uff4c\uff49\uff43\uff45", N[1])  # fullwidth forms of the same name
    assert host.on_hello(h, n, "x")[0]["reason"] == "name-taken"
    reply, _ = host.on_hello({**h, "proto": PROTOCOL_VERSION + 1}, n, "x")
    assert reply["reason"] == "version" and "the same bandit-lan release is needed on both machines" in reply["detail"]
    other = GuestLobby(ids[1], name="bob", port=5000, nonce=N[1])
    with pytest.raises(ProtocolError, match=f"the table speaks bandit-lan protocol {PROTOCOL_VERSION + 1} and this "
                                            f"program speaks {PROTOCOL_VERSION}: the same bandit-lan release"):
        other.on_offer({**host.offer(bytes(32)), "proto": PROTOCOL_VERSION + 1}, host.identity.certificate, ("127.0.0.1", 4000))
    g, h, n = hello_for(host, ids[0], "alice2", N[1])
    assert host.on_hello(h, n, "x")[0]["reason"] == "duplicate"
    with pytest.raises(JoinRefused, match="name-taken"):
        GuestLobby(ids[1], name="x", port=1, nonce=N[1]).on_reply({"type": "lobby.refuse", "v": 1, "reason": "name-taken", "detail": "d"})


def test_s6_4_a_joiner_of_another_release_says_hello_and_the_host_names_it_for_its_player(tmp_path: Path) -> None:
    """A joiner that finds another protocol version in the offer hangs up, but sends its
    hello first (it used to hang up without a word, so the host's screen said nothing);
    the host refuses the hello (`version`) and tells its player who was turned away."""
    from p2p.errors import OtherRelease
    from p2p.admission import join_transcript

    ids, host = setup(tmp_path)
    bob = GuestLobby(ids[1], name="bob", port=5000, nonce=N[1])
    newer = {**host.offer(N[2]), "proto": PROTOCOL_VERSION + 1}
    with pytest.raises(OtherRelease, match=f"the table speaks bandit-lan protocol {PROTOCOL_VERSION + 1}") as info:
        bob.on_offer(newer, host.identity.certificate, ("127.0.0.1", 4000))
    hello = info.value.hello
    assert (hello["type"], hello["proto"], hello["name"], hello["port"]) == ("lobby.hello", PROTOCOL_VERSION, "bob", 5000)
    assert ids[1].certificate.verify(hello["sig"], join_transcript("T", ids[0].peer_id, ids[1].peer_id, N[2], N[1]))
    assert bob.host is None  # (nothing else changed)
    reply, actions = host.on_hello({**hello, "proto": PROTOCOL_VERSION - 1}, N[2], "10.0.0.7")
    assert reply["reason"] == "version" and len(host.roster.members) == 1
    assert actions == [TurnedAway("bob", "10.0.0.7", PROTOCOL_VERSION - 1)]
    assert actions[0].sentence() == (
        f"bob (10.0.0.7) could not join: they run bandit-lan protocol {PROTOCOL_VERSION - 1} and this table "
        f"{PROTOCOL_VERSION}; the same release is needed on both machines.")


def test_a_bad_join_signature_is_a_violation_not_a_refusal(tmp_path: Path) -> None:
    ids, host = setup(tmp_path)
    _, h, n = hello_for(host, ids[1], "bob", N[1])
    with pytest.raises(ProtocolError, match="join signature does not verify") as info:
        host.on_hello(h, bytes([9]) * 32, "x")  # signed for another connection's nonce
    assert info.value.section == "§6.3"
    assert len(host.roster.members) == 1


def test_s6_3_a_wrong_table_code_is_told_to_the_host_naming_the_joiner(tmp_path: Path) -> None:
    """A joiner that gives a wrong code is refused, and the host's player reads who tried
    (a host learnt nothing of it: a friend who mistyped it only said so by other means).
    One that gave no code yet, as a joiner's first try does, is only asked for it."""
    ids, host = setup(tmp_path, code="sesame")
    guest = GuestLobby(ids[1], name="bob", port=5000, nonce=N[1], code="open sesame")
    hello = guest.on_offer(host.offer(N[2]), host.identity.certificate, ("127.0.0.1", 4000))
    reply, actions = host.on_hello(hello, N[2], "10.0.0.7")
    assert (reply["reason"], reply["detail"]) == ("bad-code", WRONG_CODE)
    assert actions == [TurnedAway("bob", "10.0.0.7", PROTOCOL_VERSION, "bad-code", ids[1].peer_id)]
    assert actions[0].sentence(2) == ("bob (10.0.0.7) could not join: the table code they gave is wrong (tell them "
                                      "the code again) (2 more turned away since).")
    unasked = GuestLobby(ids[2], name="carol", port=5001, nonce=N[3])
    with pytest.raises(JoinRefused, match="needs a code"):
        unasked.on_offer(host.offer(N[4]), host.identity.certificate, ("127.0.0.1", 4000))


def test_code_proofs_both_ways(tmp_path: Path) -> None:
    ids, host = setup(tmp_path, code="sesame")
    g, h, n = hello_for(host, ids[1], "bob", N[1], code="sesame")
    welcome, _ = host.on_hello(h, n, "x")
    forged = {**welcome, "proof": bytes(32)}
    with pytest.raises(ProtocolError, match="could not prove it knows the table code"):
        g.on_reply(forged)
    g.on_reply(welcome)
    with pytest.raises(JoinRefused, match="needs a code"):
        hello_for(host, ids[2], "carol", N[2])


def test_a_final_roster_that_differs_from_the_one_shown_is_refused(tmp_path: Path) -> None:
    ids, host = setup(tmp_path, seats=2)
    g, h, n = hello_for(host, ids[1], "bob", N[1])
    welcome, actions = host.on_hello(h, n, "x")
    actions += linked(host, ids[1].peer_id)
    g.on_reply(welcome)
    start = next(a for a in actions if isinstance(a, Broadcast)).message
    other = HostLobby(ids[0], name="alice", table="T", seats=2, table_nonce=N[5], port=4000)
    _, h2, n2 = hello_for(other, ids[1], "bob", N[1])
    _, actions2 = other.on_hello(h2, n2, "x")
    actions2 += linked(other, ids[1].peer_id)
    lie = next(a for a in actions2 if isinstance(a, Broadcast)).message
    with pytest.raises(ProtocolError, match="differs from the roster it showed us"):
        g.on_message(ids[0].peer_id, lie)
    with pytest.raises(ProtocolError, match="roster signature does not verify"):
        g.on_message(ids[0].peer_id, {**start, "sig": bytes(64)})
    g.on_message(ids[0].peer_id, start)
    with pytest.raises(ProtocolError, match="only the host"):
        g.on_message(ids[2].peer_id, start)


def test_bad_roster_signatures_name_the_signer(tmp_path: Path) -> None:
    ids, host = setup(tmp_path, seats=2)
    g, h, n = hello_for(host, ids[1], "bob", N[1])
    welcome, actions = host.on_hello(h, n, "x")
    actions += linked(host, ids[1].peer_id)
    start = next(a for a in actions if isinstance(a, Broadcast)).message
    g.on_reply(welcome)
    sign = next(a for a in g.on_message(ids[0].peer_id, start) if isinstance(a, Broadcast)).message
    with pytest.raises(ProtocolError, match="bob's roster signature does not verify") as info:
        host.on_message(ids[1].peer_id, {**sign, "sig": bytes(64)})
    assert info.value.peer == ids[1].short
    with pytest.raises(ProtocolError, match="another game id"):
        host.on_message(ids[1].peer_id, {**sign, "game": bytes(32)})
    assert isinstance(host.on_message(ids[1].peer_id, sign)[0], Started)


def test_leaving_before_the_start_frees_the_seat(tmp_path: Path) -> None:
    ids, host = setup(tmp_path, seats=4)
    for i, name in ((1, "bob"), (2, "carol")):
        g, h, n = hello_for(host, ids[i], name, N[i])
        host.on_hello(h, n, "x")
    actions = host.on_link_lost(ids[1].peer_id, "lost the connection: connection reset")
    assert [m.name for m in host.roster.members] == ["alice", "carol"]
    assert [m.seat for m in host.roster.members] == [0, 1]
    assert any(isinstance(a, SendTo) and a.peer == ids[2].peer_id for a in actions)
    # the host's screen says who left and how
    assert [a.left for a in actions if isinstance(a, RosterChanged)] == [(Left("bob", "lost the connection: connection reset"),)]
    assert host.on_link_lost(ids[1].peer_id) == []  # (gone already: said once)


def test_s6_6_the_host_starts_only_once_it_reaches_every_member(tmp_path: Path) -> None:
    """Joiners whose mesh port nobody can reach must not fill the last seats, start the
    table at once and end the lobby when they cannot sign: the start waits for every
    member's links (each reported to the host, which only hears from a guest it is
    linked with); one the host cannot reach leaves when its dial fails (§6.5), its seat
    is free again, and a reachable joiner starts the table."""
    ids, host = setup(tmp_path, seats=3)
    _, h1, n1 = hello_for(host, ids[1], "bob", N[1])
    host.on_hello(h1, n1, "10.0.0.2")
    assert linked(host, ids[1].peer_id) == []  # linked; the table is not full
    _, h2, n2 = hello_for(host, ids[2], "mallory", N[2])
    _, actions = host.on_hello(h2, n2, "10.0.0.66")  # full, but not reached yet
    assert not host.started and not any(isinstance(a, Broadcast) for a in actions)
    actions = host.on_link_lost(ids[2].peer_id)  # the host's dial failed: mallory leaves
    assert not host.started and [m.name for m in host.roster.members] == ["alice", "bob"]
    assert not any(isinstance(a, Broadcast) for a in actions)
    _, h3, n3 = hello_for(host, ids[3], "carol", N[3])
    welcome, _ = host.on_hello(h3, n3, "10.0.0.3")
    assert welcome["type"] == "lobby.welcome" and welcome["seat"] == 2
    actions = linked(host, ids[1].peer_id, ids[3].peer_id)
    start = next(a for a in actions if isinstance(a, Broadcast)).message
    assert host.started and start["type"] == "lobby.start"


def test_s6_6_the_hosts_call_to_start_waits_for_its_links(tmp_path: Path) -> None:
    """The host asks to start with a member not yet linked: the start follows the links,
    or the member's departure; meanwhile latecomers are told the game started, and the
    host's screen shows whom the start waits for (`linking`)."""
    ids, host = setup(tmp_path, seats=4)
    for i, name in ((1, "bob"), (2, "carol")):
        _, h, n = hello_for(host, ids[i], name, N[i])
        host.on_hello(h, n, "x")
    assert [a.linking for a in linked(host, ids[1].peer_id)] == []  # (nothing waits for anyone yet)
    asked = host.start()
    assert acts(asked) == [] and not host.started
    assert [a.linking for a in asked] == [{ids[2].peer_id}]
    _, h3, n3 = hello_for(host, ids[3], "dave", N[3])
    assert host.on_hello(h3, n3, "x")[0]["reason"] == "started"
    actions = host.on_link_lost(ids[2].peer_id)  # carol cannot be reached: bob and alice play
    assert not host.started  # (once bob has said he holds every link of the new roster)
    actions += linked(host, ids[1].peer_id)
    assert host.started and any(isinstance(a, Broadcast) for a in actions)
    assert [m.name for m in host.roster.members] == ["alice", "bob"]


def seat_three(tmp_path: Path):  # type: ignore[no-untyped-def]
    """alice hosts four seats; bob and then carol are seated, bob linked to the host."""
    ids, host = setup(tmp_path, seats=4)
    bob, h1, n1 = hello_for(host, ids[1], "bob", N[1])
    bob.on_reply(host.on_hello(h1, n1, "10.0.0.2")[0])
    carol, h2, n2 = hello_for(host, ids[2], "carol", N[2])
    welcome, actions = host.on_hello(h2, n2, "10.0.0.3")
    carol.on_reply(welcome)
    assert bob.on_link_up(ids[0].peer_id) == [SendTo(ids[0].peer_id, links_report(1))]  # (of the roster before carol)
    update = next(a.message for a in actions if isinstance(a, SendTo) and a.peer == ids[1].peer_id)
    assert not [a for a in bob.on_message(ids[0].peer_id, update) if isinstance(a, SendTo)]  # carol not linked yet
    return ids, host, bob, carol



def seat_bob_carol_dan(tmp_path: Path, seats: int):  # type: ignore[no-untyped-def]
    """alice hosts `seats` seats; bob, carol and dan are welcomed in that order, each
    knowing the roster of its welcome (the host holds no link yet)."""
    ids, host = setup(tmp_path, seats=seats)
    guests: dict[str, GuestLobby] = {}
    for i, name in ((1, "bob"), (2, "carol"), (3, "dan")):
        guest, hello, nonce = hello_for(host, ids[i], name, N[i])
        guest.on_reply(host.on_hello(hello, nonce, f"10.0.0.{i + 1}")[0])
        guests[name] = guest
    return ids, host, guests

def test_s6_6_a_guest_tells_the_host_once_it_holds_every_link(tmp_path: Path) -> None:
    ids, host, bob, carol = seat_three(tmp_path)
    assert carol.awaited() == {ids[0].peer_id, ids[1].peer_id}  # both dial her (lower seat dials higher)
    assert carol.on_link_up(ids[0].peer_id) == []
    report = carol.on_link_up(ids[1].peer_id)
    assert report == [SendTo(ids[0].peer_id, links_report(2))] and carol.awaited() == set()
    assert carol.on_link_up(ids[1].peer_id) == []  # once per roster version
    assert bob.on_link_up(ids[2].peer_id) == [SendTo(ids[0].peer_id, links_report(2))]
    assert host.on_message(ids[1].peer_id, links_report(1)) == []  # about an older roster: ignored
    linked(host, ids[1].peer_id, ids[2].peer_id)
    assert signed(host.start())["type"] == "lobby.start"


def test_s6_6_a_member_a_guest_cannot_dial_leaves_not_the_table(tmp_path: Path) -> None:
    """A member the host reaches but another guest cannot must not end the lobby when the
    roster is signed: the guest whose dial failed says so, and the later joiner of the
    two (carol) is told why and leaves; the others play on."""
    ids, host, bob, carol = seat_three(tmp_path)
    linked_to(host, ids[1].peer_id, ids[2].peer_id)
    report = bob.on_link_lost(ids[2].peer_id)  # bob's dial to carol failed (§4.7)
    assert report == [SendTo(ids[0].peer_id, links_report(2, (ids[2].peer_id,)))]
    actions = host.on_message(ids[1].peer_id, report[0].message)
    told = next(a for a in actions if isinstance(a, SendTo) and a.peer == ids[2].peer_id).message
    assert told["type"] == "lobby.refuse" and told["reason"] == "unreachable" and "bob and carol could not link" in told["detail"]
    assert [m.name for m in host.roster.members] == ["alice", "bob"]
    with pytest.raises(JoinRefused, match="bob and carol could not link") as info:
        carol.on_message(ids[0].peer_id, told)
    assert info.value.code == "unreachable"
    changed = next(a for a in actions if isinstance(a, RosterChanged))  # the host's screen says why
    assert changed.left == (Left("carol", f"had to leave: {told['detail']}"),)
    assert changed.left[0].sentence() == "carol had to leave: " + told["detail"] + "."
    update = next(a.message for a in actions if isinstance(a, SendTo) and a.peer == ids[1].peer_id)
    seen = bob.on_message(ids[0].peer_id, update)
    assert [a for a in seen if isinstance(a, SendTo)] == [
        SendTo(ids[0].peer_id, links_report(3))]  # every link of the new roster held: said at once
    assert [a.left for a in seen if isinstance(a, RosterChanged)] == [(Left("carol", "is no longer at the table"),)]
    linked(host, ids[1].peer_id)
    assert signed(host.start())["type"] == "lobby.start"



def test_s6_6_a_guest_that_never_reports_its_links_leaves_rather_than_hold_the_start(tmp_path: Path) -> None:
    """bob reports every link, carol, alive, never does: the host awaits carol's report
    (`unreported`, which a runner gives `REPORT_WAIT` seconds), then lets her go, told
    why, and starts with the others. A guest that reported, or that the host is dialling
    again, or whose report the host holds, is not awaited; nor is anyone once started."""
    ids, host, bob, carol = seat_three(tmp_path)
    bob_id, carol_id = ids[1].peer_id, ids[2].peer_id
    linked_to(host, bob_id, carol_id)
    assert host.unreported() == {bob_id, carol_id}
    host.start()
    linked(host, bob_id)
    assert host.unreported() == {carol_id}
    assert host.on_unreported(bob_id) == []  # (it reported: nothing happens)
    actions = host.on_unreported(carol_id, 120.0)
    told = next(a for a in actions if isinstance(a, SendTo) and a.peer == carol_id).message
    assert told["reason"] == "unreachable"
    assert told["detail"] == "did not report its links to the other players within 120 s"
    with pytest.raises(JoinRefused, match="did not report its links") as info:
        carol.on_message(ids[0].peer_id, told)
    assert info.value.code == "unreachable"
    assert [a.left for a in actions if isinstance(a, RosterChanged)] == [
        (Left("carol", f"had to leave: {told['detail']}"),)]
    assert [m.name for m in host.roster.members] == ["alice", "bob"] and host.unreported() == {bob_id}
    started = acts(linked(host, bob_id))  # (on the new roster)
    assert signed(started)["type"] == "lobby.start" and host.unreported() == frozenset()

    ids, host, bob, carol = seat_three(tmp_path / "not awaited")
    bob_id, carol_id = ids[1].peer_id, ids[2].peer_id
    linked_to(host, bob_id, carol_id)
    host.on_link_lost(carol_id, "lost the connection: nothing heard for 6 s", dropped=True)
    assert host.unreported() == {bob_id}  # (carol is being dialled again: she could not report)
    assert host.on_unreported(carol_id) == [] and [m.name for m in host.roster.members] == ["alice", "bob", "carol"]
    assert host.on_message(bob_id, links_report(2, (carol_id,))) == []  # held until the host's dial decides
    assert host.unreported() == frozenset()


def test_s6_6_a_guest_reports_again_over_a_link_to_the_host_that_came_back(tmp_path: Path) -> None:
    """A report goes out on the host's link; if that link drops, the report may have gone
    with it, and the host would wait for it in vain. So the link that comes back carries
    again whatever this guest reported on the roster as it stands, and nothing older."""
    ids, host, bob, carol = seat_three(tmp_path)
    alice_id, bob_id, carol_id = (ids[i].peer_id for i in range(3))
    assert carol.on_link_up(alice_id) == []
    assert carol.on_link_up(bob_id) == [SendTo(alice_id, links_report(2))]
    assert acts(carol.on_link_lost(alice_id, "lost the connection", dropped=True)) == [
        Probe(alice_id, ("127.0.0.1", 4000), at_once=True)]
    assert acts(carol.on_link_up(alice_id)) == [SendTo(alice_id, links_report(2))]  # again, once per link
    assert carol.on_link_up(bob_id) == []  # (a guest's link carries no report)
    assert acts(bob.on_link_lost(alice_id, "lost the connection", dropped=True))[0].__class__ is Probe
    assert acts(bob.on_link_up(alice_id)) == []  # (his report was on version 1: the roster has version 2 now)


def test_s6_6_a_report_taken_back_stays_taken_back_over_a_link_to_the_host_that_came_back(tmp_path: Path) -> None:
    """carol reported bob while the host was dialling him again, then took it back when
    bob dialled her. Her link to the host drops and comes back later: she sends again
    what she stands by, the report that holds every link, not the one taken back (which
    the host, now linked to bob, would act on at once: carol, the later joiner, would
    lose her seat). A member she names after taking a report back is named again."""
    ids, host, bob, carol = seat_three(tmp_path)
    alice_id, bob_id, carol_id = (ids[i].peer_id for i in range(3))
    linked_to(host, bob_id, carol_id)
    assert carol.on_link_up(alice_id) == []
    assert acts(host.on_link_lost(bob_id, "lost the connection: nothing heard for 6 s", dropped=True)) == [Redial(bob_id)]
    named = acts(carol.on_overdue(bob_id))  # (`MESH_WAIT` for bob's dial ran out)
    assert named == [SendTo(alice_id, links_report(2, (bob_id,)))] and host.on_message(carol_id, named[0].message) == []
    host.on_link_up(bob_id)
    taken_back = acts(carol.on_link_up(bob_id))
    assert taken_back == [SendTo(alice_id, links_report(2))]
    host.on_message(carol_id, taken_back[0].message)
    for a in acts(bob.on_link_up(carol_id)):
        host.on_message(bob_id, a.message)
    assert host.awaited() == frozenset() and host.unreported() == frozenset()
    host.on_link_lost(carol_id, "lost the connection: reset", dropped=True)
    carol.on_link_lost(alice_id, "lost the connection: reset", dropped=True)
    host.on_link_up(carol_id)
    resent = acts(carol.on_link_up(alice_id))
    assert resent == [SendTo(alice_id, links_report(2))]
    for a in resent:
        host.on_message(carol_id, a.message)
    assert [m.name for m in host.roster.members] == ["alice", "bob", "carol"]
    carol.on_link_lost(bob_id, "lost the connection: reset", dropped=True)  # (bob dials her: awaited again)
    assert acts(carol.on_overdue(bob_id)) == [SendTo(alice_id, links_report(2, (bob_id,)))]



def test_s6_6_a_report_naming_a_member_linked_since_is_not_sent_again(tmp_path: Path) -> None:
    """dan named bob, then carol, while the host was dialling both again; bob came back
    and dialled him, carol not yet. When dan's link to the host comes back, he sends
    again only the report naming carol: the one naming bob, whom he is linked to, would
    cost dan (the later joiner) his seat, the host being linked to bob again."""
    ids, host, guests = seat_bob_carol_dan(tmp_path, seats=4)
    alice_id, bob_id, carol_id, dan_id = (ids[i].peer_id for i in range(4))
    dan = guests["dan"]
    linked_to(host, bob_id, carol_id, dan_id)
    assert dan.on_link_up(alice_id) == []
    for guest in (bob_id, carol_id):
        host.on_link_lost(guest, "lost the connection: nothing heard for 6 s", dropped=True)
        named = acts(dan.on_overdue(guest))  # (`MESH_WAIT` for its dial ran out)
        assert named == [SendTo(alice_id, links_report(3, (guest,)))] and host.on_message(dan_id, named[0].message) == []
    host.on_link_up(bob_id)
    assert acts(dan.on_link_up(bob_id)) == []  # (carol still missing: nothing to say)
    host.on_link_lost(dan_id, "lost the connection: reset", dropped=True)
    dan.on_link_lost(alice_id, "lost the connection: reset", dropped=True)
    host.on_link_up(dan_id)
    resent = acts(dan.on_link_up(alice_id))
    assert resent == [SendTo(alice_id, links_report(3, (carol_id,)))]
    for a in resent:
        host.on_message(dan_id, a.message)
    assert [m.name for m in host.roster.members] == ["alice", "bob", "carol", "dan"]

def test_s6_6_a_roster_update_lost_with_a_dropped_link_comes_again_with_the_redial(tmp_path: Path) -> None:
    """dan leaves; the host's roster without him, written to bob's link just before that
    link dropped, went down with it. The host's redial of bob sends the roster as it
    stands again, so bob moves to it and reports on it, and is not let go for a report
    the host would never have. The roster again, unchanged, is nothing new to a guest;
    another roster under a version it has is a §6.5 violation."""
    ids, host, guests = seat_bob_carol_dan(tmp_path, seats=5)
    alice_id, bob_id, carol_id, dan_id = (ids[i].peer_id for i in range(4))
    bob = guests["bob"]
    linked_to(host, bob_id, carol_id, dan_id)
    assert bob.on_message(alice_id, host._update()) != []  # noqa: SLF001  (the updates he was sent: roster 3)
    for peer in (alice_id, carol_id, dan_id):
        for a in acts(bob.on_link_up(peer)):
            host.on_message(bob_id, a.message)
    linked(host, carol_id, dan_id)
    assert host.roster.version == 3 and host.unreported() == frozenset()
    gone = host.on_link_lost(dan_id, "left the table")  # its roster 4 to bob: lost with his link
    assert any(isinstance(a, SendTo) and a.peer == bob_id and a.message["type"] == "lobby.roster" for a in gone)
    linked(host, carol_id)
    assert acts(host.on_link_lost(bob_id, "lost the connection: nothing heard for 6 s", dropped=True)) == [Redial(bob_id)]
    bob.on_link_lost(alice_id, "lost the connection: nothing heard for 6 s", dropped=True)
    redialled = acts(host.on_link_up(bob_id))
    assert redialled == [again(host, bob_id)]
    for a in acts(bob.on_link_up(alice_id)):
        assert host.on_message(bob_id, a.message) == []  # (about roster 3: ignored)
    moved = bob.on_message(alice_id, redialled[0].message)
    assert [a for a in moved if isinstance(a, SendTo)] == [SendTo(alice_id, links_report(4))]
    host.on_message(bob_id, links_report(4))
    assert host.unreported() == frozenset()  # (without the roster again: {bob}, and let go 120 s on)
    assert bob.on_message(alice_id, redialled[0].message) == []  # the same roster again: nothing new
    other = dict(redialled[0].message, roster=dict(redialled[0].message["roster"], table="Other"))
    with pytest.raises(ProtocolError, match="roster version 4 does not follow 4"):
        bob.on_message(alice_id, other)

def acts(actions: list) -> list:  # type: ignore[type-arg]
    """What `actions` do on the wire and the mesh: everything but the screens' news."""
    return [a for a in actions if not isinstance(a, RosterChanged)]


def again(host: HostLobby, guest: bytes) -> SendTo:
    """The roster as it stands, sent again over a link the host dialled again (§6.6)."""
    return SendTo(guest, {"type": "lobby.roster", "v": 1, "roster": host.roster.to_wire()})


def news(actions: list) -> frozenset[bytes] | None:  # type: ignore[type-arg]
    """The members being reconnected that `actions` tell the screens, if they tell any."""
    told = [a.reconnecting for a in actions if isinstance(a, RosterChanged)]
    return told[-1] if told else None


def test_s6_6_a_guest_link_that_ends_before_the_start_is_redialled_before_anyone_leaves(tmp_path: Path) -> None:
    """A link between two guests that ends after both reported it (a Wi-Fi hiccup) costs
    nobody a seat at once: its dialer dials again, up to `REDIALS` times, and reports only
    a redial that fails; its other end awaits it again, as any link that dials it
    (`MESH_WAIT`). Both screens show the member as reconnecting meanwhile."""
    ids, host, bob, carol = seat_three(tmp_path)
    assert carol.on_link_up(ids[0].peer_id) == []
    assert carol.on_link_up(ids[1].peer_id) == [SendTo(ids[0].peer_id, links_report(2))]
    assert bob.on_link_up(ids[2].peer_id) == [SendTo(ids[0].peer_id, links_report(2))]
    for _ in range(REDIALS):
        lost = bob.on_link_lost(ids[2].peer_id, dropped=True)
        assert acts(lost) == [Redial(ids[2].peer_id)]  # the host is not told
        assert news(lost) == {ids[2].peer_id} == bob.reconnecting
        lost = carol.on_link_lost(ids[1].peer_id, dropped=True)
        assert acts(lost) == [] and carol.awaited() == {ids[1].peer_id}
        assert news(lost) == {ids[1].peer_id} == carol.reconnecting
        back = bob.on_link_up(ids[2].peer_id)
        assert acts(back) == [] and news(back) == frozenset()  # (its report was said once)
        back = carol.on_link_up(ids[1].peer_id)
        assert acts(back) == [] and news(back) == frozenset()
        assert carol.awaited() == set()
    linked(host, ids[1].peer_id, ids[2].peer_id)
    report = bob.on_link_lost(ids[2].peer_id, dropped=True)  # a link that keeps ending is reported
    assert acts(report) == [SendTo(ids[0].peer_id, links_report(2, (ids[2].peer_id,)))]
    assert news(report) is None and bob.reconnecting == frozenset()  # (given up on: not reconnecting)
    assert [m.name for m in host.roster.members] == ["alice", "bob", "carol"]  # (what the host knew held till then)


def test_s6_6_a_failed_redial_is_reported_and_the_later_joiner_leaves(tmp_path: Path) -> None:
    ids, host, bob, carol = seat_three(tmp_path)
    bob.on_link_up(ids[2].peer_id)
    report = [SendTo(ids[0].peer_id, links_report(2, (ids[2].peer_id,)))]
    assert bob.on_link_lost(ids[2].peer_id) == report  # a goodbye, or an error: reported, not redialled
    ids, host, bob, carol = seat_three(tmp_path / "again")
    linked_to(host, ids[1].peer_id, ids[2].peer_id)
    bob.on_link_up(ids[2].peer_id)
    assert acts(bob.on_link_lost(ids[2].peer_id, dropped=True)) == [Redial(ids[2].peer_id)]
    failed = bob.on_link_lost(ids[2].peer_id, dropped=True)  # the redial failed (§4.7): carol is reported, and leaves
    report = [SendTo(ids[0].peer_id, links_report(2, (ids[2].peer_id,)))]
    assert acts(failed) == report and news(failed) == frozenset()
    host.on_message(ids[1].peer_id, report[0].message)
    assert [m.name for m in host.roster.members] == ["alice", "bob"]


def test_s6_6_a_link_the_host_dials_that_drops_before_the_start_is_redialled_before_the_guest_leaves(
        tmp_path: Path) -> None:
    """The host dials every guest, so the rule that redials a dropped link between guests
    applies to the host's links as well: the host dials again, up to `REDIALS` times,
    keeping the seat and showing the guest as reconnecting; a goodbye, an error, a failed
    redial, or a link that keeps dropping still frees it."""
    ids, host, bob, carol = seat_three(tmp_path)
    bob_id, carol_id = ids[1].peer_id, ids[2].peer_id
    host.on_link_up(bob_id)
    for _ in range(REDIALS):
        lost = host.on_link_lost(bob_id, "lost the connection: reset", dropped=True)
        assert acts(lost) == [Redial(bob_id)] and news(lost) == {bob_id} == host.reconnecting
        assert [m.name for m in host.roster.members] == ["alice", "bob", "carol"]  # nobody is told anything
        back = host.on_link_up(bob_id)
        assert acts(back) == [again(host, bob_id)] and news(back) == frozenset()
    actions = host.on_link_lost(bob_id, "lost the connection: reset", dropped=True)  # a fourth time: he leaves
    assert [a.left for a in actions if isinstance(a, RosterChanged)] == [(Left("bob", "lost the connection: reset"),)]
    assert [m.name for m in host.roster.members] == ["alice", "carol"]
    host.on_link_up(carol_id)
    assert acts(host.on_link_lost(carol_id, "lost the connection: reset", dropped=True)) == [Redial(carol_id)]
    actions = host.on_link_lost(carol_id, "lost the connection: could not connect", dropped=True)  # the redial failed
    assert [m.name for m in host.roster.members] == ["alice"] and news(actions) == frozenset()
    ids, host, bob, carol = seat_three(tmp_path / "again")
    host.on_link_up(ids[1].peer_id)
    actions = host.on_link_lost(ids[1].peer_id, "left the table")  # a goodbye (or an error): he leaves at once
    assert [m.name for m in host.roster.members] == ["alice", "carol"] and news(actions) == frozenset()


def test_s6_6_the_host_does_not_start_while_it_redials_a_guest(tmp_path: Path) -> None:
    """A guest's report that it holds every link is not enough while the host knows its
    own link to that guest is down: the start waits for the redial, so a redial that
    fails costs the guest its seat, not the table (a lobby that ended at signing)."""
    ids, host, bob, carol = seat_three(tmp_path)
    bob_id, carol_id = ids[1].peer_id, ids[2].peer_id
    host.on_link_up(bob_id)
    host.on_link_up(carol_id)
    linked(host, bob_id, carol_id)
    assert acts(host.on_link_lost(bob_id, "lost the connection: reset", dropped=True)) == [Redial(bob_id)]
    assert host.start() == [] and not host.started  # bob's link is being redialled
    actions = host.on_link_up(bob_id)
    assert host.started and next(a for a in actions if isinstance(a, Broadcast)).message["type"] == "lobby.start"
    assert host.reconnecting == frozenset()
    ids, host, bob, carol = seat_three(tmp_path / "failed")
    host.on_link_up(ids[1].peer_id)
    host.on_link_up(ids[2].peer_id)
    linked(host, ids[1].peer_id, ids[2].peer_id)
    host.on_link_lost(ids[2].peer_id, "lost the connection: reset", dropped=True)
    assert host.start() == []
    host.on_link_lost(ids[2].peer_id, "lost the connection: could not connect", dropped=True)  # the redial failed
    assert [m.name for m in host.roster.members] == ["alice", "bob"] and not host.started  # (bob reports v3 first)
    actions = linked(host, ids[1].peer_id)
    assert host.started and any(isinstance(a, Broadcast) for a in actions)


def test_s6_6_a_guest_that_loses_the_host_asks_whether_its_table_still_answers(tmp_path: Path) -> None:
    """A guest awaits the host's redial, but first asks the host's front door whether the
    table still answers (`Probe`), so a host that is gone (crashed, closed) is known at
    once rather than after `MESH_WAIT`; a table that answers, or a host that is back, is
    waited for, and the guest's screen shows the host as reconnecting meanwhile. From its
    welcome until the host's first link, it asks now and then."""
    ids, host, bob, carol = seat_three(tmp_path)
    alice = ids[0].peer_id
    dave, hello, nonce = hello_for(host, ids[3], "dave", N[3])
    welcomed = dave.on_reply(host.on_hello(hello, nonce, "10.0.0.4")[0])
    assert welcomed[-1] == Probe(alice, ("127.0.0.1", 4000), at_once=False) and dave.awaited() >= {alice}
    assert news(welcomed) == frozenset()  # (not linked yet: awaited, not reconnecting)
    lost = bob.on_link_lost(alice, dropped=True)
    assert acts(lost) == [Probe(alice, ("127.0.0.1", 4000), at_once=True)] and news(lost) == {alice}
    assert bob.awaited() == {alice}  # (awaited again, as any member that dials this guest)
    assert bob.on_probe(alice, True) == []  # the table answers: its host dials again
    back = bob.on_link_up(alice)
    assert acts(back) == [] and news(back) == frozenset()  # back, and its report said once already
    assert bob.on_probe(alice, False, "refused") == []  # (an answer that comes after the host is back)
    assert acts(bob.on_link_lost(alice, dropped=True)) == [Probe(alice, ("127.0.0.1", 4000), at_once=True)]
    with pytest.raises(ProtocolError, match=r"lost the host: \w+'s table '[^']*' at 127\.0\.0\.1:4000 no longer answers \(refused\): it closed") as info:
        bob.on_probe(alice, False, "refused")
    assert info.value.section == "§6.5" and info.value.peer == ids[0].certificate.short
    # what the player reads: `bandit-lan tables` lists a table found by name, never one joined by address
    assert explain(info.value).endswith(": it closed, or its program stopped (look again with `bandit-lan tables`)")
    assert explain(info.value, by_address=True).endswith(": it closed, or its program stopped")
    with pytest.raises(ProtocolError, match=f"did not dial this peer again within {MESH_WAIT:.0f} s"):
        bob.on_overdue(alice)  # (a table that answered, but whose host never dialled again)
    with pytest.raises(TableClosed, match="^§6.5: alice closed the table") as closed:
        carol.on_link_lost(alice)  # a goodbye or an error: gone at once
    assert explain(closed.value) == "alice closed the table"  # (what the player reads: no section, no fingerprint)


def test_s6_6_a_member_no_longer_at_the_table_is_no_longer_reconnecting(tmp_path: Path) -> None:
    """A member whose dropped link a guest awaits again, and whom the host then lets go,
    is neither reconnecting on the guest's screen nor awaited."""
    ids, host, bob, carol = seat_three(tmp_path)
    carol.on_link_up(ids[1].peer_id)
    lost = carol.on_link_lost(ids[1].peer_id, dropped=True)
    assert news(lost) == {ids[1].peer_id}
    gone = host.on_link_lost(ids[1].peer_id, "left the table")  # bob leaves the table
    update = next(a.message for a in gone if isinstance(a, SendTo) and a.peer == ids[2].peer_id)
    seen = carol.on_message(ids[0].peer_id, update)
    assert news(seen) == frozenset() == carol.reconnecting and ids[1].peer_id not in carol.awaited()
    assert acts(carol.on_link_lost(ids[1].peer_id, dropped=True)) == []  # (a late word about him changes nothing)
    assert carol.reconnecting == frozenset()


def test_s6_6_a_guest_nobody_dials_in_time_is_the_later_joiner_and_leaves(tmp_path: Path) -> None:
    ids, host, bob, carol = seat_three(tmp_path)
    linked_to(host, ids[1].peer_id, ids[2].peer_id)
    carol.on_link_up(ids[0].peer_id)
    assert carol.on_overdue(ids[0].peer_id) == []  # linked: not overdue
    report = carol.on_overdue(ids[1].peer_id)  # bob never dialled her
    assert report == [SendTo(ids[0].peer_id, links_report(2, (ids[1].peer_id,)))]
    actions = host.on_message(ids[2].peer_id, report[0].message)
    told = next(a for a in actions if isinstance(a, SendTo) and a.peer == ids[2].peer_id).message
    assert told["reason"] == "unreachable" and "bob and carol could not link" in told["detail"]
    assert [m.name for m in host.roster.members] == ["alice", "bob"]


def test_s6_5_a_guest_the_host_never_reaches_is_told_so(tmp_path: Path) -> None:
    ids, host = setup(tmp_path)
    bob, h1, n1 = hello_for(host, ids[1], "bob", N[1])
    bob.on_reply(host.on_hello(h1, n1, "10.0.0.2")[0])
    with pytest.raises(ProtocolError, match="has not reached this peer's mesh port 5000") as info:
        bob.on_overdue(ids[0].peer_id)
    assert info.value.section == "§6.5"


@pytest.mark.parametrize("why, report", [
    ("a version never sent", lambda ids: links_report(9)),
    ("the host", lambda ids: links_report(2, (ids[0].peer_id,))),
    ("itself", lambda ids: links_report(2, (ids[1].peer_id,))),
    ("a stranger", lambda ids: links_report(2, (ids[3].peer_id,))),
    ("twice", lambda ids: links_report(2, (ids[2].peer_id, ids[2].peer_id))),
])
def test_s6_6_a_false_links_report_is_a_violation_that_changes_nothing(tmp_path: Path, why: str, report) -> None:  # type: ignore[no-untyped-def]
    ids, host, bob, carol = seat_three(tmp_path)
    before = host.roster
    with pytest.raises(ProtocolError) as info:
        host.on_message(ids[1].peer_id, report(ids))
    assert info.value.section == "§6.6" and info.value.peer == ids[1].short, why
    assert host.roster is before and not host.started


def test_s6_4_every_refusal_has_words_for_the_player() -> None:
    from cli.lobby_common import REFUSAL_HINTS, explain
    from p2p.lobby import REFUSALS

    assert set(REFUSAL_HINTS) == REFUSALS
    assert "firewall" in explain(JoinRefused("unreachable", "bob and carol could not link"))
    # (a table of another version: the same advice as the table list gives, §6.2)
    assert "the same bandit-lan release is needed on both machines" in explain(JoinRefused("version", "…"))
    # (the host's words say what the hint says: not twice)
    assert explain(JoinRefused("duplicate", "this identity is already seated at the table")) == (
        "the host refused: you are already seated at that table (same identity)")


def test_s6_4_a_player_refused_for_the_game_they_hold_a_seat_in_is_told_what_to_do() -> None:
    """`in-game`: the seat is taken back with --resume; `game-over`: the table seats
    nobody new; and a player who has just left that game (to start a new one) is told
    that the table plays the game they left, not that it is full."""
    from cli.lobby_common import explain

    going_back = "`bandit-lan join --resume`"
    under_way = JoinRefused("in-game", "Bo holds seat 2 in the game this table is playing")
    over = JoinRefused("game-over", "the game Bo played at this table (seat 2) is over")
    assert explain(under_way, going_back=going_back) == (
        "the host refused: Bo holds seat 2 in the game this table is playing, which goes on without you: "
        "`bandit-lan join --resume` takes your seat back")
    assert explain(over, going_back=going_back) == (
        "the host refused: the game Bo played at this table (seat 2) is over, and its table seats nobody new "
        "(`bandit-lan join --resume` says how it ended for you)")
    for refusal in (under_way, over):
        told = explain(refusal, going_back=going_back, left=True)
        assert "the game you just left" in told and "--resume" not in told and "full" not in told, told


def test_s6_4_a_member_of_r_that_says_hello_once_the_roster_is_frozen_is_told_its_game_goes_on(
        tmp_path: Path) -> None:
    """Before the start, a second hello of a seated identity is a `duplicate`; once the
    roster is frozen it is its player coming back: `in-game`, or `game-over` once the
    runner says the game ended, not `started` (nor `full`, live)."""
    ids, host, bob, carol = seat_three(tmp_path)
    _, h, n = hello_for(host, ids[2], "carol", N[5])
    assert host.on_hello(h, n, "x")[0]["reason"] == "duplicate"
    linked_to(host, ids[1].peer_id, ids[2].peer_id)
    linked(host, ids[1].peer_id, ids[2].peer_id)
    host.start()
    assert host.started
    before = host.roster
    assert host.on_hello(h, n, "x")[0] == refuse("in-game", "carol holds seat 3 in the game this table is playing")
    assert host.on_hello(h, n, "x", game_over=True)[0] == refuse(
        "game-over", "the game carol played at this table (seat 3) is over")
    assert host.roster is before


def test_s6_5_what_a_guest_let_go_sent_before_it_knew_changes_nothing(tmp_path: Path) -> None:
    """carol reports bob unreachable (she is the later joiner, so she leaves) and, in the
    same burst, signs before any start: the host has let her go by the time it reads the
    signature, which changes nothing (§6.5: the others keep their seats)."""
    ids, host, bob, carol = seat_three(tmp_path)
    linked_to(host, ids[1].peer_id, ids[2].peer_id)
    host.on_message(ids[2].peer_id, links_report(2, (ids[1].peer_id,)))
    assert [m.name for m in host.roster.members] == ["alice", "bob"]
    assert host.on_message(ids[2].peer_id, {"type": "lobby.sign", "v": 1, "game": bytes(32), "sig": bytes(64)}) == []
    assert [m.name for m in host.roster.members] == ["alice", "bob"]


def test_s6_6_a_signature_from_a_member_who_left_before_the_start_is_forgotten(tmp_path: Path) -> None:
    """carol sends bob a signature before any start (garbage, as it happens), then leaves:
    the roster bob signs has no carol, and what she sent does not stop bob's start."""
    ids, host, bob, carol = seat_three(tmp_path)
    assert bob.on_message(ids[2].peer_id, {"type": "lobby.sign", "v": 1, "game": bytes(32), "sig": bytes(64)}) == []
    actions = host.on_link_lost(ids[2].peer_id, "left the table")  # she leaves (no redial: not dropped)
    update = next(a.message for a in actions if isinstance(a, SendTo) and a.peer == ids[1].peer_id)
    bob.on_message(ids[0].peer_id, update)
    linked(host, ids[1].peer_id)
    start = signed(host.start())
    sign = signed(bob.on_message(ids[0].peer_id, start))
    assert sign["type"] == "lobby.sign"
    assert isinstance(host.on_message(ids[1].peer_id, sign)[0], Started)


@pytest.mark.parametrize("address", [("a..b", 5000), ("10.0.0.3", 0), ("carol.local", 5000)])
def test_s6_5_a_roster_that_gives_a_newcomer_no_address_to_dial_is_the_host_s_error(
        tmp_path: Path, address: tuple[str, int]) -> None:
    """The host gives each newcomer's address as it saw the joiner connect: an IP address
    and a port. Anything else, which no dial could use, is a §6.5 error of the host's,
    not a crash of the guest's mesh."""
    ids, host = setup(tmp_path, seats=4)
    bob, h1, n1 = hello_for(host, ids[1], "bob", N[1])
    bob.on_reply(host.on_hello(h1, n1, "10.0.0.2")[0])
    _carol, h2, n2 = hello_for(host, ids[2], "carol", N[2])
    _welcome, actions = host.on_hello(h2, n2, "10.0.0.3")
    update = next(a.message for a in actions if isinstance(a, SendTo) and a.peer == ids[1].peer_id)
    update["roster"]["members"][2].update(addr=address[0], port=address[1])
    with pytest.raises(ProtocolError) as info:
        bob.on_message(ids[0].peer_id, update)
    assert info.value.section == "§6.5" and "no address to dial" in info.value.reason


def test_s6_6_a_report_naming_a_guest_the_host_redials_waits_for_that_redial(tmp_path: Path) -> None:
    """carol stopped (her links fell silent), and the host dials her again. Bob, who
    cannot reach her either, reports her meanwhile; he is the earlier joiner, but had he
    been the later, the report alone would cost him his seat. So the host holds the report
    until its own dial is decided: a dial that fails lets carol go as one that lost her
    connection, and the report, about the roster before, no longer matters. So does the
    host's first dial of her, when she stopped before it reached her ("never reached").
    A link that comes back gives bob `MESH_WAIT` to take the report back (carol, awake
    again, dials him): if he does not, the report stands."""
    for outcome in ("failed", "never reached", "back", "back and taken back"):
        ids, host, bob, carol = seat_three(tmp_path / outcome)
        bob_id, carol_id = ids[1].peer_id, ids[2].peer_id
        host.on_link_up(bob_id)
        if outcome != "never reached":
            host.on_link_up(carol_id)
            assert acts(host.on_link_lost(carol_id, "lost the connection: nothing heard for 6 s", dropped=True)) == [
                Redial(carol_id)]
        report = links_report(2, (carol_id,))
        assert host.on_message(bob_id, report) == []  # held
        assert host.awaited() == frozenset()  # (not yet on a clock: the host's dial decides first)
        assert [m.name for m in host.roster.members] == ["alice", "bob", "carol"]
        if outcome in ("failed", "never reached"):
            actions = host.on_link_lost(carol_id, "lost the connection: could not connect: timed out", dropped=True)
            assert [a.left for a in actions if isinstance(a, RosterChanged)] == [
                (Left("carol", "lost the connection: could not connect: timed out"),)]
            assert not any(isinstance(a, SendTo) and a.message["type"] == "lobby.refuse" for a in actions)
            assert [m.name for m in host.roster.members] == ["alice", "bob"]
            assert host.on_link_up(carol_id) == [] and host.on_overdue(bob_id) == []  # (gone: nothing changes)
            continue
        assert acts(host.on_link_up(carol_id)) == [again(host, carol_id)] and host.awaited() == {bob_id}
        if outcome == "back":
            actions = host.on_overdue(bob_id)
            told = next(a for a in actions if isinstance(a, SendTo) and a.peer == carol_id).message
            assert told["reason"] == "unreachable" and "bob and carol could not link" in told["detail"]
            assert [m.name for m in host.roster.members] == ["alice", "bob"]
        else:
            host.on_message(carol_id, links_report(2))
            host.on_message(bob_id, links_report(2))  # carol dialled him again: he holds every link after all
            assert host.awaited() == frozenset() and host.on_overdue(bob_id) == []
            assert [m.name for m in host.roster.members] == ["alice", "bob", "carol"]
            assert signed(host.start())["type"] == "lobby.start"


def test_s6_6_two_held_reports_that_stand_cost_one_seat_each_at_most(tmp_path: Path) -> None:
    """bob, the earliest guest, stopped; carol and dan both report him, and the host holds
    both. He is back, and neither takes its report back in time: the first that stands
    costs carol her seat (the later joiner) and changes the roster, so dan's report, about
    the roster before, no longer counts (he reports again on the new one). (The host's
    lobby once raised KeyError here.)"""
    ids, host = setup(tmp_path, seats=4)
    for i, name in ((1, "bob"), (2, "carol"), (3, "dan")):
        _, hello, nonce = hello_for(host, ids[i], name, N[i])
        host.on_hello(hello, nonce, f"10.0.0.{i + 1}")
        host.on_link_up(ids[i].peer_id)
    bob_id, carol_id, dan_id = (ids[i].peer_id for i in (1, 2, 3))
    host.on_link_lost(bob_id, "lost the connection: nothing heard for 6 s", dropped=True)
    assert host.on_message(carol_id, links_report(3, (bob_id,))) == []
    assert host.on_message(dan_id, links_report(3, (bob_id,))) == []
    host.on_link_up(bob_id)
    assert host.awaited() == {carol_id, dan_id}
    host.on_overdue(carol_id)
    assert host.on_overdue(dan_id) == []
    assert [m.name for m in host.roster.members] == ["alice", "bob", "dan"] and host.awaited() == frozenset()


def test_s6_6_a_report_about_a_roster_since_changed_is_no_longer_held(tmp_path: Path) -> None:
    ids, host, bob, carol = seat_three(tmp_path)
    bob_id, carol_id = ids[1].peer_id, ids[2].peer_id
    host.on_link_up(carol_id)
    host.on_link_lost(carol_id, "lost the connection: reset", dropped=True)
    assert host.on_message(bob_id, links_report(2, (carol_id,))) == []
    dan, hello, nonce = hello_for(host, ids[3], "dan", N[3])
    host.on_hello(hello, nonce, "10.0.0.4")  # roster 3: bob's report on roster 2 is stale
    host.on_link_up(carol_id)
    assert host.on_overdue(bob_id) == []  # (not taken back, but about the roster before: ignored)
    assert [m.name for m in host.roster.members] == ["alice", "bob", "carol", "dan"]


def test_s6_6_a_roster_some_member_does_not_sign_in_time_ends_the_lobby_naming_it(tmp_path: Path) -> None:
    """Every peer waits `SIGN_WAIT` from freezing the roster; the runner then ends the
    lobby with the error `sign_overdue` gives, which names whoever has not signed."""
    ids, host, bob, carol = seat_three(tmp_path)
    host.on_link_up(ids[1].peer_id)
    host.on_link_up(ids[2].peer_id)
    assert not host.signing
    start = next(a for a in [*linked(host, ids[1].peer_id, ids[2].peer_id), *host.start()]
                 if isinstance(a, Broadcast)).message
    assert host.signing
    signed = next(a for a in bob.on_message(ids[0].peer_id, start) if isinstance(a, Broadcast)).message
    host.on_message(ids[1].peer_id, signed)
    error = host.sign_overdue()
    assert error.section == "§6.6" and error.reason == f"carol did not sign the roster within {SIGN_WAIT:.0f} s"
    assert error.peer == ids[2].certificate.short
    assert bob.signing and bob.sign_overdue().reason == f"carol did not sign the roster within {SIGN_WAIT:.0f} s"
    carol.on_message(ids[0].peer_id, start)
    assert carol.sign_overdue().reason == f"bob did not sign the roster within {SIGN_WAIT:.0f} s"


def test_s6_6_three_members_who_did_not_sign_are_named_in_a_list(tmp_path: Path) -> None:
    """Three names or more read "bob, carol and dan", as everywhere else, not "bob and
    carol and dan"."""
    ids, host, _ = seat_bob_carol_dan(tmp_path, seats=4)
    guests = [ident.peer_id for ident in ids[1:4]]
    linked_to(host, *guests)
    assert any(isinstance(a, Broadcast) for a in [*linked(host, *guests), *host.start()])
    assert host.sign_overdue().reason == f"bob, carol and dan did not sign the roster within {SIGN_WAIT:.0f} s"


def signing(tmp_path: Path):  # type: ignore[no-untyped-def]
    """alice, bob and carol, every link up and reported: alice starts; the start is sent
    (carol has not read it yet)."""
    ids, host, bob, carol = seat_three(tmp_path)
    bob.on_link_up(ids[2].peer_id)
    carol.on_link_up(ids[0].peer_id)
    carol.on_link_up(ids[1].peer_id)
    linked_to(host, ids[1].peer_id, ids[2].peer_id)
    start = next(a for a in [*linked(host, ids[1].peer_id, ids[2].peer_id), *host.start()]
                 if isinstance(a, Broadcast)).message
    return ids, host, bob, carol, start


def signed(actions: list) -> dict:  # type: ignore[type-arg]
    """The message carrying a peer's roster signature among `actions` (its broadcast)."""
    return next(a for a in actions if isinstance(a, Broadcast)).message


def test_s6_6_a_member_that_leaves_before_signing_ends_the_lobby_saying_how(tmp_path: Path) -> None:
    ids, host, bob, carol, start = signing(tmp_path)
    with pytest.raises(ProtocolError, match=r"^§6.6: carol left before signing the roster \(peer"):
        host.on_link_lost(ids[2].peer_id)
    bob.on_message(ids[0].peer_id, start)
    with pytest.raises(ProtocolError, match=r"^§6.6: carol left before signing the roster \(was disconnected: bad"):
        bob.on_link_lost(ids[2].peer_id, "was disconnected: bad frame")


def test_s6_6_a_link_that_drops_during_the_signing_is_made_again_and_carries_the_signatures_again(
        tmp_path: Path) -> None:
    """A Wi-Fi hiccup while R is being signed costs nobody the game: the lower seat dials
    again, the higher awaits (`SIGN_WAIT` bounds it), and the link that comes back
    carries again each side's signature (the start, from the host), which may have gone
    down with the link that dropped. Whatever arrives twice is nothing new."""
    ids, host, bob, carol, start = signing(tmp_path)
    alice_id, bob_id, carol_id = (ids[i].peer_id for i in range(3))
    bob_signs = signed(bob.on_message(alice_id, start))
    assert host.on_message(bob_id, bob_signs) == []
    # carol's link to the host drops before she read the start: the host dials her again
    assert host.on_link_lost(carol_id, "lost the connection: peer closed", dropped=True) == [Redial(carol_id)]
    assert acts(carol.on_link_lost(alice_id, "lost the connection", dropped=True)) == [
        Probe(alice_id, ("127.0.0.1", 4000), at_once=True)]  # (before the start, as ever)
    # bob's link to carol drops too: bob, the lower seat, dials again; carol awaits him
    assert bob.on_link_lost(carol_id, "lost the connection", dropped=True) == [Redial(carol_id)]
    assert acts(carol.on_link_lost(bob_id, "lost the connection", dropped=True)) == []
    assert host.on_link_up(carol_id) == [SendTo(carol_id, start)]
    carol.on_link_up(alice_id)
    carol_signs = signed(carol.on_message(alice_id, start))
    assert carol.on_message(alice_id, start) == []  # the start again: nothing new
    assert isinstance(host.on_message(carol_id, carol_signs)[0], Started)
    # bob's signature had reached carol before her link to him dropped; hers to him went
    # down with it. carol has started (her game dials nobody: bob, the lower seat, does)
    carol_started = carol.on_message(bob_id, bob_signs)[0]
    assert isinstance(carol_started, Started) and carol.on_message(bob_id, bob_signs) == []
    assert bob.on_link_up(carol_id) == [SendTo(carol_id, bob_signs)]  # (her game ignores it)
    assert carol_started.result.signed() == carol_signs  # what her game sends again on that link
    assert isinstance(bob.on_message(carol_id, carol_signs)[0], Started)
    assert bob.on_message(carol_id, carol_signs) == []  # (done: nothing more)


def test_s6_6_a_signature_sent_again_before_the_start_was_read_is_kept_once(tmp_path: Path) -> None:
    """carol signs; her link to bob drops and bob dials it again: it carries her signature
    again, and bob, who has not read the start yet, keeps it once (the same signature
    twice is nothing new; another one is a violation)."""
    ids, host, bob, carol, start = signing(tmp_path)
    alice_id, bob_id = ids[0].peer_id, ids[1].peer_id
    carol_signs = signed(carol.on_message(alice_id, start))
    assert carol.on_link_lost(bob_id, "lost the connection", dropped=True) == []  # (bob dials her again)
    assert carol.on_link_up(bob_id) == [SendTo(bob_id, carol_signs)]
    assert bob.on_message(ids[2].peer_id, carol_signs) == []
    assert bob.on_message(ids[2].peer_id, carol_signs) == []
    with pytest.raises(ProtocolError, match=r"^§6.6: two different roster signatures from one peer"):
        bob.on_message(ids[2].peer_id, dict(carol_signs, sig=bytes(64)))
    assert isinstance(bob.on_message(alice_id, start)[-1], Started)
    with pytest.raises(ProtocolError, match=r"^§6.6: a second lobby.start, with another roster or signature"):
        carol.on_message(alice_id, dict(start, sig=bytes(64)))


def test_s6_6_a_link_that_keeps_dropping_during_the_signing_ends_the_lobby_saying_how(tmp_path: Path) -> None:
    """Each dialer redials `REDIALS` times at most, the lobby's budget as before the start;
    a redial that fails (its link never came up) ends the lobby too."""
    ids, host, bob, carol, start = signing(tmp_path)
    carol_id = ids[2].peer_id
    for _ in range(REDIALS):
        assert host.on_link_lost(carol_id, "lost the connection", dropped=True) == [Redial(carol_id)]
        host.on_link_up(carol_id)
    with pytest.raises(ProtocolError, match=r"carol left before signing the roster \(lost the connection: "
                                            r"nothing heard for 6 s\)"):
        host.on_link_lost(carol_id, "lost the connection: nothing heard for 6 s", dropped=True)
    bob.on_message(ids[0].peer_id, start)
    assert bob.on_link_lost(carol_id, "lost the connection", dropped=True) == [Redial(carol_id)]
    with pytest.raises(ProtocolError, match=r"carol left before signing the roster \(could not dial: refused\)"):
        bob.on_link_lost(carol_id, "could not dial: refused", dropped=True)  # (the redial failed)


def test_s6_6_a_lobby_that_fails_while_signing_tells_every_member_and_ends_theirs_at_once(tmp_path: Path) -> None:
    """The host's link to carol dropped before her signature came, and its dial of her
    again failed: its lobby ends, and its ``lobby.fail`` ends bob's at once (he would
    otherwise wait out `SIGN_WAIT`); bob's passes on the host's reason, not his own
    account of it. A fail read before the start (bob's, at carol's, ahead of the host's
    start) is kept and ends the lobby at the start."""
    ids, host, bob, carol, start = signing(tmp_path)
    alice_id, bob_id, carol_id = (i.peer_id for i in ids[:3])
    assert host.on_link_lost(carol_id, "lost the connection", dropped=True) == [Redial(carol_id)]
    with pytest.raises(ProtocolError) as failed:
        host.on_link_lost(carol_id, "could not dial: refused", dropped=True)
    game_id = host._sigs.game_id
    why = "carol left before signing the roster (could not dial: refused)"
    fail = host.failure(failed.value)
    assert fail == fail_message(game_id, why) == {"type": "lobby.fail", "v": 1, "game": game_id, "why": why}
    bob.on_message(alice_id, start)
    with pytest.raises(StartFailed) as ended:
        bob.on_message(alice_id, fail)
    assert str(ended.value) == f"§6.6: the game will not start: {why} (told by alice)"
    assert bob.failure(ended.value) == fail  # (the reason as the host gave it)
    carol.on_message(bob_id, fail)  # (bob's fail came before the host's start: kept)
    with pytest.raises(StartFailed, match=r"^§6.6: the game will not start: carol left .* \(told by bob\)$"):
        carol.on_message(alice_id, start)


def test_s6_6_a_lobby_fail_is_read_only_while_signing_and_only_about_this_game(tmp_path: Path) -> None:
    """``lobby.fail`` before the host's start, from the guest to the host, is a violation
    (nobody signs before it); one naming another game id is a violation by its sender; a
    lobby with every signature sends none of its own, but one read before its game begins
    (it came with the last signature) still ends it, and is passed on; a reason too long
    is cut, and one with control characters is printed safely."""
    ids, host, bob, carol, start = signing(tmp_path)
    alice_id, bob_id, carol_id = (i.peer_id for i in ids[:3])
    game_id = host._sigs.game_id
    ids2, host2, *_ = seat_three(tmp_path / "2")
    with pytest.raises(ProtocolError, match=r"^§6.6: lobby.fail before the host started the game"):
        host2.on_message(ids2[1].peer_id, fail_message(game_id, "no"))
    assert host2.failure(ProtocolError("§6.6", "no")) is None  # (not signing: nothing to tell)
    with pytest.raises(ProtocolError, match=r"^§6.6: lobby.fail names another game id .*\(peer "
                                            + ids[1].certificate.short):
        host.on_message(bob_id, fail_message(bytes(32), "no"))
    # what a failing peer tells: a violation with the member it blames; a player leaving, that
    assert host.failure(ProtocolError("§6.6", "a bad frame", ids[1].certificate.short))["why"] == "bob: a bad frame"
    assert host.failure(ProtocolError("§6.6", "bob did it", ids[1].certificate.short))["why"] == "bob did it"
    assert host.failure(KeyboardInterrupt())["why"] == "alice left before the game began"
    with pytest.raises(StartFailed, match=r"will not start: a\\x1b\[2Jb \(told by bob\)"):
        host.on_message(bob_id, fail_message(game_id, "a\x1b[2Jb"))
    long = fail_message(game_id, "x" * 500)["why"]
    assert len(long) == WHY_LEN and long.endswith("…")
    bob_signs = signed(bob.on_message(alice_id, start))
    carol_signs = signed(carol.on_message(alice_id, start))
    host.on_message(bob_id, bob_signs)
    assert isinstance(host.on_message(carol_id, carol_signs)[-1], Started)
    assert host.failure(ProtocolError("§6.6", "late")) is None
    with pytest.raises(StartFailed, match=r"will not start: bob left before the game began \(told by bob\)$") as late:
        host.on_message(bob_id, fail_message(game_id, "bob left before the game began"))
    assert host.failure(late.value) == fail_message(game_id, "bob left before the game began")


def test_s6_6_a_goodbye_from_a_member_that_signed_is_no_end_of_the_lobby(tmp_path: Path) -> None:
    """A peer whose lobby is over (it holds every signature) may leave before any game:
    `--lobby-only` does, saying goodbye. A member still waiting for another's signature
    goes on: the goodbye of one whose signature it holds ends nothing (it ended the
    lobby of every member still signing, at random)."""
    ids, host, bob, carol, start = signing(tmp_path)
    alice_id, carol_id = ids[0].peer_id, ids[2].peer_id
    carol_signs = signed(carol.on_message(alice_id, start))
    assert carol.on_link_lost(alice_id) == [] and carol.signing  # (the host's goodbye: it signed)
    assert host.on_message(carol_id, carol_signs) == []
    assert host.on_link_lost(carol_id) == [] and host.signing  # (carol signed, then left: no matter here)
    with pytest.raises(ProtocolError, match=r"^§6.6: bob left before signing the roster \(peer"):
        host.on_link_lost(ids[1].peer_id)  # (bob had not signed: his goodbye ends it)


def test_s6_6_the_game_sends_the_same_signature_message_again(tmp_path: Path) -> None:
    """What the game sends again on each link that comes up (`LobbyResult.signed`) is the
    very message its lobby broadcast: the host's start, a guest's signature."""
    ids, host, bob, carol, start = signing(tmp_path)
    bob_signs = signed(bob.on_message(ids[0].peer_id, start))
    carol_signs = signed(carol.on_message(ids[0].peer_id, start))
    results = [*host.on_message(ids[1].peer_id, bob_signs), *host.on_message(ids[2].peer_id, carol_signs),
               *bob.on_message(ids[2].peer_id, carol_signs), *carol.on_message(ids[1].peer_id, bob_signs)]
    told = {r.result.seat: r.result.signed() for r in results if isinstance(r, Started)}
    assert told == {0: start, 1: bob_signs, 2: carol_signs}


def test_s11_3_the_journal_is_written_before_each_signature_goes_out(tmp_path: Path) -> None:
    """`Signing` comes before the message carrying this peer's signature of R, naming R,
    its game id and the seat: a runner writes the seat's journal then (§11.3). A guest
    told before the start that it failed writes nothing and signs nothing."""
    ids, host, bob, carol, start = signing(tmp_path)
    bob_acts = bob.on_message(ids[0].peer_id, start)
    kinds = [type(a).__name__ for a in bob_acts]
    assert kinds[:2] == ["Signing", "Broadcast"], kinds
    seen = bob_acts[0]
    assert (seen.canonical, seen.seat, seen.game_id) == (start["roster"], 1, game_id_of(start["roster"]))
    assert [m.address for m in seen.roster.members][2] is not None  # (where bob dials carol: for his journal)
    ids, host, bob, carol = seat_three(tmp_path / "host")
    linked(host, ids[1].peer_id)
    host_acts = [a for a in linked(host, ids[2].peer_id) + host.start() if isinstance(a, (Signing, Broadcast))]
    assert [type(a).__name__ for a in host_acts] == ["Signing", "Broadcast"] and host_acts[0].seat == 0
    ids, host, bob, carol, start = signing(tmp_path / "failed")
    bob.on_message(ids[2].peer_id, fail_message(game_id_of(start["roster"]), "carol left"))
    with pytest.raises(StartFailed):
        bob.on_message(ids[0].peer_id, start)


def signed_by_all(tmp_path: Path):  # type: ignore[no-untyped-def]
    """alice, bob and carol signed R; each one's signature message, by seat, and bob's result."""
    ids, host, bob, carol, start = signing(tmp_path)
    bob_signs = signed(bob.on_message(ids[0].peer_id, start))
    carol_signs = signed(carol.on_message(ids[0].peer_id, start))
    result = next(a for a in bob.on_message(ids[2].peer_id, carol_signs) if isinstance(a, Started)).result
    return ids, [start, bob_signs, carol_signs], result


def test_s11_3_a_seat_stopped_while_signing_signs_again_and_gathers_every_signature(tmp_path: Path) -> None:
    """carol's process stopped once her signature was out, before she held bob's. Taken
    back, she signs R again (the very signature: Ed25519 is deterministic), sends it on
    each link that comes up, and starts once the others' signatures come again (their
    games send them on each link that comes up): the same game as theirs."""
    ids, messages, bobs = signed_by_all(tmp_path)
    again = SigningAgain(ids[2], messages[0]["roster"])
    assert again.signing and again.awaited() == frozenset()
    assert again.on_link_up(ids[1].peer_id) == [SendTo(ids[1].peer_id, messages[2])]
    assert again.on_message(ids[1].peer_id, messages[1]) == []
    assert again.on_message(ids[1].peer_id, {"type": "lobby.links", "v": 1, "version": 2, "unreachable": []}) == []
    assert again.on_message(ids[1].peer_id, messages[1]) == []  # (again: nothing new)
    started = again.on_message(ids[0].peer_id, messages[0])
    assert len(started) == 1 and isinstance(started[0], Started)
    result = started[0].result
    assert (result.game_id, result.canonical, result.signatures) == (bobs.game_id, bobs.canonical, bobs.signatures)
    assert result.seat == 2 and result.signed() == messages[2]


def test_s11_3_a_seat_signing_again_ends_when_a_member_it_needs_is_gone_or_the_start_failed(tmp_path: Path) -> None:
    """Without a member's signature the game cannot begin here. A member its dial did not
    reach is awaited: a lower seat dials this seat (§6.5: the address this seat knows for
    it was never its to dial), and a higher one may be taking its own seat back (it then
    dials every member); `SIGN_WAIT` bounds the wait, then `NotReached` (it may only be
    away: the seat may try again). Unless the others cannot dial this seat at all: then a
    failed dial ends it at once. A member that leaves ends it; a link that drops once up is dialled again; a
    member whose signature is held is the game's. A `lobby.fail` ends it as in a lobby
    (§6.6); a start with another roster is a violation."""
    ids, messages, _ = signed_by_all(tmp_path)
    alice, bob, carol = ids[0].peer_id, ids[1].peer_id, ids[2].peer_id
    refused = "lost the connection: could not connect: refused"
    again = SigningAgain(ids[2], messages[0]["roster"])
    assert again.on_link_lost(bob, refused, dropped=True) == []  # (bob, seat 2, dials carol, seat 3)
    with pytest.raises(NotReached, match=r"^§11.3: bob cannot be reached \(could not connect: refused\)"):
        SigningAgain(ids[2], messages[0]["roster"], dials_all=True).on_link_lost(bob, refused, dropped=True)
    # (bob dials carol, but she may be taking her own seat back: she then dials him; before,
    # his resume ended at once, and hers, a few seconds later, waited 30 s for him in vain)
    assert SigningAgain(ids[1], messages[0]["roster"]).on_link_lost(carol, refused, dropped=True) == []
    assert str(again.sign_overdue(SIGN_WAIT)).startswith("§11.3: alice and bob could not be reached within 30 s")
    again = SigningAgain(ids[2], messages[0]["roster"])
    again.on_link_up(bob)
    assert again.on_link_lost(bob, "lost the connection", dropped=True) == [Redial(bob)]
    again.on_message(alice, messages[0])
    assert again.on_link_lost(alice, "left the table") == []  # (held: the game's)
    with pytest.raises(ProtocolError, match="^§11.3: bob left the table, and its signature of the roster is still due"):
        again.on_link_lost(bob, "left the table")
    again = SigningAgain(ids[2], messages[0]["roster"])
    with pytest.raises(StartFailed, match="told by alice"):
        again.on_message(alice, fail_message(game_id_of(messages[0]["roster"]), "bob left"))
    assert again.failure(StartFailed("alice", "bob left")) == fail_message(game_id_of(messages[0]["roster"]), "bob left")
    with pytest.raises(ProtocolError, match="another roster"):
        again.on_message(alice, dict(messages[0], roster=messages[0]["roster"] + b"\x00"))
    with pytest.raises(ProtocolError, match="'lobby.start' while the roster is being signed"):
        again.on_message(bob, messages[0])  # (only the host starts)
    with pytest.raises(ProtocolError, match="bob's roster signature does not verify"):
        again.on_message(bob, dict(messages[1], sig=bytes(64)))
    with pytest.raises(ValueError):
        SigningAgain(make_identities(tmp_path / "stranger", 1)[0], messages[0]["roster"])


def test_s6_6_a_host_that_failed_as_it_signed_is_heard_by_a_guest_that_had_not_its_start(tmp_path: Path) -> None:
    """The host's journal could not be written as it signed (§11.3): it sent no start,
    only its ``lobby.fail``, then its goodbye. bob kept the fail (no R to read it
    against) and says its reason when the host leaves, not "h closed the table"."""
    ids, host, bob, carol = seat_three(tmp_path)
    assert bob.on_message(ids[0].peer_id, fail_message(bytes(32), "alice could not keep this game's records (No space)")) == []
    with pytest.raises(StartFailed, match=r"^§6.6: the game will not start: alice could not keep this game's records "
                                          r"\(No space\) \(told by alice\)"):
        bob.on_link_lost(ids[0].peer_id, "left the table")
    with pytest.raises(TableClosed):  # (without a fail: the host closed its table)
        carol.on_link_lost(ids[0].peer_id, "left the table")


def test_s10_1_a_file_of_this_seat_that_cannot_be_written_is_no_network_error() -> None:
    """A failed write of the seat's journal (as it signs) or log is said as such."""
    assert explain(NotADirectoryError(20, "Not a directory", "/x/games")) == (
        "this game's records could not be written here (/x/games: Not a directory), so you did not sit down (§10.1)")
    assert explain(ConnectionRefusedError(111, "Connection refused")).startswith("connection refused")


@pytest.mark.parametrize("name,words", [
    ("alice", "'alice' is already seated (seat 1) (§6.4)"),
    ("Alice ", "'alice' is already seated (seat 1) and 'Alice ' reads the same"),
    ("\u0430lice", "'alice' is already seated (seat 1) and '\u0430lice' (in Latin and Cyrillic letters) reads the same"),
    ("\u0430\u04cf\u0456\u0441\u0435", "'alice' is already seated (seat 1) and '\u0430\u04cf\u0456\u0441\u0435' "
                                       "(in Cyrillic letters) reads the same: names must differ by more than case"),
])
def test_s6_4_a_name_alike_a_seated_one_is_refused_naming_the_seated_player(tmp_path: Path, name: str, words: str) -> None:
    """Lookalike letters, case and spacing do not tell two players apart (§6.4): the
    refusal names the seated player as seated, and the rule."""
    ids, host = setup(tmp_path)
    _, h, n = hello_for(host, ids[1], "bob", N[1])
    reply, actions = host.on_hello({**h, "name": name}, n, "x")
    assert reply["reason"] == "name-taken" and reply["detail"].startswith(words), reply["detail"]
    assert actions == [TurnedAway(name, "x", PROTOCOL_VERSION, "name-taken", ids[1].peer_id,
                                  reply["detail"].removesuffix(" (§6.4)"))]


def test_s6_4_the_host_is_told_which_name_it_refused_as_a_lookalike_and_why(tmp_path: Path) -> None:
    """The joiner reads why its 'B\u043eb' was refused; the host's player reads it too,
    in one line: the name, from where, whose seat it reads as, and the rule."""
    ids, host = setup(tmp_path)
    _, h, n = hello_for(host, ids[1], "Bob", N[1])
    host.on_hello(h, n, "10.0.0.6")
    _, h, n = hello_for(host, ids[2], "carol", N[2])
    reply, actions = host.on_hello({**h, "name": "B\u043eb"}, n, "10.0.0.7")  # (a hello's name is not signed)
    assert reply["reason"] == "name-taken" and len(host.roster.members) == 2
    assert actions[0].sentence() == (
        "B\u043eb (10.0.0.7) could not join under that name: 'Bob' is already seated (seat 2) and 'B\u043eb' "
        "(in Latin and Cyrillic letters) reads the same: names must differ by more than case, spacing or lookalike "
        "letters.")


def test_s6_4_a_player_refused_for_a_name_reads_the_reason_once_without_its_section(tmp_path: Path) -> None:
    """The refusal of a name taken was said twice, the generic hint and then the host's
    words ("a player with that name … is seated; pick another with --name ('alice' is
    already seated (seat 1): pick another name (§6.4))"): the player reads the host's
    words once, and what to do; the section stays in the words sent (the logs')."""
    from cli.lobby_common import explain

    ids, host = setup(tmp_path)
    _, h, n = hello_for(host, ids[1], "bob", N[1])
    for name, words in (("alice", "'alice' is already seated (seat 1)"),
                        ("Alice ", "'alice' is already seated (seat 1) and 'Alice ' reads the same: names must "
                                   "differ by more than case, spacing or lookalike letters"),
                        ("   ", "the name '   ' is not written plainly (no white space at its ends or two in a row, "
                                "Unicode NFC)")):
        reply, _ = host.on_hello({**h, "name": name}, n, "x")
        assert reply["detail"].endswith(" (§6.4)"), reply
        assert explain(JoinRefused(reply["reason"], reply["detail"])) == (
            f"the host refused your name: {words}; pick another name with --name")
    assert explain(JoinRefused("name-taken", "")) == (
        "the host refused: a player with that name, or one that reads the same, is seated; pick another with --name")


@pytest.mark.parametrize("name,words", [
    ("   ", "the name '   ' is not written plainly"),
    ("B\u043eb", "the name 'B\u043eb' mixes Latin and Cyrillic letters in one word (its \u043e is Cyrillic small letter o)"),
    ("bo\u200bb", "the name 'bo\\u200bb' holds an invisible or control character (U+200B)"),
    ("bo  b", "the name 'bo  b' is not written plainly"),
    ("\u0301", "the name '\u0301' shows no letter, digit or sign"),
])
def test_s6_4_the_host_refuses_a_name_nobody_can_tell_apart(tmp_path: Path, name: str, words: str) -> None:
    """A blank, invisible, unplain or mixed-script name is refused at the door (§6.4),
    and the host's player is told so in one line, as of a name taken."""
    ids, host = setup(tmp_path)
    _, h, n = hello_for(host, ids[1], "bob", N[1])
    reply, actions = host.on_hello({**h, "name": name}, n, "x")
    assert reply["reason"] == "bad-name" and reply["detail"].startswith(words), reply["detail"]
    assert actions == [TurnedAway(name, "x", PROTOCOL_VERSION, "bad-name", ids[1].peer_id,
                                  reply["detail"].removesuffix(" (§6.4)"))]
    assert actions[0].sentence() == f"A player at x could not join: {reply['detail'].removesuffix(' (§6.4)')}."
    refused = JoinRefused(reply["reason"], reply["detail"])
    assert explain(refused) == (f"the host refused your name: {reply['detail'].removesuffix(' (§6.4)')}; "
                                "pick another name with --name")
    assert host.on_hello({**h, "name": "Bob"}, n, "x")[0]["type"] == "lobby.welcome"


def test_s6_4_a_peer_gives_itself_no_name_the_rules_refuse(tmp_path: Path) -> None:
    ids = make_identities(tmp_path, 2)
    with pytest.raises(ValueError, match="the player name 'A\u043d\u043d' mixes"):
        GuestLobby(ids[1], name="A\u043d\u043d", port=5000, nonce=N[1])
    with pytest.raises(ValueError, match="the table name ' T' is not written plainly"):
        HostLobby(ids[0], name="alice", table=" T", seats=2, table_nonce=N[0], port=4000)


def renamed(message: dict, seat: int, name: str) -> dict:  # type: ignore[type-arg]
    """`message` (a welcome or a ``lobby.roster``) with seat `seat` named `name`: what a
    host that ignores its own door could send."""
    members = [dict(m) for m in message["roster"]["members"]]
    members[seat]["name"] = name
    return {**message, "roster": {**message["roster"], "members": members}}


def test_s6_4_a_guest_refuses_a_roster_whose_names_the_host_s_door_would_refuse(tmp_path: Path) -> None:
    """Every guest applies §6.4's name rules to each roster it is sent (its welcome, each
    ``lobby.roster``), so it never signs one that seats two names alike or a name the
    door refuses: a host cannot seat "АВВА" in Cyrillic letters beside "ABBA", or "bоb"
    (a Cyrillic о) beside "bob". (Guests compared names only after NFKC and case folding,
    and signed such rosters.)"""
    ids, host = setup(tmp_path, seats=4)
    bob, h1, n1 = hello_for(host, ids[1], "bob", N[1])
    bob.on_reply(host.on_hello(h1, n1, "10.0.0.2")[0])
    abba, h2, n2 = hello_for(host, ids[2], "ABBA", N[2])
    welcome, actions = host.on_hello(h2, n2, "10.0.0.3")
    with pytest.raises(ProtocolError, match=r"^§6\.4: the host seats 'АВВА' \(seat 2\) and 'ABBA' \(in Latin letters\) "
                                            r"\(seat 3\), names that read the same: names must differ by more than case, "
                                            r"spacing or lookalike letters \(peer ") as info:
        abba.on_reply(renamed(welcome, 1, "\u0410\u0412\u0412\u0410"))
    assert info.value.peer == ids[0].short
    update = next(a.message for a in actions if isinstance(a, SendTo) and a.peer == ids[1].peer_id)
    with pytest.raises(ProtocolError, match=r"^§6\.4: the host seats 'bob' \(seat 2\) and 'b.b' \(in Latin and "
                                            r"Cyrillic letters\) \(seat 3\), names that read the same"):
        bob.on_message(ids[0].peer_id, renamed(update, 2, "b\u043eb"))
    with pytest.raises(ProtocolError, match=r"^§6\.4: the host seats 'c.rol' \(seat 3\), and that name mixes Latin "
                                            r"and Cyrillic letters in one word"):
        bob.on_message(ids[0].peer_id, renamed(update, 2, "c\u0430rol"))
    assert len(bob.roster.members) == 2  # (refused: the roster bob holds is the one before)
    assert not [a for a in bob.on_message(ids[0].peer_id, update) if isinstance(a, Broadcast)]
    abba.on_reply(welcome)
    assert [m.name for m in abba.roster.members] == ["alice", "bob", "ABBA"]


@pytest.mark.parametrize("table,words", [
    ("Fri​day", "holds an invisible or control character (U+200B)"),
    ("Frіday", "mixes Latin and Cyrillic letters in one word"),
    ("Friday ", "is not written plainly"),
])
def test_s6_4_a_guest_refuses_a_roster_whose_table_name_the_host_s_door_would_refuse(
        tmp_path: Path, table: str, words: str) -> None:
    """The table's name follows §6.4's rules as the players' do: a guest refuses a welcome
    whose roster names the table in a way the host's own door would refuse (guests
    checked only the players' names)."""
    ids, host = setup(tmp_path)
    bob, h1, n1 = hello_for(host, ids[1], "bob", N[1])
    welcome, _ = host.on_hello(h1, n1, "10.0.0.2")
    with pytest.raises(ProtocolError, match=rf"^§6\.4: the host names its table {re.escape(repr(table))}, "
                                            rf"and that name {re.escape(words)}") as info:
        bob.on_reply({**welcome, "roster": {**welcome["roster"], "table": table}})
    assert info.value.peer == ids[0].short and bob.roster is None
    bob.on_reply(welcome)
    assert bob.roster is not None and bob.roster.table == host.roster.table
