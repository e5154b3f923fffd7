"""The prime-order group of edwards25519, through libsodium (protocol.md §8.1).

Points are 32-byte standard Ed25519 encodings; scalars are 32-byte little-endian integers
reduced modulo the group order L. Everything here works on plain `bytes`, the wire form,
so nothing is converted twice.

Validation rules:
- A point received from anyone must pass `crypto_core_ed25519_is_valid_point`: canonical
  encoding, on the curve, not of small order (so never the identity) and in the
  prime-order subgroup. `check_point` does exactly that.
- libsodium's variable-base multiplication runs the same checks on its input point and
  fails on a bad one; `mul` turns that failure into `InvalidPoint`. A received point that
  is used only as the base of `mul` is therefore validated by the multiplication itself.
- A scalar received from anyone must be below L (`check_scalar`); nothing is reduced
  silently, so every scalar has exactly one encoding.

Zero scalars: libsodium refuses a multiplication whose result is the identity; here a
zero scalar yields the identity (after validating the point), so no input can crash us.
"""

from __future__ import annotations

from typing import Final

from nacl import bindings as sodium
from nacl.exceptions import CryptoError

from .errors import InvalidPoint, MalformedMessage
from .hashing import digest

L: Final = 2**252 + 27742317777372353535851937790883648493
POINT_BYTES: Final = 32
SCALAR_BYTES: Final = 32
IDENTITY: Final = bytes([1]) + bytes(31)
ZERO: Final = bytes(32)
ONE: Final = bytes([1]) + bytes(31)
G: Final = sodium.crypto_scalarmult_ed25519_base_noclamp(ONE)

SECTION: Final = "§8.1"


def is_point(p: bytes) -> bool:
    """True if `p` is a valid encoding of a prime-order group element (never the identity)."""
    return len(p) == POINT_BYTES and bool(sodium.crypto_core_ed25519_is_valid_point(p))


def check_point(p: bytes, what: str) -> bytes:
    """Return `p` if it is a valid group element, else raise `InvalidPoint` naming `what`."""
    if not is_point(p):
        raise InvalidPoint(SECTION, "point", f"{what} is not a valid group element")
    return p


def is_scalar(s: bytes) -> bool:
    """True if `s` is 32 bytes encoding an integer below L (the canonical form)."""
    return len(s) == SCALAR_BYTES and int.from_bytes(s, "little") < L


def check_scalar(s: bytes, what: str) -> bytes:
    """Return `s` if canonical, else raise `MalformedMessage` naming `what`."""
    if not is_scalar(s):
        raise MalformedMessage(SECTION, "scalar", f"{what} is not a canonical scalar below L")
    return s


def reduce64(wide: bytes) -> bytes:
    """A 64-byte little-endian integer reduced modulo L."""
    return sodium.crypto_core_ed25519_scalar_reduce(wide)


def hash_to_scalar(tag: bytes, *fields: bytes) -> bytes:
    """H(tag, fields…) read as a 512-bit little-endian integer, reduced modulo L."""
    return reduce64(digest(tag, *fields))


def hash_to_point(tag: bytes, *fields: bytes) -> bytes:
    """libsodium `from_uniform` (Elligator 2, then cofactor cleared) of the first 32 bytes of H."""
    return sodium.crypto_core_ed25519_from_uniform(digest(tag, *fields)[:32])


def mul_base(s: bytes) -> bytes:
    """s·G (the identity when s is zero)."""
    if s == ZERO:
        return IDENTITY
    return sodium.crypto_scalarmult_ed25519_base_noclamp(s)


def mul(s: bytes, p: bytes) -> bytes:
    """s·P for a received or trusted point P; raises `InvalidPoint` if P is not valid."""
    if s == ZERO:
        check_point(p, "multiplied point")
        return IDENTITY
    try:
        return sodium.crypto_scalarmult_ed25519_noclamp(s, p)
    except CryptoError:
        # With s in [1, L) the result of a prime-order point is never the identity, so the
        # only failure left is the point check libsodium performs.
        raise InvalidPoint(SECTION, "point", "multiplied point is not a valid group element") from None


def add(p: bytes, q: bytes) -> bytes:
    """P + Q for points already known to be valid (or the identity)."""
    return sodium.crypto_core_ed25519_add(p, q)


def sub(p: bytes, q: bytes) -> bytes:
    """P − Q for points already known to be valid (or the identity)."""
    return sodium.crypto_core_ed25519_sub(p, q)


def scalar_add(a: bytes, b: bytes) -> bytes:
    """a + b mod L."""
    return sodium.crypto_core_ed25519_scalar_add(a, b)


def scalar_mul(a: bytes, b: bytes) -> bytes:
    """a · b mod L."""
    return sodium.crypto_core_ed25519_scalar_mul(a, b)
