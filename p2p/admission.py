"""Admission proofs for joining a table: the join transcript, signature and table-code proofs (§6.3).

Theory of operation
-------------------
A joiner reaches the host over server-authenticated TLS (the joiner pins the host's peer
id, §4.1) and has no certificate the host could pin yet. It authenticates inside the
channel by signing the *join transcript*::

    T = JOIN_DOMAIN || host_id || joiner_id || host_nonce || joiner_nonce
        || u16(len(table)) || table (UTF-8)

with its identity key. ``host_nonce`` is fresh per connection (sent in the offer) and
``joiner_nonce`` fresh per hello, so a signature is good for this one admission only and
names both ends, which defeats relaying it to another host (§6.7).

When the table has a code, both sides derive ``K = scrypt(code, salt = CODE_DOMAIN ||
host_id || table)`` and exchange ``HMAC-SHA256(K, "joiner\\0" || T)`` (in the hello)
and ``HMAC-SHA256(K, "host\\0" || T)`` (in the welcome). The code never travels.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
import unicodedata

from p2p.identity import Identity

JOIN_DOMAIN = b"bandit-lan/v1/join\x00"
CODE_DOMAIN = b"bandit-lan/v1/table-code\x00"
SCRYPT_N, SCRYPT_R, SCRYPT_P = 1 << 14, 8, 1


def join_transcript(table: str, host_id: bytes, joiner_id: bytes, host_nonce: bytes, joiner_nonce: bytes) -> bytes:
    name = table.encode("utf-8")
    for part in (host_id, joiner_id, host_nonce, joiner_nonce):
        if len(part) != 32:
            raise ValueError("peer ids and nonces are 32 bytes")
    return JOIN_DOMAIN + host_id + joiner_id + host_nonce + joiner_nonce + struct.pack(">H", len(name)) + name


def normalize_code(code: str) -> bytes:
    """Codes compare after Unicode NFKC and trimming surrounding spaces."""
    return unicodedata.normalize("NFKC", code).strip().encode("utf-8")


def code_key(code: str, host_id: bytes, table: str) -> bytes:
    """K: the table code stretched with scrypt, salted by host and table (§6.3)."""
    return hashlib.scrypt(
        normalize_code(code), salt=CODE_DOMAIN + host_id + table.encode("utf-8"),
        n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P, maxmem=64 * 1024 * 1024, dklen=32,
    )


def joiner_proof(key: bytes, transcript: bytes) -> bytes:
    return hmac.new(key, b"joiner\x00" + transcript, hashlib.sha256).digest()


def host_proof(key: bytes, transcript: bytes) -> bytes:
    return hmac.new(key, b"host\x00" + transcript, hashlib.sha256).digest()


def sign_join(identity: Identity, transcript: bytes) -> bytes:
    return identity.sign(transcript)
