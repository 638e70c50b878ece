"""The findings cache: keys, corruption, concurrency, size bound, and its use by the runner."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot import cache, codec
from bot.analyzer import Resolution, Target
from bot.linters import golangci, ruff
from bot.linters.base import LinterSpec
from bot.linters.runner import LinterAnalyzer
from bot.model import Edit, Finding, Fix, Severity, Span
from tests.conftest import calls_of
from tests.linters.conftest import calls, counting_spec, lint, write

SECRET = "a secret only the bot holds"


@pytest.fixture(autouse=True)
def _secret(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Entries reach the disk only with the secret (see the tests at the end for without), and
    in a run that says it may save (a trusted one: the tests of who saves enter their own)."""
    monkeypatch.setenv(cache.SECRET_VARIABLE, SECRET)
    with cache.session(save=True, stream=io.StringIO()):
        yield


FINDING = Finding("ruff", "F401", Severity.ERROR, "`os` imported but unused", "a.py", Span(1, 8, 1, 10),
                  "https://x", Fix("remove", (Edit("a.py", Span(1, 1, 2, 1), ""),), "safe"))


def test_blob_sha_is_gits(tmp_path: Path) -> None:
    (tmp_path / "f").write_bytes(b"hello\n")
    expected = subprocess.run(["git", "hash-object", str(tmp_path / "f")], capture_output=True,
                              text=True, check=True).stdout.strip()
    assert cache.file_blob(tmp_path / "f") == cache.blob_sha(b"hello\n") == expected


def test_round_trip_keeps_every_field(tmp_path: Path) -> None:
    store = cache.FindingsCache(tmp_path)
    other = Finding("mypy", "note", Severity.INFO, "m", "b.py", Span(2, 1, 2, 2), file_level=True)
    store.put("k" * 64, [FINDING, other])
    assert store.get("k" * 64) == (FINDING, other)
    assert store.get("j" * 64) is None


def test_entries_hold_the_codecs_shape_and_old_layouts_are_misses(tmp_path: Path) -> None:
    store = cache.FindingsCache(tmp_path)
    key = "e" * 64
    store.put(key, [FINDING])
    entry = tmp_path / cache.FORMAT / "ee" / f"{key}.json"
    _, _, payload = entry.read_bytes().partition(b"\n")
    assert json.loads(payload) == {"key": key, "findings": codec.encode_findings([FINDING])}
    assert cache.unseal(cache.mac_key(SECRET), "findings", entry.read_bytes()) == payload
    # The v1 layout (a nested "span", written by dataclasses.asdict) is not read as v2.
    old = {**codec.encode_finding(FINDING), "span": {"line": 1, "column": 8, "end_line": 1,
                                                      "end_column": 10}, "fix": None}
    for name in ("line", "column", "end_line", "end_column"):
        del old[name]
    entry.write_bytes(cache.seal(cache.mac_key(SECRET), "findings",
                                 json.dumps({"key": key, "findings": [old]}).encode()))
    assert store.get(key) is None and not entry.exists()


@pytest.mark.parametrize("content", [b"", b"{not json", b'{"key": "other", "findings": []}',
                                     b'{"key": "KEY", "findings": [{"tool": 1}]}', b"[]"])
def test_corrupt_entry_is_a_miss_and_is_removed(tmp_path: Path, content: bytes) -> None:
    store = cache.FindingsCache(tmp_path)
    key = "ab" + "c" * 62
    store.put(key, [FINDING])
    entry = tmp_path / cache.FORMAT / "ab" / f"{key}.json"
    entry.write_bytes(content.replace(b"KEY", key.encode()))
    assert store.get(key) is None
    assert not entry.exists()
    store.put(key, [FINDING])
    assert store.get(key) == (FINDING,)


