"""DKIM signatures (RFC 6376) on the moderator's outgoing mail, for operators whose
relay does not sign.

Receivers judge a sender's domain by SPF, DKIM and DMARC (deploy/OPERATIONS.md): a
moderator whose mails carry no valid signature of its domain ends up in spam folders,
or is refused where the domain publishes `p=reject`. Signing is dkimpy's, a maintained
implementation of the RFC's canonicalisation and hashing (getting relaxed header
canonicalisation exactly right by hand is where home-made signers fail). The signature
is made once when a mail is queued, so a retry sends the same bytes.

`DkimSigner.load` reads and checks the key at start, so a wrong key file stops the
start with a clear message instead of failing every mail.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import dkim

__all__ = ["SIGNED_HEADERS", "DkimError", "DkimSigner"]

#: What the signature covers: every header a reader sees or a filter judges by.
#: Headers a mail does not carry are signed as absent (so none can be added later).
SIGNED_HEADERS = (b"from", b"to", b"subject", b"date", b"message-id", b"reply-to",
                  b"in-reply-to", b"references", b"list-id", b"list-unsubscribe",
                  b"auto-submitted", b"mime-version", b"content-type")


class DkimError(ValueError):
    """A DKIM key or setting that cannot sign; the message says what to fix."""


@dataclass(frozen=True, slots=True)
class DkimSigner:
    """Signs mail as DOMAIN with the key published under SELECTOR._domainkey.DOMAIN."""

    selector: str
    domain: str
    # PEM, RSA (2048 bits or more) or Ed25519 (raw, base64); never in a repr or a log.
    private_key: bytes = field(repr=False)

    @classmethod
    def load(cls, selector: str, domain: str, key_file: Path) -> DkimSigner:
        """The signer for KEY_FILE, checked by signing a small mail once."""
        try:
            key = key_file.read_bytes()
        except OSError as error:
            raise DkimError(f"DKIM key file {key_file}: {error.strerror or error}") from None
        signer = cls(selector.strip(), domain.strip().lower().rstrip("."), key)
        if not signer.selector or not signer.domain:
            raise DkimError("DKIM needs a selector and a domain")
        try:
            signer.sign(b"From: <check@" + signer.domain.encode("idna") +
                        b">\r\nSubject: check\r\n\r\ncheck\r\n")
        except DkimError as error:
            raise DkimError(f"DKIM key file {key_file}: {error}") from None
        return signer

    def sign(self, raw: bytes) -> bytes:
        """RAW with a DKIM-Signature header in front (relaxed/relaxed, rsa-sha256 or
        ed25519-sha256 by the key)."""
        algorithm = b"rsa-sha256" if b"-----BEGIN" in self.private_key else b"ed25519-sha256"
        try:
            header = dkim.sign(raw, self.selector.encode("ascii"),
                               self.domain.encode("idna"), self.private_key,
                               canonicalize=(b"relaxed", b"relaxed"),
                               include_headers=list(SIGNED_HEADERS),
                               signature_algorithm=algorithm, linesep=b"\r\n")
        except (dkim.DKIMException, ValueError, UnicodeError) as error:
            raise DkimError(str(error) or type(error).__name__) from None
        return bytes(header) + raw
