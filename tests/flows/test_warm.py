"""`reviewbot warm` and the runs of changes that read what it saved: real ruff (behind a wrapper
that logs each invocation's files, so hits are counted, not timed), real repositories, each
command its own process (what a CI job is), the cache folder carried from one to the next."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from bot import cache, codec
from bot.model import Finding, Severity, Span
from tests.conftest import GitRepo, require_tool
from tests.forges.conftest import Sleeps

ROOT = Path(__file__).resolve().parents[2]
SECRET = "the warm job's secret"
FILES = {"ruff.toml": '[lint]\nselect = ["F"]\n',
         **{f"m{i}.py": f"import os\n\nVALUE = {i}\n" for i in range(5)}}


class World:
    def __init__(self, repo: GitRepo, tmp_path: Path) -> None:
        self.repo = repo
        self.cache = tmp_path / "cache"
        self.log = tmp_path / "ruff.log"
        wrapper = tmp_path / "bin" / "ruff"
        wrapper.parent.mkdir()
        # One line per `ruff check`: the .py files it was given.
        wrapper.write_text(f"#!/bin/sh\ncase \"$1\" in check) printf '%s\\n' \"$*\" >> "
                           f"{shlex.quote(str(self.log))};; "
                           f"esac\nexec {shlex.quote(str(require_tool('ruff')))} \"$@\"\n")
        wrapper.chmod(0o755)
        self.path = f"{wrapper.parent}{os.pathsep}{os.environ['PATH']}"

    def run(self, *args: str, secret: str | None = SECRET,
            keys: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("GITHUB_", "GITLAB_", "CI_", "GITEA_")) and k != "CI"}
        env.update(PATH=self.path, PYTHONPATH=str(ROOT), REVIEWBOT_CACHE_DIR=str(self.cache))
        for name in (cache.SECRET_VARIABLE, cache.SIGNING_VARIABLE, cache.PUBLIC_KEY_VARIABLE):
            env.pop(name, None)
        if secret is not None:
            env[cache.SECRET_VARIABLE] = secret
        env.update(keys or {})
        return subprocess.run([sys.executable, "-m", "bot.cli", *args], cwd=self.repo.path,
                              env=env, capture_output=True, text=True, timeout=120)

    def linted(self) -> list[str]:
        """The .py files ruff was given since the last call, each run once per line."""
        lines = self.log.read_text().splitlines() if self.log.exists() else []
        self.log.unlink(missing_ok=True)
        return sorted(Path(word).name for line in lines for word in line.split()
                      if word.endswith(".py"))

    def listing(self) -> dict[str, bytes]:
        return {str(p.relative_to(self.cache)): p.read_bytes()
                for p in sorted(self.cache.rglob("*")) if p.is_file()}

    def analyze(self, secret: str | None = SECRET,
                keys: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        return self.run("analyze", "--base", "main", "--out", str(self.cache.parent / "a.json"),
                        secret=secret, keys=keys)


@pytest.fixture
def world(repo: GitRepo, tmp_path: Path) -> World:
    repo.commit(FILES)
    return World(repo, tmp_path)


def _change(world: World) -> None:
    world.repo.branch("feature")
    world.repo.commit({"m1.py": "import os\nimport sys\n\nVALUE = 1\n"})


def test_warm_lints_every_file_and_a_change_then_lints_only_its_head(world: World) -> None:
    warmed = world.run("warm")
    assert warmed.returncode == 0, warmed.stderr
    assert world.linted() == [f"m{i}.py" for i in range(5)]
    assert warmed.stderr.startswith("reviewbot: warm ") and "ruff ok" in warmed.stderr
    saved = world.listing()
    _change(world)
    done = world.analyze()
    assert done.returncode == 0, done.stderr
    assert world.linted() == ["m1.py"]  # the head's; the base's came from the cache
    assert "1 introduced, 0 changed, 1 preexisting" in done.stderr
    assert world.listing() == saved  # a run of a change saves nothing


def test_warm_since_a_commit_lints_only_what_the_push_changed(world: World) -> None:
    first = world.repo.git("rev-parse", "HEAD")
    world.repo.commit({"m2.py": "import os\n\nVALUE = 22\n"})
    assert world.run("warm", "--since", first).returncode == 0
    assert world.linted() == ["m2.py", "m2.py"]  # at both ends of the push
    again = world.run("warm", "--since", "not-a-commit")
    assert again.returncode == 2 and again.stderr.count("\n") == 1
    assert again.stderr.startswith("reviewbot: ") and "'not-a-commit'" in again.stderr


def test_warm_fails_closed_when_a_changed_file_went_unchecked(world: World) -> None:
    """A file a linter should have checked but the bot skipped (over the size limit): the warm
    run says so and exits 4, as a linter that could not check its files does."""
    from bot.revisions import workspace

    big = "VALUE = 1\n" * (workspace.SIZE_LIMIT // 10 + 1)
    world.repo.commit({"big.py": big})
    warmed = world.run("warm")
    assert warmed.returncode == 4, warmed.stderr
    assert f"reviewbot: big.py: {workspace.TOO_BIG}" in warmed.stderr.splitlines()


def test_warm_without_the_secret_refuses_in_one_line(world: World) -> None:
    done = world.run("warm", secret=None)
    assert done.returncode == 2
    assert done.stderr == ("reviewbot: REVIEWBOT_CACHE_SECRET is not set: entries saved without it "
                           "could not be verified by the reviews that read them (docs/cache.md)\n")
    assert not world.cache.exists() and world.linted() == []


def test_without_the_secret_nothing_from_disk_is_trusted(world: World) -> None:
    assert world.run("warm").returncode == 0
    world.linted()
    saved = world.listing()
    _change(world)
    done = world.analyze(secret=None)
    assert done.returncode == 0, done.stderr
    assert world.linted() == ["m1.py", "m1.py"]  # both revisions linted again
    assert (f"reviewbot: cache {world.cache}: REVIEWBOT_CACHE_SECRET is not set, so its entries "
            "cannot be verified and are not used (docs/cache.md)") in done.stderr
    assert world.listing() == saved
    other = world.analyze(secret="another secret")  # a secret that did not seal them
    assert world.linted() == ["m1.py", "m1.py"]
    # Those it read: the remembered version of ruff and m1.py's at the base (then deleted).
    assert f"reviewbot: cache {world.cache}: 2 entries did not verify and were ignored" in other.stderr


def test_forged_base_entries_move_no_verdict_and_the_run_names_the_cache(world: World) -> None:
    """Right shape, no MAC or another entry's: each claims the finding the change introduces,
    so that it would read as preexisting."""
    assert world.run("warm").returncode == 0
    world.linted()
    _change(world)
    claimed = Finding("ruff", "F401", Severity.ERROR, "`sys` imported but unused", "m1.py",
                      Span(2, 8, 2, 11))
    # ruff keeps its entries in one pack (bot.cache): each line claims the finding, the MAC
    # line kept from the real pack.
    (pack,) = (world.cache / cache.FORMAT / "packs").iterdir()
    mac, _, payload = pack.read_bytes().partition(b"\n")
    header, _, body = payload.partition(b"\n")
    claim = json.dumps(codec.encode_findings([claimed]), separators=(",", ":")).encode()
    pack.write_bytes(mac + b"\n" + header + b"\n" + b"".join(
        line.split(b" ")[0] + b" " + claim + b"\n" for line in body.splitlines()))
    done = world.analyze()
    assert done.returncode == 0, done.stderr
    assert "1 introduced, 0 changed, 1 preexisting" in done.stderr
    # The pack it read, refused whole (and deleted).
    assert f"reviewbot: cache {world.cache}: 1 entry did not verify and was ignored" in done.stderr
    assert world.linted() == ["m1.py", "m1.py"]
    verdicts = json.loads((world.cache.parent / "a.json").read_text())
    assert [f["scope"] for f in verdicts["result"]["findings"] if "sys" in f["message"]] == ["introduced"]


def test_the_local_review_saves_and_a_later_run_hits(world: World) -> None:
    _change(world)
    first = world.run("review", "--base", "main", "--format", "json")
    assert first.returncode == 1, first.stderr  # the gate: `sys` introduced
    assert world.linted() == ["m1.py", "m1.py"]
    second = world.run("review", "--base", "main", "--format", "json")
    assert second.returncode == 1, second.stderr  # the same gate, from the saved entries
    assert json.loads(second.stdout)["findings"] == json.loads(first.stdout)["findings"]
    assert world.linted() == []


def test_a_ci_review_of_a_pull_request_reads_the_warm_cache_and_saves_nothing(
        repo: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sleeps: Sleeps) -> None:
    """`reviewbot ci` on a pull_request event (the fake GitHub): the base's entries come from the
    warm run, and the folder is byte for byte what the warm run left."""
    from bot import cli
    from tests.flows.test_review import BASE, HEAD, open_pr

    with open_pr(repo, tmp_path, monkeypatch, sleeps, BASE, HEAD,
                 {"app.py": set(range(1, 8))}) as (opened, _, _):
        folder = cache.default_dir()
        assert cli.main(["warm", "--repo", str(opened.path), "--head", "main"]) == 0
        saved = {p: p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}
        assert any(p.parent.parent.name == cache.FORMAT for p in saved)
        answers: list[bool] = []
        get = cache.FindingsCache.get

        def counted(self: cache.FindingsCache, key: str) -> tuple[Finding, ...] | None:
            found = get(self, key)
            answers.append(found is not None)
            return found
        monkeypatch.setattr(cache.FindingsCache, "get", counted)
        assert cli.main(["ci", "--repo", str(opened.path), "--fail-level", "info"]) == 1
        assert sorted(answers) == [False, True]  # app.py: the base's hit, the head's missed
        assert {p: p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()} == saved


# --- a fork's run: no secret, the warm job's entries verified with the public key ------------

def _pair() -> tuple[str, str]:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from bot import cachesig

    key = Ed25519PrivateKey.generate()
    return key.private_bytes_raw().hex(), cachesig.public_hex(key)


def test_a_run_without_secrets_verifies_the_warm_jobs_entries_with_the_public_key(
        world: World) -> None:
    private, public = _pair()
    warmed = world.run("warm", secret=None, keys={cache.SIGNING_VARIABLE: private})
    assert warmed.returncode == 0, warmed.stderr
    assert world.linted() == [f"m{i}.py" for i in range(5)]
    saved = world.listing()
    entries = {name: data for name, data in saved.items() if name.endswith((".json", ".pack"))}
    assert entries and all(data.startswith(cache.SIGNED) for data in entries.values())
    _change(world)
    done = world.analyze(secret=None, keys={cache.PUBLIC_KEY_VARIABLE: public})
    assert done.returncode == 0, done.stderr
    assert world.linted() == ["m1.py"]  # the head's; the base's verified and used
    assert "1 introduced, 0 changed, 1 preexisting" in done.stderr
    assert "did not verify" not in done.stderr and "is not set" not in done.stderr
    assert world.listing() == saved  # it saves nothing
    bad = world.analyze(secret=None, keys={cache.PUBLIC_KEY_VARIABLE: "not a key"})
    assert bad.returncode == 2 and bad.stderr == (
        "reviewbot: REVIEWBOT_CACHE_PUBLIC_KEY is not an Ed25519 public key (a PEM from "
        "`openssl pkey -pubout`, or 64 hex digits): docs/cache.md\n")


@pytest.mark.parametrize("how", ["unsigned", "another key", "hmac"])
def test_forged_or_re_signed_entries_move_no_verdict_of_a_run_without_secrets(
        world: World, how: str) -> None:
    """The pack rewritten to claim the finding the change introduces: left unsigned, signed
    with another key (a fork's own), or sealed with an HMAC of a secret the fork chose."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from bot import cachesig

    private, public = _pair()
    assert world.run("warm", secret=None, keys={cache.SIGNING_VARIABLE: private}).returncode == 0
    world.linted()
    _change(world)
    claimed = Finding("ruff", "F401", Severity.ERROR, "`sys` imported but unused", "m1.py",
                      Span(2, 8, 2, 11))
    (pack,) = (world.cache / cache.FORMAT / "packs").iterdir()
    _, _, payload = pack.read_bytes().partition(b"\n")
    header, _, body = payload.partition(b"\n")
    claim = json.dumps(codec.encode_findings([claimed]), separators=(",", ":")).encode()
    forged = header + b"\n" + b"".join(line.split(b" ")[0] + b" " + claim + b"\n"
                                       for line in body.splitlines())
    if how == "unsigned":
        pack.write_bytes(forged)
    elif how == "another key":
        pack.write_bytes(cachesig.sign(Ed25519PrivateKey.generate(), cache.FORMAT, "pack", forged))
    else:
        pack.write_bytes(cache.seal(cache.mac_key("the fork's"), "pack", forged))
    done = world.analyze(secret=None, keys={cache.PUBLIC_KEY_VARIABLE: public})
    assert done.returncode == 0, done.stderr
    assert "1 introduced, 0 changed, 1 preexisting" in done.stderr
    assert f"reviewbot: cache {world.cache}: 1 entry did not verify and was ignored" in done.stderr
    assert world.linted() == ["m1.py", "m1.py"]
    verdicts = json.loads((world.cache.parent / "a.json").read_text())
    assert [f["scope"] for f in verdicts["result"]["findings"]
            if "sys" in f["message"]] == ["introduced"]
