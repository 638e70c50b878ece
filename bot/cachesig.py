"""Ed25519 signatures for the findings cache's entries, for the runs that hold no secret.

The HMAC of bot.cache needs the secret to verify as well as to seal, and a pull request from a
fork gets no secrets: its run could not trust the warm job's entries. With a key pair the warm
job signs with the private key (a secret only it is given) and any run verifies with the public
key, which is no secret. Imported only where one of the keys is given: `cryptography` is not
paid by a review without them.

A signed entry's first line is `ed25519:` and the signature in hex, over the cache format, the
entry's kind and the payload (as the HMAC is), so an entry of one kind is never read as another.
"""

from __future__ import annotations

import binascii

from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from bot.errors import BotError

PREFIX = b"ed25519:"


def _message(fmt: str, label: str, payload: bytes) -> bytes:
    return f"{fmt}\0{label}\0".encode() + payload


def _raw(text: str) -> bytes | None:
    """32 bytes given as 64 hex digits, else None (a PEM is read by the callers)."""
    try:
        raw = binascii.unhexlify(text.strip())
    except (binascii.Error, ValueError):
        return None
    return raw if len(raw) == 32 else None


def private_key(text: str, variable: str) -> Ed25519PrivateKey:
    """The signing key: a PEM (`openssl genpkey -algorithm ed25519`) or a 32-byte seed in hex."""
    raw = _raw(text)
    try:
        if raw is not None:
            return Ed25519PrivateKey.from_private_bytes(raw)
        key = serialization.load_pem_private_key(text.strip().encode(), password=None)
    except (ValueError, TypeError, UnsupportedAlgorithm):
        key = None
    if not isinstance(key, Ed25519PrivateKey):
        raise BotError(f"{variable} is not an Ed25519 private key (a PEM from `openssl genpkey "
                       "-algorithm ed25519`, or 64 hex digits): docs/cache.md")
    return key


def public_key(text: str, variable: str) -> Ed25519PublicKey:
    """The verifying key: a PEM (`openssl pkey -pubout`) or its 32 bytes in hex."""
    raw = _raw(text)
    try:
        if raw is not None:
            return Ed25519PublicKey.from_public_bytes(raw)
        key = serialization.load_pem_public_key(text.strip().encode())
    except (ValueError, TypeError, UnsupportedAlgorithm):
        key = None
    if not isinstance(key, Ed25519PublicKey):
        raise BotError(f"{variable} is not an Ed25519 public key (a PEM from `openssl pkey "
                       "-pubout`, or 64 hex digits): docs/cache.md")
    return key


def public_hex(key: Ed25519PrivateKey) -> str:
    """The public half of `key`, in the hex form `public_key` reads."""
    return key.public_key().public_bytes(serialization.Encoding.Raw,
                                         serialization.PublicFormat.Raw).hex()


def sign(key: Ed25519PrivateKey, fmt: str, label: str, payload: bytes) -> bytes:
    """`payload` with its signature on a first line: what a signed entry holds on disk."""
    return PREFIX + key.sign(_message(fmt, label, payload)).hex().encode("ascii") + b"\n" + payload


def verify(key: Ed25519PublicKey, fmt: str, label: str, data: bytes) -> bytes | None:
    """The payload of a signed entry, or None when its signature does not verify."""
    head, sep, payload = data.partition(b"\n")
    if not sep or not head.startswith(PREFIX):
        return None
    try:
        key.verify(bytes.fromhex(head[len(PREFIX):].decode("ascii")), _message(fmt, label, payload))
    except (InvalidSignature, ValueError, UnicodeDecodeError):
        return None
    return payload
