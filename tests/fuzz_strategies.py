"""Hypothesis strategies for the fuzz property tests: messages built from the real
schemas (every value the schema allows, boundaries included), and mutants of valid
inputs made by `tests.fuzz_mutate` with hypothesis' own random (so failures shrink)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hypothesis import strategies as st

from p2p import lobby, order, transport
from p2p.schema import Bin, Bool, Int, Kind, ListOf, Message, OneOf, Optional, Record, Str, Tuple
from p2p.table import MESSAGES as TABLE_MESSAGES
from tests.fuzz_mutate import Codec, Pool, mutate

REGISTRY: tuple[Message, ...] = (*transport.MESSAGES, *lobby.MESSAGES, *order.MESSAGES, *TABLE_MESSAGES)
"""Every message a table's mesh carries (what `p2p.peer.table_schemas` registers)."""

SIGNED = tuple(m for m in REGISTRY if "from" in m.fields)
"""The §7 and §9 messages: they travel signed, inside ``signed`` frames."""

MAX_ITEMS = 6  # long lists and big bins add cost, not new paths
MAX_BIN = 80


def value_of(kind: Kind) -> st.SearchStrategy[Any]:
    """Any value `kind` accepts."""
    if isinstance(kind, Int):
        return st.integers(kind.min, kind.max)
    if isinstance(kind, Bool):
        return st.booleans()
    if isinstance(kind, OneOf):
        return st.sampled_from(sorted(kind.choices))
    if isinstance(kind, Str):
        alphabet = st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp", "Cf", "Co", "Cn")) if kind.printable else st.characters(blacklist_categories=("Cs",))
        text = st.text(alphabet, min_size=kind.min_len, max_size=min(kind.max_len, kind.min_len + 12))
        return text.filter(lambda s: kind.min_len <= len(s) <= kind.max_len and (not kind.printable or s.isprintable()))
    if isinstance(kind, Bin):
        if kind.size is not None:
            return st.binary(min_size=kind.size, max_size=kind.size)
        return st.binary(min_size=kind.min_len, max_size=max(kind.min_len, min(kind.max_len, MAX_BIN)))
    if isinstance(kind, ListOf):
        return st.lists(value_of(kind.item), min_size=kind.min_len, max_size=max(kind.min_len, min(kind.max_len, MAX_ITEMS)))
    if isinstance(kind, Tuple):
        return st.tuples(*map(value_of, kind.items)).map(list)
    if isinstance(kind, Record):
        return fields_of(kind.fields)
    if isinstance(kind, Optional):
        return value_of(kind.kind)
    raise TypeError(f"no strategy for {kind!r}")


def fields_of(fields: dict[str, Kind] | Any) -> st.SearchStrategy[dict[str, Any]]:
    required = {k: value_of(v) for k, v in fields.items() if not isinstance(v, Optional)}
    optional = {k: value_of(v) for k, v in fields.items() if isinstance(v, Optional)}
    return st.fixed_dictionaries(required, optional=optional)


def message_of(message: Message, **fixed: Any) -> st.SearchStrategy[dict[str, Any]]:
    """A frame of `message`'s type that its schema accepts; `fixed` pins some fields
    (say ``from`` and ``game``, so the message gets past the envelope and the header)."""
    fields = {k: v for k, v in message.fields.items() if k not in fixed}
    return fields_of(fields).map(lambda body: {"type": message.type, "v": message.v, **body, **fixed})


def mutants(seeds: Sequence[bytes], codec: Codec) -> st.SearchStrategy[bytes]:
    """Structure-aware and byte-level mutants of `seeds`."""
    pool = Pool.of(seeds, codec)
    return st.tuples(st.sampled_from(list(seeds)), st.randoms(use_true_random=False)).map(
        lambda pair: mutate(pair[0], codec, pair[1], pool)
    )