def test_unwritable_cache_only_costs_time(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    store = cache.FindingsCache(tmp_path / "file")  # a file where the folder should be
    store.put("a" * 64, [FINDING])
    assert store.get("a" * 64) is None


def test_concurrent_writers_and_readers_never_see_half_an_entry(tmp_path: Path) -> None:
    store = cache.FindingsCache(tmp_path)
    key = "d" * 64
    many = [FINDING] * 300  # big enough that a torn write would be visible
    errors: list[object] = []

    def writer() -> None:
        for _ in range(50):
            store.put(key, many)

    def reader() -> None:
        for _ in range(200):
            got = store.get(key)
            if got is not None and len(got) != len(many):
                errors.append(len(got))

    threads = [threading.Thread(target=f) for f in (writer, writer, reader, reader)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert store.get(key) == tuple(many)
    assert not [p for p in (tmp_path / cache.FORMAT / "dd").iterdir() if p.name.startswith(".tmp")]


def test_concurrent_processes(tmp_path: Path) -> None:
    script = textwrap.dedent(f"""
        from pathlib import Path
        from bot import cache
        from bot.model import Finding, Severity, Span
        store = cache.FindingsCache(Path({str(tmp_path)!r}))
        f = Finding("t", "r", Severity.ERROR, "m" * 1000, "p", Span(1, 1, 1, 2))
        for i in range(100):
            store.put("e" * 64, [f] * (i % 7 + 1))
            got = store.get("e" * 64)
            assert got is None or 1 <= len(got) <= 7, got
    """)
    procs = [subprocess.Popen([sys.executable, "-c", script], cwd=Path(__file__).parent.parent)
             for _ in range(3)]
    assert [p.wait(timeout=60) for p in procs] == [0, 0, 0]


def test_prune_evicts_least_recently_used_down_to_the_bound(tmp_path: Path) -> None:
    store = cache.FindingsCache(tmp_path, max_bytes=10_000)
    keys = [f"{i:02x}" + "0" * 62 for i in range(40)]
    for index, key in enumerate(keys):
        store.put(key, [FINDING])
        entry = tmp_path / cache.FORMAT / key[:2] / f"{key}.json"
        os.utime(entry, (1_000_000 + index, 1_000_000 + index))
    assert store.get(keys[0]) is not None  # read: now the most recently used
    removed = store.prune()
    assert removed > 0
    sizes = sum(p.stat().st_size for p in (tmp_path / cache.FORMAT).rglob("*.json"))
    assert sizes <= 10_000 * cache.PRUNE_TO
    assert store.get(keys[0]) is not None  # survived: recently read
    assert store.get(keys[1]) is None  # oldest unread: evicted
    assert store.get(keys[-1]) is not None


def test_prune_measures_the_folder_at_most_once_per_interval(tmp_path: Path) -> None:
    store = cache.FindingsCache(tmp_path, max_bytes=10_000)
    store.put("ff" + "0" * 62, [FINDING])
    assert store.prune() == 0  # under the bound: measured, the stamp set
    for i in range(40):
        store.put(f"{i:02x}" + "0" * 62, [FINDING])
    assert store.prune() == 0  # over the bound now, but measured a moment ago
    stamp = tmp_path / cache.FORMAT / ".pruned"
    old = time.time() - cache.PRUNE_EVERY - 1
    os.utime(stamp, (old, old))
    assert store.prune() > 0  # the interval is over: measured and evicted
    sizes = sum(p.stat().st_size for p in (tmp_path / cache.FORMAT).rglob("*.json"))
    assert sizes <= 10_000 * cache.PRUNE_TO


def test_default_dir_overrides(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("REVIEWBOT_CACHE_DIR", str(tmp_path / "x"))
    assert cache.default_dir() == tmp_path / "x"
    monkeypatch.delenv("REVIEWBOT_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.default_dir() == tmp_path / "xdg" / "reviewbot"


# --- the runner uses it -------------------------------------------------------------------

def test_unchanged_files_are_never_linted_twice(tmp_path: Path) -> None:
    root = write(tmp_path / "repo", {"pyproject.toml": '[tool.ruff.lint]\nselect = ["F401"]\n',
                                     "a.py": "import os\n", "b.py": "import sys\n"})
    spec, log = counting_spec(tmp_path, ruff.SPEC)
    store = tmp_path / "cache"
    first = lint(spec, root, ["a.py", "b.py"], cache_dir=store)
    assert len(calls(log)) == 1 and len(first.findings) == 2
    second = lint(spec, root, ["a.py", "b.py"], cache_dir=store)
    assert len(calls(log)) == 1, "second run must be served from the cache"
    assert second.findings == first.findings
    (root / "b.py").write_text("import sys\nimport json\n")
    third = lint(spec, root, ["a.py", "b.py"], cache_dir=store)
    assert calls(log)[-1].endswith("-- b.py"), "only the changed file is linted again"
    assert len(third.findings) == 3
    # A configuration change invalidates every entry.
    (root / "pyproject.toml").write_text('[tool.ruff.lint]\nselect = ["F401", "E711"]\n')
    lint(spec, root, ["a.py", "b.py"], cache_dir=store)
    assert calls(log)[-1].endswith("-- a.py b.py")


def test_tool_version_is_part_of_the_key(tmp_path: Path) -> None:
    root = write(tmp_path / "repo", {"pyproject.toml": "[tool.ruff]\n", "a.py": "import os\n"})
    spec, log = counting_spec(tmp_path, ruff.SPEC)
    analyzer = LinterAnalyzer(spec)
    resolution = analyzer.resolve(root)
    target = Target(root, "HEAD", ("a.py",), "head", cache_dir=tmp_path / "c")
    analyzer.collect(target, resolution)
    analyzer.collect(target, Resolution(resolution.executable, "999.0.0"))
    analyzer.collect(target, Resolution(resolution.executable, None))  # no version: no cache
    analyzer.collect(target, Resolution(resolution.executable, None))
    assert len(calls(log)) == 4


def test_failures_are_not_cached(tmp_path: Path) -> None:
    root = write(tmp_path / "repo", {"pyproject.toml": "[tool.ruff]\n", "a.py": "import os\n"})
    broken = LinterSpec(**{**ruff.SPEC.__dict__, "command": lambda exe, unit, target: ["false"]})
    outcome = lint(broken, root, ["a.py"], cache_dir=tmp_path / "c")
    assert outcome.status == "failed"
    spec, log = counting_spec(tmp_path, ruff.SPEC)
    assert lint(spec, root, ["a.py"], cache_dir=tmp_path / "c").status == "ok"
    assert len(calls(log)) == 1


def test_package_scope_keys_on_the_module_and_shares_runs(tmp_path: Path) -> None:
    root = write(tmp_path / "repo", {
        "go.mod": "module example.com/m\n\ngo 1.22\n",
        ".golangci.yml": 'version: "2"\nlinters:\n  default: none\n  enable: [misspell]\n',
        "a/a.go": "package a\n\n// recieve\nfunc A() {}\n",
        "b/b.go": "package b\n\n// seperate\nfunc B() {}\n",
        "c/c.go": "package c\n\nfunc C() {}\n",
    })
    spec, log = counting_spec(tmp_path, golangci.SPEC)
    store = tmp_path / "cache"
    first = lint(spec, root, ["a/a.go", "b/b.go"], cache_dir=store)
    assert len(calls(log)) == 1 and calls(log)[0].endswith("./a/ ./b/"), "one run for both packages"
    assert {f.path for f in first.findings} == {"a/a.go", "b/b.go"}
    second = lint(spec, root, ["a/a.go", "b/b.go"], cache_dir=store)
    assert len(calls(log)) == 1 and second.findings == first.findings  # no run: all from the cache
    # Any Go file of the module changing invalidates its packages (Go type-checks across them).
    (root / "c/c.go").write_text("package c\n\nfunc C() int { return 1 }\n")
    third = lint(spec, root, ["a/a.go", "b/b.go"], cache_dir=store)
    assert len(calls(log)) == 2 and third.findings == first.findings


def test_the_version_is_remembered_per_installed_binary(tmp_path: Path) -> None:
    """`TOOL --version` runs once per installed binary; a reinstall (new file) asks again."""
    log = tmp_path / "log"
    tool = tmp_path / "bin" / "ruff"
    tool.parent.mkdir()

    def install(version: str) -> None:
        fresh = tool.with_name("ruff.new")
        fresh.write_text(f"#!/bin/sh\necho \"$@\" >> {log}\necho 'ruff {version}'\n")
        fresh.chmod(0o755)
        fresh.replace(tool)  # as package managers do: a new file, not an edit in place

    install("1.0.0")
    spec = LinterSpec(**{**ruff.SPEC.__dict__, "executables": (str(tool),)})
    root, store = tmp_path, tmp_path / "c"
    versions = [LinterAnalyzer(spec).resolve(root, store).version for _ in range(3)]
    assert versions == ["1.0.0"] * 3 and log.read_text().count("--version") == 1
    install("2.0.0")
    assert LinterAnalyzer(spec).resolve(root, store).version == "2.0.0"
    assert LinterAnalyzer(spec).resolve(root).version == "2.0.0"  # no cache: always asked
    assert log.read_text().count("--version") == 3
    proxy = LinterSpec(**{**spec.__dict__, "stable_binary": False})
    for _ in range(2):
        LinterAnalyzer(proxy).resolve(root, store)
    assert log.read_text().count("--version") == 5


def test_a_file_without_a_known_blob_is_linted_and_never_cached(tmp_path: Path) -> None:
    """No identity for the contents (the view could not name the file): no key, no entry."""
    root = write(tmp_path / "repo", {"pyproject.toml": '[tool.ruff.lint]\nselect = ["F401"]\n',
                                     "a.py": "import os\n"})
    spec, log = counting_spec(tmp_path, ruff.SPEC)
    analyzer = LinterAnalyzer(spec)
    resolution = analyzer.resolve(root)

    class Blind:
        def is_file(self, path: str) -> bool:
            return False

        def blobs(self, paths: list[str]) -> dict[str, str]:
            return {}

        def walk(self, *args: object, **kwargs: object) -> list[str]:
            return []

    target = Target(root, "HEAD", ("a.py",), "base", cache_dir=tmp_path / "c", view=Blind())
    for _ in range(2):
        assert [f.rule for f in analyzer.collect(target, resolution).findings] == ["F401"]
    assert len(calls(log)) == 2


# --- authentication and who saves ------------------------------------------------------------

def _forge(store: cache.FindingsCache, key: str, mac: bytes | None) -> Path:
    """What a tool run by a pull request can write: the entry's shape, with no MAC or a made-up one."""
    entry = store.directory / key[:2] / f"{key}.json"
    entry.parent.mkdir(parents=True, exist_ok=True)
    payload = json.dumps({"key": key, "findings": []}).encode()
    entry.write_bytes(payload if mac is None else mac + b"\n" + payload)
    return entry


@pytest.mark.parametrize("mac", [None, b"0" * 64, b""])
def test_a_forged_entry_is_never_used_and_is_deleted_counted_and_named(
        tmp_path: Path, mac: bytes | None) -> None:
    lines = io.StringIO()
    with cache.session(save=True, stream=lines):
        store = cache.FindingsCache(tmp_path)
        store.put("a" * 64, [FINDING])
        entry = _forge(store, "a" * 64, mac)  # overwrites the real entry, claims no finding
        _forge(store, "b" * 64, mac)  # and adds one
        assert store.get("a" * 64) is None and store.get("b" * 64) is None
        assert not entry.exists()
    assert lines.getvalue() == f"reviewbot: cache {tmp_path}: 2 entries did not verify and were ignored\n"


def test_an_entry_sealed_under_another_secret_does_not_verify(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache.FindingsCache(tmp_path).put("c" * 64, [FINDING])
    cache.FindingsCache(tmp_path).remember_version("stamp", "1.0")
    monkeypatch.setenv(cache.SECRET_VARIABLE, "another")
    lines = io.StringIO()
    with cache.session(save=True, stream=lines):
        store = cache.FindingsCache(tmp_path)
        assert store.get("c" * 64) is None and store.version("stamp") is None
    assert "2 entries did not verify" in lines.getvalue()


def test_an_entry_of_one_kind_is_not_read_as_another(tmp_path: Path) -> None:
    """A version entry moved over a findings entry (both sealed with the right key)."""
    store = cache.FindingsCache(tmp_path)
    store.remember_version("x", "1.0")
    sealed = store._version_entry("x").read_bytes()
    _forge(store, "d" * 64, None).write_bytes(sealed)
    assert store.get("d" * 64) is None


def test_a_run_that_may_not_save_writes_nothing_and_keeps_its_results(tmp_path: Path) -> None:
    cache.FindingsCache(tmp_path).put("e" * 64, [FINDING])  # a trusted run's entry
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    with cache.session(save=False):
        store = cache.FindingsCache(tmp_path)
        assert store.get("e" * 64) == (FINDING,)  # read: verified
        store.put("f" * 64, [FINDING])
        store.remember_version("stamp", "2.0")
        assert store.get("f" * 64) == (FINDING,) and store.version("stamp") == "2.0"
        assert store.writes == 0 and store.prune() == 0
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before
    assert cache.FindingsCache(tmp_path).get("f" * 64) is None  # gone with the run


def test_without_the_secret_nothing_on_disk_is_read_or_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache.FindingsCache(tmp_path).put("a" * 64, [FINDING])  # sealed with the secret
    monkeypatch.delenv(cache.SECRET_VARIABLE)
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    lines = io.StringIO()
    with cache.session(save=True, stream=lines):
        store = cache.FindingsCache(tmp_path)
        assert store.get("a" * 64) is None
        store.put("b" * 64, [FINDING])
        assert store.get("b" * 64) == (FINDING,)  # this run's own result serves it
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before
    # Nothing was read, so nothing was refused; the folder's entries were not used: said once.
    assert lines.getvalue() == (
        f"reviewbot: cache {tmp_path}: REVIEWBOT_CACHE_SECRET is not set, so its entries cannot "
        "be verified and are not used (docs/cache.md)\n")
    assert cache.unused_note(tmp_path / "empty") is None


def test_the_secret_is_held_out_of_the_environment_of_every_tool(tmp_path: Path) -> None:
    """Captured at the command's start (bot.cli), so `env` run as a tool never sees it."""
    from bot import proc, secrecy
    from bot.safety import credentials

    with credentials.captured():
        assert cache.SECRET_VARIABLE not in os.environ
        assert cache.secret() == SECRET
        seen = proc.run(["env"], cwd=tmp_path, timeout=30)
        assert SECRET not in seen.out and cache.SECRET_VARIABLE not in seen.out
    # Its name is what makes the capture take it (and blank it in /proc/PID/environ).
    assert secrecy.is_secret_name(cache.SECRET_VARIABLE)


# --- the pack: one entry per run for a tool cheaper than its entries ----------------------------

def _ruff_repo(tmp_path: Path) -> Path:
    return write(tmp_path / "repo", {"pyproject.toml": '[tool.ruff.lint]\nselect = ["F401"]\n',
                                     "a.py": "import os\n", "b.py": "import sys\n",
                                     "c.py": "x = 1\n"})


def _entries(store: Path) -> list[str]:
    """The files the cache holds, but the tools' versions."""
    return sorted(str(p.relative_to(store / cache.FORMAT)) for p in store.rglob("*")
                  if p.is_file() and "versions" not in p.parts and p.name != ".pruned")


def test_a_cheap_tool_writes_one_pack_per_run_and_reads_it_back(tmp_path: Path) -> None:
    root = _ruff_repo(tmp_path)
    spec, log = counting_spec(tmp_path, ruff.SPEC)
    assert spec.cache_packed
    store = tmp_path / "cache"
    first = lint(spec, root, ["a.py", "b.py", "c.py"], cache_dir=store)
    assert len(calls(log)) == 1 and len(first.findings) == 2
    entries = _entries(store)
    assert len(entries) == 1 and entries[0].startswith("packs/"), entries
    with cache.session(save=True):  # a new run: the pack is read from disk
        second = lint(spec, root, ["a.py", "b.py", "c.py"], cache_dir=store)
    assert len(calls(log)) == 1 and second.findings == first.findings
    (root / "b.py").write_text("import sys\nimport json\n")
    with cache.session(save=True):
        third = lint(spec, root, ["a.py", "b.py", "c.py"], cache_dir=store)
    assert calls(log)[-1].endswith("-- b.py") and len(third.findings) == 3
    assert _entries(store) == entries  # the same one pack, now with b.py's two versions
    with cache.session(save=True):
        store_view = cache.FindingsCache(store, pack=Path(entries[0]).stem)
        assert store_view._pack_get("0" * 64) is None
        assert len(store_view._load_pack().entries) == 4


@pytest.mark.parametrize("how", ["unsealed", "made-up mac", "another secret", "another pack"])
def test_a_forged_pack_is_never_used_and_is_deleted_counted_and_named(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    """What a pull request's tool can write over the pack: every file said clean."""
    root = _ruff_repo(tmp_path)
    spec, log = counting_spec(tmp_path, ruff.SPEC)
    store = tmp_path / "cache"
    first = lint(spec, root, ["a.py", "b.py", "c.py"], cache_dir=store)
    (pack,) = (store / cache.FORMAT / "packs").iterdir()
    sealed = pack.read_bytes()
    _, _, payload = sealed.partition(b"\n")
    header, _, body = payload.partition(b"\n")
    clean = header + b"\n" + b"".join(line.split(b" ")[0] + b" []\n"
                                      for line in body.splitlines())
    if how == "unsealed":
        forged = clean
    elif how == "made-up mac":
        forged = b"0" * 64 + b"\n" + clean
    elif how == "another secret":
        forged = cache.seal(cache.mac_key("another"), "pack", clean)
    else:  # sealed with the bot's key, but another tool's pack: its header names it
        forged = cache.seal(cache.mac_key(SECRET), "pack", b"pack " + b"f" * 64 + b"\n"
                            + b"".join(line.split(b" ")[0] + b" []\n" for line in body.splitlines()))
    pack.write_bytes(forged)
    lines = io.StringIO()
    with cache.session(save=True, stream=lines):
        second = lint(spec, root, ["a.py", "b.py", "c.py"], cache_dir=store)
    assert second.findings == first.findings and len(calls(log)) == 2  # linted again
    assert lines.getvalue() == f"reviewbot: cache {store}: 1 entry did not verify and was ignored\n"
    assert pack.read_bytes() != forged  # replaced by the run's own, sealed
    with cache.session(save=True, stream=lines):
        assert lint(spec, root, ["a.py", "b.py", "c.py"], cache_dir=store).findings == first.findings
    assert len(calls(log)) == 2


def test_a_run_that_may_not_save_writes_no_pack_and_keeps_its_results(tmp_path: Path) -> None:
    root = _ruff_repo(tmp_path)
    spec, log = counting_spec(tmp_path, ruff.SPEC)
    store = tmp_path / "cache"
    with cache.session(save=False):
        lint(spec, root, ["a.py", "b.py"], cache_dir=store)
        assert _entries(store) == []
        lint(spec, root, ["a.py", "b.py"], cache_dir=store)
        assert len(calls(log)) == 1  # the run's own results, in memory
    with cache.session(save=False):
        lint(spec, root, ["a.py", "b.py"], cache_dir=store)
    assert len(calls(log)) == 2 and _entries(store) == []


def test_a_pack_keeps_its_newest_entries_up_to_its_bound(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache, "PACK_MAX_ENTRIES", 2)
    with cache.session(save=True):
        store = cache.FindingsCache(tmp_path, pack="p" * 64)
        for key in ("a", "b", "c"):
            store.put(key * 64, [FINDING])
        store.flush()
        assert store.writes == 1
    with cache.session(save=True):
        store = cache.FindingsCache(tmp_path, pack="p" * 64)
        assert [store.get(k * 64) for k in "abc"] == [None, (FINDING,), (FINDING,)]


def test_a_pack_written_by_another_run_is_read_again_and_merged(tmp_path: Path) -> None:
    with cache.session(save=True):
        mine = cache.FindingsCache(tmp_path, pack="p" * 64)
        mine.put("a" * 64, [FINDING])
        mine.flush()
        with cache.session(save=True):  # another run, same folder, meanwhile
            theirs = cache.FindingsCache(tmp_path, pack="p" * 64)
            theirs.put("b" * 64, [])
            time.sleep(0.01)
            theirs.flush()
        mine.put("c" * 64, [FINDING])
        assert mine.get("b" * 64) == ()
        mine.flush()
    with cache.session(save=True):
        store = cache.FindingsCache(tmp_path, pack="p" * 64)
        assert [store.get(k * 64) for k in "abc"] == [(FINDING,), (), (FINDING,)]


def test_a_run_that_did_not_say_it_may_save_saves_nothing(tmp_path: Path) -> None:
    """Outside any `session`, the default is the untrusted one: a command that forgot to say
    who it is (a slash command running a pull request's code) writes nothing to the folder."""
    probe = textwrap.dedent("""
        import sys
        from pathlib import Path
        from bot import cache
        from bot.model import Finding, Severity, Span
        found = Finding("ruff", "F401", Severity.ERROR, "m", "a.py", Span(1, 1, 1, 2))
        store = cache.FindingsCache(Path(sys.argv[1]))
        store.put("a" * 64, [found])
        store.remember_version("stamp", "1.0")
        packed = cache.FindingsCache(Path(sys.argv[1]), pack="p" * 64)
        packed.put("b" * 64, [found])
        packed.flush()
        assert store.get("a" * 64) == (found,) and packed.get("b" * 64) == (found,)
        print(store.writes + packed.writes)
    """)
    env = {**os.environ, cache.SECRET_VARIABLE: SECRET,
           "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    done = subprocess.run([sys.executable, "-c", probe, str(tmp_path / "c")], env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "0\n" and not (tmp_path / "c").exists()


def test_a_pack_is_read_once_per_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Refreshing its time (the eviction's clock) must not make the next look-up read it again."""
    with cache.session(save=True):
        store = cache.FindingsCache(tmp_path, pack="p" * 64)
        for key in "abc":
            store.put(key * 64, [FINDING])
        store.flush()
    reads = calls_of(monkeypatch, cache.FindingsCache, "_read_pack")
    for save in (True, False):
        with cache.session(save=save):
            store = cache.FindingsCache(tmp_path, pack="p" * 64)
            assert [store.get(k * 64) for k in "abcd"] == [(FINDING,)] * 3 + [None]
    assert len(reads) == 2


def test_signed_entries_met_by_a_run_with_only_the_hmac_secret_say_which_key_it_needs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The warm job signs (its private key); a run given only REVIEWBOT_CACHE_SECRET cannot
    verify what it signed: one line naming the variable to give it, and the entries are kept
    for the runs that have it, not deleted as forged."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from bot import cachesig

    private = Ed25519PrivateKey.generate()
    monkeypatch.setenv(cache.SIGNING_VARIABLE, private.private_bytes_raw().hex())
    root = _ruff_repo(tmp_path)
    spec, log = counting_spec(tmp_path, ruff.SPEC)
    store = tmp_path / "cache"
    with cache.session(save=True):  # the warm job
        first = lint(spec, root, ["a.py", "b.py"], cache_dir=store)
        cache.FindingsCache(store).put("a" * 64, [FINDING])
    monkeypatch.delenv(cache.SIGNING_VARIABLE)
    on_disk = {p: p.read_bytes() for p in store.rglob("*") if p.is_file()}
    lines = io.StringIO()
    with cache.session(save=False, stream=lines):  # a pull request's run: the secret only
        assert lint(spec, root, ["a.py", "b.py"], cache_dir=store).findings == first.findings
        assert cache.FindingsCache(store).get("a" * 64) is None
    assert len(calls(log)) == 2  # linted again
    assert lines.getvalue() == (
        f"reviewbot: cache {store}: 2 entries are signed by the warm job and this run has no "
        f"key to verify them: give it {cache.PUBLIC_KEY_VARIABLE} (docs/cache.md)\n")
    assert {p: p.read_bytes() for p in store.rglob("*") if p.is_file()} == on_disk
    monkeypatch.setenv(cache.PUBLIC_KEY_VARIABLE, cachesig.public_hex(private))
    lines = io.StringIO()
    with cache.session(save=False, stream=lines):  # given the public key: they verify
        assert lint(spec, root, ["a.py", "b.py"], cache_dir=store).findings == first.findings
        assert cache.FindingsCache(store).get("a" * 64) == (FINDING,)
    assert len(calls(log)) == 2 and lines.getvalue() == ""
