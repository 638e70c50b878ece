"""Run a command as an unprivileged user, the way the image runs the bot (a user of its own,
no capability), on this machine's own tools and this checkout.

The tests run as root; `nobody` is the user here. What it runs (this checkout: the bot's
source, its virtualenv, the tools; the interpreter; rustup and cargo) may lie where it cannot
reach: under root's home, or below a folder only root may enter (a clone in `mktemp -d`).
The command gets a mount namespace of its own in which each such folder is covered by an
empty world-readable one, and only what it runs is mounted back into it, at the same path
(scripts and virtualenvs name their absolute paths). Nothing changes outside that namespace.
"""

from __future__ import annotations

import os
import shlex
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

NOBODY = 65534
CHECKOUT = Path(__file__).resolve().parents[2]


def unavailable() -> str | None:
    """Why these tests cannot run here, or None."""
    if sys.platform != "linux":
        return "needs Linux (/proc, prctl)"
    if os.geteuid() != 0:
        return "needs root, to start the bot as another user"
    missing = [t for t in ("unshare", "setpriv", "cargo", "node") if shutil.which(t) is None]
    return f"needs {', '.join(missing)}" if missing else None


def rustup_home() -> Path:
    return Path(os.environ.get("RUSTUP_HOME") or Path.home() / ".rustup")


def _tool_homes() -> list[Path]:
    home = Path.home()
    return [Path(sys.base_prefix).resolve(), rustup_home(),
            Path(os.environ.get("CARGO_HOME") or home / ".cargo"),
            Path(shutil.which("cargo") or "/").resolve().parent]


def _reached() -> list[Path]:
    """The folders the unprivileged command runs things from."""
    found = {p.resolve() for p in (*_tool_homes(), CHECKOUT, Path(sys.prefix),
                                   Path(shutil.which("node") or "/").resolve().parent)}
    return sorted(p for p in found if p != Path("/") and p.exists())


def _shut(path: Path, uid: int, gid: int) -> bool:
    """Whether a process of `uid` and `gid` without root's capabilities may not pass through
    `path`: the search permission of the owner, the group or the others, the first that is
    theirs."""
    found = path.stat()
    if found.st_uid == uid:
        return not found.st_mode & stat.S_IXUSR
    if found.st_gid == gid:
        return not found.st_mode & stat.S_IXGRP
    return not found.st_mode & stat.S_IXOTH


def covers(home: Path | None, reached: Sequence[Path], uid: int = NOBODY, gid: int = NOBODY
           ) -> dict[Path, list[Path]]:
    """Each folder to cover (root's home, if given, and the outermost folder `uid` may not pass
    through on the way to a reached one), with what to mount back into it: the reached folders
    below it, outermost first. A cover inside another is none of its own: the outer one's
    mounts recreate the path to what it holds."""
    tops = {home} if home is not None and home != Path("/") else set()
    for folder in reached:
        shut = [a for a in reversed(folder.parents) if a != Path("/") and _shut(a, uid, gid)]
        if shut:
            tops.add(shut[0])
    tops = {t for t in tops if not any(t != o and t.is_relative_to(o) for o in tops)}
    out: dict[Path, list[Path]] = {}
    for top in sorted(tops):
        inside = sorted(f for f in reached if f.is_relative_to(top) and f != top)
        out[top] = [f for f in inside
                    if not any(f != o and f.is_relative_to(o) for o in inside)]
    return out


def _enter(stage: Path, plan: Mapping[Path, Sequence[Path]],
           then: str = f'exec setpriv --reuid={NOBODY} --regid={NOBODY} --clear-groups -- "$@"'
           ) -> str:
    """The shell script that covers the folders of `plan` and mounts back what it names
    (each folder first seen through a bind mount under `stage`), then runs `then` (by default:
    becomes nobody)."""
    lines = ["set -e", "umask 022"]
    for index, (top, keep) in enumerate(plan.items()):
        seen = stage / str(index)
        lines += [f"mkdir -p {shlex.quote(str(seen))}",
                  f"mount --bind {shlex.quote(str(top))} {shlex.quote(str(seen))}",
                  f"mount -t tmpfs -o mode=755 reviewbot-test-cover {shlex.quote(str(top))}"]
        for folder in keep:
            inner = shlex.quote(str(top / folder.relative_to(top)))
            lines += [f"mkdir -p {inner}",
                      f"mount --bind {shlex.quote(str(seen / folder.relative_to(top)))} {inner}"]
    lines.append(then)
    return "\n".join(lines) + "\n"


@contextmanager
def reaching(prefix: Sequence[str]) -> Iterator[list[str]]:
    """`prefix` (a command that drops root's power to read any folder), started where this
    checkout and the tools are reachable without that power: in a mount namespace of its own
    when a folder on the way is shut to root as to others (a runner's home, of another user,
    0750), else as it is."""
    plan = {top: keep for top, keep in covers(None, _reached(), 0, 0).items() if keep}
    if not plan:
        yield list(prefix)
        return
    stage = Path(tempfile.mkdtemp(prefix="reviewbot-reach-"))
    try:
        yield ["unshare", "--mount", "--propagation", "private", "sh", "-c",
               _enter(stage, plan, 'exec "$@"'), "sh", *prefix]
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def path() -> str:
    """PATH for the unprivileged user: this interpreter's environment, cargo, the system."""
    folders = [Path(sys.executable).parent, Path(shutil.which("cargo") or "/").parent,
               Path(shutil.which("node") or "/").parent, Path("/usr/local/bin"), Path("/usr/bin"),
               Path("/bin")]
    return os.pathsep.join(dict.fromkeys(str(f) for f in folders))


class Sandbox:
    """A folder every user can reach, for the repository, the runner's files and the loot."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="reviewbot-hostile-"))
        self.root.chmod(0o755)
        self._stage = Path(tempfile.mkdtemp(dir=self.root))  # root's only

    def folder(self, name: str, mode: int = 0o755) -> Path:
        path = self.root / name
        path.mkdir(parents=True, exist_ok=True)
        path.chmod(mode)
        return path

    def give(self, path: Path) -> None:
        """`path` and everything under it to the unprivileged user."""
        for p in [path, *path.rglob("*")]:
            os.lchown(p, NOBODY, NOBODY)

    def run(self, argv: Sequence[str], env: Mapping[str, str], cwd: Path,
            timeout: float = 900) -> subprocess.CompletedProcess[str]:
        # The environment is handed over by `env -i` at the end: a shell drops the variables
        # whose names it cannot hold (the action's `INPUT_GITHUB-TOKEN`).
        plan = covers(Path.home().resolve(), [*_reached(), self.root.resolve()])
        command = ["unshare", "--mount", "--propagation", "private", "sh", "-c",
                   _enter(self._stage, plan), "sh",
                   "env", "-i", *(f"{k}={v}" for k, v in env.items()), *argv]
        return subprocess.run(command, env={"PATH": os.environ.get("PATH", os.defpath)},
                              cwd=cwd, capture_output=True, text=True, timeout=timeout)

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)
