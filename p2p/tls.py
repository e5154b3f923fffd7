"""TLS 1.3 contexts for pinned, self-signed peers (§4.1).

Theory of operation
-------------------
Python's ssl module has no certificate-verify callback, so pinning works through the
trust store: a context trusts exactly the pinned certificates (loaded as ``cadata``) and
nothing else. OpenSSL accepts a self-signed end-entity certificate that is itself in the
store as its own anchor; every identity certificate is ``CA:FALSE``, so a pinned peer
cannot vouch for any other certificate. After every handshake the peer id of the
presented certificate is compared with the expected one anyway (`check_peer`).

* Listener (`server_context`): presents our certificate and asks for the client's
  (``CERT_OPTIONAL``). A client without a certificate is a lobby joiner (§6.2); a client
  with a certificate must present a pinned one or the handshake fails.
* Mesh dialer (`mesh_client_context`): presents our certificate, trusts exactly the
  roster certificate of the peer it dials.
* Lobby dialer (`front_door_context`): presents no certificate and trusts none: a joiner
  may know only the host's fingerprint (from DNS-SD or the command line), not its
  certificate. TLS 1.3 still proves the server holds the key of the certificate it
  presented (CertificateVerify), and `check_peer` then pins that certificate's peer id
  before a single application byte is sent.

All contexts: TLS 1.3 only, ALPN ``bandit-lan/1``, no hostname check, no session
tickets (every link is a fresh, fully authenticated handshake).
"""

from __future__ import annotations

import ssl
from collections.abc import Iterable
from typing import Any, Protocol

import trio

from p2p.errors import FingerprintMismatch, ProtocolError, said_of
from p2p.identity import Certificate, Identity, fingerprint_matches, short_id

ALPN = "bandit-lan/1"


def _base(purpose: int) -> ssl.SSLContext:
    ctx = ssl.SSLContext(purpose)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_3
    ctx.maximum_version = ssl.TLSVersion.TLSv1_3
    ctx.set_alpn_protocols([ALPN])
    return ctx


def server_context(identity: Identity, pinned: Iterable[Certificate]) -> ssl.SSLContext:
    """Listener context: our certificate; client certificates optional but pinned."""
    ctx = _base(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(identity.cert_path, identity.key_path)
    ctx.num_tickets = 0
    ctx.verify_mode = ssl.CERT_OPTIONAL
    ders = b"".join(cert.der for cert in pinned)
    if ders:
        ctx.load_verify_locations(cadata=ders)
    return ctx


def mesh_client_context(identity: Identity, expected: Certificate) -> ssl.SSLContext:
    """Mesh dialer context: our certificate; trust exactly `expected`."""
    ctx = _base(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_REQUIRED
    ctx.load_cert_chain(identity.cert_path, identity.key_path)
    ctx.load_verify_locations(cadata=expected.der)
    return ctx


def front_door_context() -> ssl.SSLContext:
    """Lobby dialer context: no client certificate; the server is pinned by `check_peer`."""
    ctx = _base(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    return ctx


class Handshaken(Protocol):
    """A TLS stream after its handshake (`p2p.tlsstream.TlsStream`, or `trio.SSLStream`)."""

    def getpeercert(self, binary_form: bool = ...) -> Any: ...

    def selected_alpn_protocol(self) -> str | None: ...


def presented(stream: Handshaken) -> Certificate | None:
    """The certificate the other end presented in a completed handshake, checked (§3.1)."""
    der = stream.getpeercert(binary_form=True)
    if der is None:
        return None
    return Certificate.from_der(der)


def check_peer(stream: Handshaken, expected: bytes | str | None) -> Certificate:
    """The presented certificate, refused unless its peer id matches `expected` (a full
    peer id or a short form; None accepts any well-formed certificate: first use)."""
    # (a mesh dial, `Mesh._connect`, relies on this ALPN check; the front door's dial checks
    # ALPN itself first, so that a server of another protocol is an address where no table
    # answered and the next address is tried, not an error that ends the join)
    if stream.selected_alpn_protocol() != ALPN:
        raise ProtocolError("§4.1", f"peer does not speak {ALPN} (ALPN {stream.selected_alpn_protocol()!r})")
    cert = presented(stream)
    wanted = None if expected is None else (short_id(expected) if isinstance(expected, bytes) else expected)
    if cert is None:
        raise FingerprintMismatch(wanted or "a certificate", None)
    if expected is not None and not fingerprint_matches(cert.peer_id, expected):
        raise FingerprintMismatch(wanted or "", cert.short)
    return cert


def describe_tls_failure(exc: BaseException) -> str:
    """A readable cause for a failed handshake (OpenSSL's words, without the noise)."""
    if isinstance(exc, ssl.SSLCertVerificationError):
        return f"certificate not pinned ({exc.verify_message})"
    if isinstance(exc, ssl.SSLError):
        return exc.reason.replace("_", " ").lower() if exc.reason else str(exc)
    if isinstance(exc, trio.BrokenResourceError) and exc.__cause__ is not None:
        return describe_tls_failure(exc.__cause__)
    if isinstance(exc, trio.TooSlowError):
        return "timed out"  # (nothing listening answered, or a connection accepted, then silence)
    return said_of(exc)
