"""§3.1, §6: the front door and the lobby under fuzzing. Every step a lobby runner takes
(a hello at the front door, an offer or welcome at the joiner, a roster update, a start,
a roster signature, a lost link) is fed arbitrary and mutated messages: each is taken,
refused politely, or refused with a `ProtocolError` that leaves both lobbies unchanged.
Regression tests for what the fuzzer found come first."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2p.errors import ProtocolError
from p2p.identity import Certificate
from p2p.wire import decode, encode
from tests import fuzz_corpus as corpus
from tests.fuzz_mutate import Codec
from tests.fuzz_strategies import REGISTRY, message_of, mutants
from tests.fuzz_targets import REJECTED, case, make_target

SLOW_OK = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def broken_issuer(der: bytes) -> bytes:
    """`der` with the issuer's name (the first UTF8String) retagged as an EXTERNAL: the
    certificate still loads, but its issuer does not parse."""
    at = der.index(b"\x0c\x0fbandit-lan peer")
    return der[:at] + b"\x08" + der[at + 1 :]


def test_a_certificate_whose_issuer_does_not_parse_is_a_protocol_error() -> None:
    # Found by the fuzzer: the library parses the issuer only when it is read, and the
    # ValueError escaped; at the front door it took the host's whole mesh down.
    der = broken_issuer(corpus.lobby_identities()[1].certificate.der)
    with pytest.raises(ProtocolError) as info:
        Certificate.from_der(der)
    assert info.value.section == "§3.1" and "does not parse" in info.value.reason


def test_a_hello_with_a_certificate_that_does_not_parse_changes_nothing() -> None:
    lob = corpus.lobby_run()
    world = lob.thaw(lob.points[1].state)  # the host waits for the first hello
    hello = {**lob.messages[1], "cert": broken_issuer(lob.messages[1]["cert"])}
    corpus.schemas().check(hello)
    before = world.host.roster
    with pytest.raises(ProtocolError, match="§3.1"):
        world.host.on_hello(hello, corpus.HOST_NONCES[0], "10.0.0.2")
    assert world.host.roster is before and not world.host.started


def forged(sign: dict) -> dict:
    return {**sign, "sig": bytes(64)}


def test_the_host_refuses_a_roster_signature_before_its_start() -> None:
    # Found by the fuzzer: a guest's early lobby.sign was kept unchecked; the hello that
    # filled the table then raised inside the start, blamed the newcomer and left the
    # host half started.
    lob = corpus.lobby_run()
    world = lob.thaw(lob.points[3].state)  # one guest seated, the second hello coming
    sign1, hello2 = lob.messages[9], lob.messages[5]
    with pytest.raises(ProtocolError, match="before the host started"):
        world.host.on_message(lob.identities[1].peer_id, forged(sign1))
    welcome, _ = world.host.on_hello(hello2, corpus.HOST_NONCES[1], "10.0.0.3")
    world.host.on_message(lob.identities[2].peer_id, lob.messages[12])  # both guests hold every link (§6.6)
    world.host.on_message(lob.identities[1].peer_id, lob.messages[13])
    assert welcome["type"] == "lobby.welcome" and world.host.started


def test_a_guest_checks_kept_signatures_before_it_takes_the_start() -> None:
    lob = corpus.lobby_run()
    world = lob.thaw(lob.points[5].state)  # guest 1 awaits the start
    cy = lob.identities[2].peer_id
    world.guest.on_message(cy, forged(lob.messages[10]))  # before the start: kept
    before = lob.freezer.freeze(world)
    with pytest.raises(ProtocolError, match="Cy's roster signature does not verify") as info:
        world.guest.on_message(lob.identities[0].peer_id, lob.messages[8])
    assert info.value.section == "§6.6" and info.value.peer == lob.identities[2].short
    assert lob.freezer.freeze(world) == before


def test_kept_valid_signatures_count_once_the_start_arrives() -> None:
    lob = corpus.lobby_run()
    world = lob.thaw(lob.points[5].state)
    assert world.guest.on_message(lob.identities[2].peer_id, lob.messages[10]) == []
    actions = world.guest.on_message(lob.identities[0].peer_id, lob.messages[8])
    assert [type(a).__name__ for a in actions] == ["Signing", "Broadcast", "Started"]


def test_the_regressions_are_in_the_fuzz_corpus_paths() -> None:
    """The lobby target refuses both attacks without breaking its own checks."""
    lob = corpus.lobby_run()
    target = make_target("lobby")
    early = case(3, corpus.step(corpus.HOST_MESSAGE, 1, forged(lob.messages[9])),
                 corpus.step(corpus.HOST_HELLO, 2, lob.messages[5]))
    kept = case(5, corpus.step(corpus.GUEST_MESSAGE, 2, forged(lob.messages[10])),
                corpus.step(corpus.GUEST_MESSAGE, 0, lob.messages[8]))
    assert target.run(early) is REJECTED and target.run(kept) is REJECTED


LOBBY_SCHEMAS = tuple(m for m in REGISTRY if m.type.startswith("lobby."))


def test_the_recorded_lobby_replays_from_every_saved_point() -> None:
    target = make_target("lobby")
    refused = [seed for seed in target.seeds() if target.run(seed) is REJECTED]
    # at both tables: the refusal of an identity already seated, a start before the roster
    # update that showed the third seat (§6.6), the host leaving, and the host's table no
    # longer answering a guest whose link to it dropped (a seat signing again awaits a
    # lower seat its dial did not reach, §11.3: no refusal)
    assert len(refused) == 8
    assert sorted(decode(decode(seed)[1][0])[2]["type"] for seed in refused) == ["lobby.refuse"] * 2 + ["lobby.start"] * 2 + ["none"] * 4


@settings(SLOW_OK, max_examples=200)
@given(st.data())
def test_mutated_lobby_steps_are_taken_or_refused_cleanly(data: st.DataObject) -> None:
    target = make_target("lobby")
    target.run(data.draw(mutants(target.seeds(), Codec.MSGPACK)))


@settings(SLOW_OK, max_examples=150)
@given(st.data())
def test_schema_built_lobby_messages_to_every_handler_are_taken_or_refused_cleanly(data: st.DataObject) -> None:
    lob = corpus.lobby_run()
    steps = []
    for _ in range(data.draw(st.integers(1, 3))):
        handler = data.draw(st.integers(0, 15))
        message = data.draw(message_of(data.draw(st.sampled_from(LOBBY_SCHEMAS))))
        steps.append(encode([handler, data.draw(st.integers(0, 2)), message]))
    make_target("lobby").run(case(data.draw(st.integers(0, len(lob.points) - 1)), *steps))


def test_s11_3_a_member_leaving_a_seat_that_signs_again_is_refused_with_nothing_changed() -> None:
    """The fuzzer's finding (`--target lobby --seed 2801`): bob's link up, then his link
    ended by a goodbye, to carol signing again (§11.3). It ends her signing, and her
    machine must be as it was: it had forgotten his link first."""
    lob = corpus.lobby_run()
    index = next(i for i, p in enumerate(lob.points) if p.label == "open: a seat signs again")
    target = make_target("lobby")
    assert target.run(case(index, corpus.step(corpus.AGAIN_UP, 1), corpus.step(corpus.AGAIN_LOST, 1))) is REJECTED
