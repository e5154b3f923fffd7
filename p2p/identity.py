"""Identity: a peer's Ed25519 key, its self-signed certificate and its peer id (§3).

Theory of operation
-------------------
Each user has one long-lived Ed25519 key. A self-signed X.509 certificate wraps its
public half; the certificate is what TLS presents (§4.1) and the SHA-256 of its DER
encoding is the *peer id* (32 bytes), the one name other peers pin. The same key signs
every message (§4.5) and the final roster (§6.6), so a fairness log can be audited
later without any TLS session.

Humans compare the *short form*: the first 10 bytes of the peer id in base32, in four
groups of four (``ABCD-EFGH-IJKL-MNOP``, 80 bits).

On disk the key lives in ``identity.key`` (PKCS#8 PEM, created with mode 0600 in one
step, never widened) and the certificate in ``identity.crt`` (PEM), in the state
directory: platformdirs' user data directory for ``bandit-lan`` unless overridden.
"""

from __future__ import annotations

import base64
import hashlib
import os
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.x509.oid import NameOID
from nacl.bindings import crypto_sign, crypto_sign_open
from nacl.exceptions import BadSignatureError
from platformdirs import user_data_dir

from p2p.errors import ProtocolError

PEER_ID_SIZE = 32
KEY_FILE = "identity.key"
CERT_FILE = "identity.crt"
MAX_CERT_SIZE = 4096
# Fixed validity: machines at a LAN party disagree about the time; a certificate must
# never be "not yet valid" or expire. 9999-12-31 is RFC 5280's "no expiry" date.
NOT_BEFORE = datetime(2000, 1, 1, tzinfo=timezone.utc)
NOT_AFTER = datetime(9999, 12, 31, 23, 59, 59, tzinfo=timezone.utc)
COMMON_NAME = "bandit-lan peer"


def peer_id_of(cert_der: bytes) -> bytes:
    """The peer id of a certificate: SHA-256 of its DER encoding (§3.2)."""
    return hashlib.sha256(cert_der).digest()


def short_id(peer_id: bytes) -> str:
    """Human form of a peer id: first 10 bytes, base32, four groups of four (§3.2)."""
    text = base64.b32encode(peer_id[:10]).decode("ascii")
    return "-".join(text[i : i + 4] for i in range(0, 16, 4))


def verify_signature(public_key: bytes, sig: bytes, data: bytes) -> bool:
    """Ed25519 verification (RFC 8032, with libsodium's checks: canonical S, no
    small-order key or R). One verifier for every signature in the protocol."""
    if len(sig) != 64 or len(public_key) != 32:
        return False
    try:
        crypto_sign_open(sig + data, public_key)
    except (BadSignatureError, ValueError):
        return False
    return True


def _raw_public(key: Ed25519PublicKey) -> bytes:
    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def parse_fingerprint(text: str) -> bytes | str:
    """A fingerprint typed by a user: full hex gives the peer id (bytes); a short form
    (with or without dashes, any case) gives its canonical short string."""
    cleaned = text.strip().replace("-", "").replace(" ", "").replace(":", "")
    if len(cleaned) == 2 * PEER_ID_SIZE:
        try:
            return bytes.fromhex(cleaned)
        except ValueError:
            pass
    upper = cleaned.upper()
    if len(upper) == 16:
        try:
            base64.b32decode(upper)
        except ValueError:
            raise ValueError(f"not a fingerprint: {text!r}") from None
        return "-".join(upper[i : i + 4] for i in range(0, 16, 4))
    raise ValueError(f"not a fingerprint: {text!r} (expected 64 hex digits or a short form like ABCD-EFGH-IJKL-MNOP)")


def fingerprint_matches(peer_id: bytes, wanted: bytes | str) -> bool:
    """Whether `peer_id` is the one named by `wanted` (a full id or a short form)."""
    if isinstance(wanted, bytes):
        return peer_id == wanted
    return short_id(peer_id) == wanted


class CertificateRefused(ProtocolError):
    """A certificate that parses, but does not hold as §3.1 asks (its key, its
    self-signature, its constraints): unlike bytes that do not parse, what it is, not
    damage."""

    def __init__(self, reason: str) -> None:
        super().__init__("§3.1", reason)


