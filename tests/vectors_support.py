"""Fixed identities for protocol.md's test vectors, and a reader for its vector blocks."""

from __future__ import annotations

import re
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p.identity import CERT_FILE, KEY_FILE, Certificate, Identity, load_or_create_identity, make_certificate

ROOT = Path(__file__).resolve().parent.parent


def fixed_identity(seed_byte: int, state_dir: Path) -> Identity:
    """The identity whose Ed25519 seed is 32 × `seed_byte`, certificate serial `seed_byte`."""
    key = Ed25519PrivateKey.from_private_bytes(bytes([seed_byte]) * 32)
    state_dir.mkdir(parents=True, exist_ok=True)
    (state_dir / KEY_FILE).write_bytes(key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    (state_dir / CERT_FILE).write_text(Certificate.from_der(make_certificate(key, serial=seed_byte)).pem)
    return load_or_create_identity(state_dir)


def protocol_vectors() -> dict[str, dict[str, str]]:
    """Every ```vector NAME block of protocol.md as {name: {field: value}}; values of
    several lines (long hex) are joined."""
    text = (ROOT / "protocol.md").read_text(encoding="utf-8")
    out: dict[str, dict[str, str]] = {}
    for name, block in re.findall(r"```vector ([\w.-]+)\n(.*?)```", text, re.S):
        fields: dict[str, str] = {}
        last = None
        for line in block.splitlines():
            if not line.strip():
                continue
            if line.startswith(" ") and last is not None:
                fields[last] += line.strip()
                continue
            key, _, value = line.partition(" ")
            fields[key] = value.strip()
            last = key
        out[name] = fields
    return out
