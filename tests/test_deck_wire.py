"""§8.8: every card message survives msgpack, and no malformed input gets past `from_wire`."""

from __future__ import annotations

from typing import Any

import msgpack
import pytest
from deck_support import peer, table
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p.deck import (
    Beacon,
    BeaconCommit,
    BeaconReveal,
    DeckError,
    KeyShare,
    MalformedMessage,
    SealedShare,
    Share,
    ShuffleChain,
    ShuffleOpening,
    ShuffleStep,
    make_sealed_share,
    make_share,
)


def _samples() -> dict[type, Any]:
    t = table(2, b"wire", cards=6)
    chain = ShuffleChain(t.joint, 1)
    step, opening = chain.make_step(peer(0), t.source)
    chain.receive(peer(0), step)
    step2, _ = chain.make_step(peer(1), t.source)
    chain.receive(peer(1), step2)
    commit, reveal = Beacon.draw(t.game, 1, peer(0), t.source)
    return {
        KeyShare: t.keys[peer(0)].key_share(t.source),
        ShuffleStep: step,
        ShuffleOpening: opening,
        Share: make_share(t.keys[peer(0)], chain.deck(), 2, t.source),
        SealedShare: make_sealed_share(t.keys[peer(0)], chain.deck(), 2, peer(1), t.source),
        BeaconCommit: commit,
        BeaconReveal: reveal,
    }


SAMPLES = _samples()


@pytest.mark.parametrize("cls", list(SAMPLES), ids=lambda c: c.__name__)
def test_8_8_messages_round_trip_through_msgpack(cls: type) -> None:
    msg = SAMPLES[cls]
    packed = msgpack.packb(msg.to_wire(), use_bin_type=True)
    assert cls.from_wire(msgpack.unpackb(packed, raw=False), peer(0)) == msg


wire_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**64), 2**64)
    | st.floats()
    | st.text(max_size=8)
    | st.binary(max_size=70),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8) | st.integers(), inner, max_size=4),
    max_leaves=10,
)


@settings(max_examples=300, deadline=None)
@given(cls=st.sampled_from(list(SAMPLES)), junk=wire_values)
def test_8_8_arbitrary_input_is_refused_with_a_typed_attributed_error(cls: type, junk: Any) -> None:
    try:
        cls.from_wire(junk, peer(1))
    except MalformedMessage as err:
        assert err.peer == peer(1)


@settings(max_examples=400, deadline=None)
@given(cls=st.sampled_from(list(SAMPLES)), data=st.data())
def test_8_8_a_mutated_field_is_refused_or_still_well_formed(cls: type, data: st.DataObject) -> None:
    wire = dict(SAMPLES[cls].to_wire())
    key = data.draw(st.sampled_from(sorted(wire)))
    mutation = data.draw(st.sampled_from(["drop", "replace", "truncate", "extend", "bitflip"]))
    value = wire[key]
    if mutation == "drop":
        del wire[key]
    elif mutation == "replace":
        wire[key] = data.draw(wire_values)
    elif isinstance(value, bytes) and value:
        if mutation == "truncate":
            wire[key] = value[:-1]
        elif mutation == "extend":
            wire[key] = value + b"\x00"
        else:
            i = data.draw(st.integers(0, len(value) - 1))
            wire[key] = value[:i] + bytes([value[i] ^ 0xFF]) + value[i + 1 :]
    elif isinstance(value, list) and value:
        wire[key] = value[:-1] if mutation == "truncate" else value + [len(value)]
    try:
        msg = cls.from_wire(wire, peer(1))
    except DeckError as err:
        assert isinstance(err, MalformedMessage) and err.peer == peer(1)
    else:
        # Well-formed after all (e.g. a flipped byte inside a hash): it round-trips exactly.
        assert msg.to_wire() == wire