@dataclass(frozen=True)
class Certificate:
    """A peer's self-signed certificate, checked on construction (§3.1)."""

    der: bytes
    public_key: bytes = field(repr=False, compare=False)  # raw Ed25519, 32 bytes
    peer_id: bytes = field(compare=False)

    @classmethod
    def from_der(cls, der: bytes) -> Certificate:
        """Parse and check a certificate received from a peer: DER, Ed25519 key,
        self-signed (issuer = subject, signature valid under its own key), not a CA."""
        if not 0 < len(der) <= MAX_CERT_SIZE:
            raise ProtocolError("§3.1", f"certificate of {len(der)} bytes (limit {MAX_CERT_SIZE})")
        try:
            # the library parses some parts only when they are read: read them all here
            cert = x509.load_der_x509_certificate(der)
            key = cert.public_key()
            issuer, subject = cert.issuer, cert.subject
            signature, signed_part = cert.signature, cert.tbs_certificate_bytes
        except Exception as exc:  # any parse failure is bad input, never a crash
            raise ProtocolError("§3.1", f"certificate does not parse as X.509 DER: {exc}") from None
        if not isinstance(key, Ed25519PublicKey):
            raise CertificateRefused(f"certificate key is {type(key).__name__}, expected Ed25519")
        if issuer != subject:
            raise CertificateRefused("certificate is not self-signed (issuer differs from subject)")
        try:
            key.verify(signature, signed_part)
        except InvalidSignature:
            raise CertificateRefused("certificate self-signature does not verify") from None
        try:
            basic = cert.extensions.get_extension_for_class(x509.BasicConstraints).value
        except x509.ExtensionNotFound:
            basic = None
        except Exception as exc:
            raise ProtocolError("§3.1", f"certificate extensions do not parse: {exc}") from None
        if basic is None or basic.ca:
            raise CertificateRefused("certificate must carry basicConstraints CA:FALSE")
        return cls(der=der, public_key=_raw_public(key), peer_id=peer_id_of(der))

    def verify(self, sig: bytes, data: bytes) -> bool:
        """Whether `sig` is this certificate's key's signature over `data`."""
        return verify_signature(self.public_key, sig, data)

    @property
    def short(self) -> str:
        return short_id(self.peer_id)

    @property
    def pem(self) -> str:
        body = base64.encodebytes(self.der).decode("ascii")
        return f"-----BEGIN CERTIFICATE-----\n{body}-----END CERTIFICATE-----\n"


@dataclass(frozen=True)
class Identity:
    """This peer's key and certificate, with the files TLS loads them from."""

    key: Ed25519PrivateKey = field(repr=False)
    certificate: Certificate
    key_path: Path
    cert_path: Path
    _secret: bytes = field(repr=False, compare=False, default=b"")  # libsodium form: seed || public

    @property
    def peer_id(self) -> bytes:
        return self.certificate.peer_id

    @property
    def short(self) -> str:
        return self.certificate.short

    def sign(self, data: bytes) -> bytes:
        """Ed25519 signature (64 bytes) over `data`; callers prepend their domain tag."""
        return crypto_sign(data, self._secret)[:64]


def default_state_dir() -> Path:
    """Where keys and logs live unless `--state-dir` says otherwise."""
    return Path(user_data_dir("bandit-lan", appauthor=False))


def make_certificate(key: Ed25519PrivateKey, serial: int | None = None) -> bytes:
    """A self-signed end-entity certificate (DER) for `key` (§3.1); the serial number
    is random unless given (Ed25519 is deterministic, so key + serial fix the bytes)."""
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, COMMON_NAME)])
    public = key.public_key()
    ski = x509.SubjectKeyIdentifier.from_public_key(public)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(public)
        .serial_number(serial if serial is not None else x509.random_serial_number())
        .not_valid_before(NOT_BEFORE)
        .not_valid_after(NOT_AFTER)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True, content_commitment=False, key_encipherment=False,
                data_encipherment=False, key_agreement=False, key_cert_sign=False,
                crl_sign=False, encipher_only=False, decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(ski, critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_subject_key_identifier(ski), critical=False)
        .sign(key, None)
    )
    return cert.public_bytes(serialization.Encoding.DER)


class IdentityError(Exception):
    """The identity files exist but cannot be used (unreadable, corrupt, mismatched)."""


def _write_new(path: Path, data: bytes, mode: int) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())


def load_or_create_identity(state_dir: Path) -> Identity:
    """This user's identity from `state_dir`, made on first use (key file mode 0600).

    A folder that cannot hold it (a file in its place, no permission, a full disk) is an
    `IdentityError` that says where and why."""
    problem = f"cannot keep this player's identity in {state_dir}"
    if state_dir.exists() and not state_dir.is_dir():
        raise IdentityError(f"{problem}: it is a file, not a folder")
    try:
        return _load_or_create(state_dir)
    except OSError as exc:
        where = "" if exc.filename in (None, str(state_dir)) else f"{exc.filename}: "
        raise IdentityError(f"{problem}: {where}{exc.strerror or exc}") from None


def _load_or_create(state_dir: Path) -> Identity:
    state_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    key_path, cert_path = state_dir / KEY_FILE, state_dir / CERT_FILE
    if not key_path.exists():
        key = Ed25519PrivateKey.generate()
        pem = key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        _write_new(key_path, pem, 0o600)
        if cert_path.exists():
            cert_path.unlink()
    try:
        key = serialization.load_pem_private_key(key_path.read_bytes(), password=None)
    except Exception as exc:
        raise IdentityError(f"cannot read the identity key {key_path}: {exc}") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise IdentityError(f"{key_path} holds a {type(key).__name__}, not an Ed25519 key")
    if not cert_path.exists():
        der = make_certificate(key)
        tmp = cert_path.with_suffix(".crt.tmp")
        tmp.unlink(missing_ok=True)
        _write_new(tmp, Certificate.from_der(der).pem.encode("ascii"), 0o644)
        os.replace(tmp, cert_path)
    try:
        cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
        certificate = Certificate.from_der(cert.public_bytes(serialization.Encoding.DER))
    except (ProtocolError, ValueError) as exc:
        raise IdentityError(f"cannot use the certificate {cert_path}: {exc}") from None
    own = _raw_public(key.public_key())
    if own != certificate.public_key:
        raise IdentityError(f"{cert_path} does not belong to the key in {key_path}")
    seed = key.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption())
    return Identity(key=key, certificate=certificate, key_path=key_path, cert_path=cert_path, _secret=seed + own)
