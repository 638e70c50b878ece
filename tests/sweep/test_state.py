"""The tracking issue's hidden state: what is written is read back, whatever the messages say,
and a marker that was tampered with or belongs to another branch reads as no state."""

from __future__ import annotations

import base64
import hashlib
import zlib

import pytest

from bot.sweep import state
from bot.sweep.state import Regression, State

SHA = "a" * 40
ONE = Regression("fp1", "ruff", "F401", "error", "`os` imported but unused --> <b>@x</b>", "a.py",
                 3, 3, 8, 10, "b" * 40, "bob", 11, "bob-gh", ("@octo/core",), "c" * 40)
UNATTRIBUTED = Regression("fp2", "mypy", "", "warning", "line\nbreak", "pkg/m.py", 1, 2, 1, 1,
                          None)


@pytest.mark.parametrize("value", [
    State(SHA),
    State(SHA, {"ruff": "0.17.6", "mypy": "1.18"}),
    State(SHA, {}, (ONE, UNATTRIBUTED)),
])
def test_what_is_written_is_read_back(value: State) -> None:
    text = f"intro\n{state.encode('main', value)}\nrest"
    assert state.decode(text, "main") == value
    assert text.count("-->") == 1  # nothing in the state ends the comment early


@pytest.mark.parametrize("ref,key", [
    ("main", "main"), ("release/2.x", "release/2.x"), ("a--b", None), ("with space", None),
])
def test_branch_names_in_the_marker(ref: str, key: str | None) -> None:
    got = state.ref_key(ref)
    assert got == key if key else (got.startswith("h") and "--" not in got and " " not in got)
    assert state.decode(state.encode(ref, State(SHA)), ref) == State(SHA)


def test_another_branch_s_state_is_not_this_one_s() -> None:
    text = state.encode("main", State(SHA))
    assert state.decode(text, "develop") is None
    assert not text.startswith(state.marker_prefix("mai"))  # no prefix of another branch


def _marker(payload: bytes, packed: bool = True) -> str:
    data = zlib.compress(payload) if packed else payload
    return f"<!-- reviewbot:sweep ref=main state={base64.urlsafe_b64encode(data).decode()} -->"


@pytest.mark.parametrize("text", [
    "no marker at all",
    "<!-- reviewbot:sweep ref=main state=%%% -->",
    _marker(b"not json"),
    _marker(b'{"v": 1, "sha": "' + b"a" * 40 + b'"}', packed=False),  # not compressed
    _marker(b" " * (5 * 1024 * 1024)),  # inflates past the bound
    _marker(b'{"v": 2, "sha": "' + b"a" * 40 + b'"}'),  # a later format
    _marker(b'{"v": 1, "sha": "HEAD"}'),
    _marker(b'{"v": 1, "sha": "' + b"a" * 40 + b'", "open": [[1, 2]]}'),
    _marker(b'{"v": 1, "sha": "' + b"a" * 40 + b'", "tools": []}'),
    _marker(b"[1, 2]"),
    _marker(b'{"v": 1, "sha": "' + b"a" * 40 + b'", "open": {}}'),
])
def test_an_unreadable_state_is_none(text: str) -> None:
    assert state.decode(text, "main") is None


def test_probes_kept_on_disk_and_a_damaged_entry_is_a_miss(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from bot import cache
    from bot.sweep.probes import Probes

    monkeypatch.setenv(cache.SECRET_VARIABLE, "s")  # sealed on disk only with the secret
    with cache.session(save=True):  # the sweep's own run saves (bot.commands.sweep)
        keys = frozenset({("fp", "ruff", "F821", "u.py", "Undefined name `X`")})
        kept = Probes(tmp_path, "salt")
        assert kept.get("b", "c") is None
        kept.put("b", "c", keys)
        assert Probes(tmp_path, "salt").get("b", "c") == keys
        assert Probes(tmp_path, "other tools").get("b", "c") is None
        entries = list((tmp_path / "sweep-probes-v1").iterdir())
        assert entries
        for entry in entries:  # a forged entry (no MAC), then a sealed one of the wrong shape
            entry.write_text('[["fp", "ruff", "F821", "u.py", "Undefined name `X`"]]')
        assert Probes(tmp_path, "salt").get("b", "c") is None and not any(e.exists() for e in entries)
        kept.store.write("sweep-probes-v1", entries[0].stem, entries[0],
                         b'[["only", "four", "items", "here"]]')
        assert Probes(tmp_path, "salt").get("b", "c") is None
        monkeypatch.delenv(cache.SECRET_VARIABLE)
        kept.put("b", "c", keys)  # sealed with the secret: unreadable without it
        assert Probes(tmp_path, "salt").get("b", "c") is None
        assert Probes(None, "salt").get("b", "c") is None


def test_many_regressions_with_long_messages_fit_in_one_issue_body() -> None:
    def text(n: int) -> str:  # as little repetition as real messages have
        return "".join(hashlib.sha256(f"{n}/{k}".encode()).hexdigest() for k in range(80))

    many = tuple(Regression(text(n)[:20], "ruff", "E501", "warning", text(n + 1000),
                            f"pkg/m{n}.py", n, n, 1, 2, text(n + 2000)[:40], f"dev{n % 7}", n,
                            f"dev{n % 7}-gh", ("@octo/core",), "c" * 40)
                 for n in range(120))
    marker = state.encode("main", State(SHA, {"ruff": "0.17.6"}, many))
    assert len(marker) < 60_000
    back = state.decode(marker, "main")
    assert back is not None and len(back.open) == 120
    assert len(back.open[0].message) == state.MESSAGE_KEPT
