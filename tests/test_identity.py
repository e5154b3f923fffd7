"""§3: identity files, certificates, peer ids and their short form."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p.errors import ProtocolError
from p2p.identity import (
    CERT_FILE, KEY_FILE, Certificate, IdentityError, fingerprint_matches, load_or_create_identity, parse_fingerprint,
    peer_id_of, short_id,
)


def test_identity_is_created_once_with_a_private_key_file(tmp_path: Path) -> None:
    old = os.umask(0)  # even a permissive umask must not widen the key file
    try:
        first = load_or_create_identity(tmp_path / "state")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "state" / KEY_FILE).stat().st_mode) == 0o600
    again = load_or_create_identity(tmp_path / "state")
    assert again.peer_id == first.peer_id == peer_id_of(first.certificate.der)
    assert len(first.peer_id) == 32


def test_certificate_is_self_signed_ed25519_end_entity_with_fixed_validity(tmp_path: Path) -> None:
    ident = load_or_create_identity(tmp_path)
    cert = x509.load_der_x509_certificate(ident.certificate.der)
    assert cert.extensions.get_extension_for_class(x509.BasicConstraints).value.ca is False
    assert cert.not_valid_after_utc.year == 9999 and cert.not_valid_before_utc.year == 2000
    assert ident.certificate.verify(ident.sign(b"data"), b"data")
    assert not ident.certificate.verify(ident.sign(b"data"), b"other")


def test_short_form_and_fingerprint_parsing(tmp_path: Path) -> None:
    ident = load_or_create_identity(tmp_path)
    short = short_id(ident.peer_id)
    assert len(short) == 19 and short.count("-") == 3 and short == ident.short
    assert parse_fingerprint(ident.peer_id.hex()) == ident.peer_id
    assert parse_fingerprint(short.lower().replace("-", "")) == short
    assert fingerprint_matches(ident.peer_id, short) and fingerprint_matches(ident.peer_id, ident.peer_id)
    with pytest.raises(ValueError):
        parse_fingerprint("not-a-fingerprint")


def test_received_certificates_are_checked(tmp_path: Path) -> None:
    with pytest.raises(ProtocolError, match="does not parse"):
        Certificate.from_der(b"\x30\x03junk")
    ident = load_or_create_identity(tmp_path)
    tampered = bytearray(ident.certificate.der)
    tampered[-1] ^= 1
    with pytest.raises(ProtocolError, match="self-signature"):
        Certificate.from_der(bytes(tampered))
    with pytest.raises(ProtocolError, match="certificate of 0 bytes"):
        Certificate.from_der(b"")


def test_a_certificate_of_another_key_is_an_error_not_a_silent_replacement(tmp_path: Path) -> None:
    a = load_or_create_identity(tmp_path / "a")
    load_or_create_identity(tmp_path / "b")
    (tmp_path / "b" / CERT_FILE).write_bytes((tmp_path / "a" / CERT_FILE).read_bytes())
    with pytest.raises(IdentityError, match="does not belong"):
        load_or_create_identity(tmp_path / "b")
    (tmp_path / "a" / KEY_FILE).write_bytes(b"garbage")
    with pytest.raises(IdentityError, match="cannot read"):
        load_or_create_identity(tmp_path / "a")
    assert a.peer_id  # the first identity object is unaffected


def test_a_state_folder_that_cannot_hold_an_identity_is_a_clear_error_not_a_crash(tmp_path: Path) -> None:
    """A file where the folder should be, or a folder nobody may write: `IdentityError`
    saying where and why (every command prints it and exits 1), never an `OSError`."""
    (tmp_path / "file").write_text("not a folder")
    with pytest.raises(IdentityError, match="file: it is a file, not a folder"):
        load_or_create_identity(tmp_path / "file")
    with pytest.raises(IdentityError, match=f"cannot keep this player's identity in {tmp_path / 'file' / 'sub'}: "):
        load_or_create_identity(tmp_path / "file" / "sub")
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    if os.access(locked, os.W_OK):
        return  # (the superuser may write anywhere: the last case cannot be made here)
    with pytest.raises(IdentityError, match="Permission denied"):
        load_or_create_identity(locked)


def test_a_key_without_certificate_gets_one(tmp_path: Path) -> None:
    key = Ed25519PrivateKey.generate()
    tmp_path.mkdir(exist_ok=True)
    (tmp_path / KEY_FILE).write_bytes(key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    ident = load_or_create_identity(tmp_path)
    assert ident.certificate.public_key == key.public_key().public_bytes(
        serialization.Encoding.Raw, serialization.PublicFormat.Raw)
