"""§4 under fuzzing: what a link delivers, from bytes up to a verified message. Frames
built from every real schema are accepted; the same frames with fields deleted,
retyped, resized or bit-flipped, arbitrary byte streams and mutated real traffic give a
frame or a `ProtocolError` naming its section, and a decoder that saw bad input stays
broken (tests/test_transport_frames.py covers the decoder by example)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2p.schema import Message
from p2p.signing import SIGNED_DOMAIN, signed_frame
from p2p.wire import FrameDecoder, encode, encode_frame
from tests import fuzz_corpus as corpus
from tests.fuzz_mutate import Codec
from tests.fuzz_strategies import REGISTRY, SIGNED, message_of, mutants
from tests.fuzz_targets import ACCEPTED, REJECTED, link_seeds, run_link

SLOW_OK = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def test_the_registry_is_every_message_of_a_tables_mesh() -> None:
    assert {(m.type, m.v) for m in REGISTRY} == {(t, 1) for t in corpus.schemas().types()}


@pytest.mark.parametrize("message", REGISTRY, ids=lambda m: m.type)
@settings(SLOW_OK, max_examples=12)
@given(data=st.data())
def test_every_schema_accepts_every_frame_it_describes(message: Message, data: st.DataObject) -> None:
    frame = data.draw(message_of(message))
    decoder = FrameDecoder()
    decoder.feed(encode_frame(frame))
    received = decoder.next_frame()
    assert received == frame and corpus.schemas().check(received) is received


def sealed(frame: dict) -> bytes:
    """A §7/§9 message as a seat sends it: inside a signed frame, signed by that seat."""
    g = corpus.game()
    body = encode(frame)
    return encode_frame(signed_frame(body, g.identities[1].sign(SIGNED_DOMAIN + body)))


@st.composite
def link_bytes(draw: st.DrawFn) -> bytes:
    message = draw(st.sampled_from(REGISTRY))
    if message in SIGNED:
        frame = draw(message_of(message, **{"from": corpus.game().seats[1]}))
        return sealed(frame)
    return encode_frame(draw(message_of(message)))


@settings(SLOW_OK, max_examples=150)
@given(st.data())
def test_schema_built_frames_mutated_are_accepted_or_refused_typed(data: st.DataObject) -> None:
    stream = data.draw(link_bytes())
    assert run_link(stream) in (ACCEPTED, REJECTED)  # anything else raised
    assert run_link(data.draw(mutants([stream], Codec.FRAMES))) in (ACCEPTED, REJECTED)


@settings(SLOW_OK, max_examples=200)
@given(st.data())
def test_mutated_real_traffic_is_accepted_or_refused_typed(data: st.DataObject) -> None:
    run_link(data.draw(mutants(link_seeds(), Codec.FRAMES)))


@settings(SLOW_OK, max_examples=150)
@given(st.binary(max_size=300))
def test_arbitrary_link_bytes_are_refused_typed(stream: bytes) -> None:
    run_link(stream)


def test_real_traffic_is_accepted() -> None:
    frames = corpus.link_frames()
    assert all(run_link(f) is ACCEPTED for f in frames)
    assert run_link(b"".join(frames)) is ACCEPTED
    assert run_link(frames[0][:-1]) is REJECTED  # cut short
