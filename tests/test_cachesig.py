"""Ed25519 signatures of the cache's entries: keys as given, what verifies and what does not."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from bot import cachesig
from bot.errors import BotError


def test_a_signed_payload_verifies_with_the_public_key_only() -> None:
    key = Ed25519PrivateKey.generate()
    public = cachesig.public_key(cachesig.public_hex(key), "V")
    sealed = cachesig.sign(key, "v3", "pack", b"payload")
    assert sealed.startswith(cachesig.PREFIX)
    assert cachesig.verify(public, "v3", "pack", sealed) == b"payload"
    other = Ed25519PrivateKey.generate()
    for forged in (cachesig.sign(other, "v3", "pack", b"payload"),  # another key's
                   sealed.replace(b"payload", b"pAyload"),  # bytes changed
                   b"payload", b"ed25519:zz\npayload", b""):
        assert cachesig.verify(public, "v3", "pack", forged) is None
    # The format and the kind are signed: an entry of one kind is not read as another.
    assert cachesig.verify(public, "v3", "findings", sealed) is None
    assert cachesig.verify(public, "v4", "pack", sealed) is None


def test_keys_read_as_openssl_writes_them_and_as_hex(tmp_path: Path) -> None:
    pem = tmp_path / "key.pem"
    subprocess.run(["openssl", "genpkey", "-algorithm", "ed25519", "-out", str(pem)], check=True)
    public_pem = subprocess.run(["openssl", "pkey", "-in", str(pem), "-pubout"], check=True,
                                capture_output=True, text=True).stdout
    key = cachesig.private_key(pem.read_text(), "S")
    public = cachesig.public_key(public_pem, "P")
    assert cachesig.public_key(cachesig.public_hex(key), "P") == public
    seed = Ed25519PrivateKey.generate().private_bytes_raw().hex()
    assert cachesig.private_key(seed, "S").private_bytes_raw().hex() == seed


@pytest.mark.parametrize("text", ["", "not a key", "00" * 31, "-----BEGIN PUBLIC KEY-----\nxx\n"])
def test_a_key_that_does_not_read_is_one_line_naming_its_variable(text: str) -> None:
    with pytest.raises(BotError) as private:
        cachesig.private_key(text, "REVIEWBOT_CACHE_SIGNING_SECRET")
    with pytest.raises(BotError) as public:
        cachesig.public_key(text, "REVIEWBOT_CACHE_PUBLIC_KEY")
    for error, name in ((private, "REVIEWBOT_CACHE_SIGNING_SECRET"),
                        (public, "REVIEWBOT_CACHE_PUBLIC_KEY")):
        assert str(error.value).startswith(f"{name} is not an Ed25519 ")
        assert "\n" not in str(error.value)
