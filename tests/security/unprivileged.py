"""Run a command as an unprivileged user, the way the image runs the bot (a user of its own,
no capability), on this machine's own tools.

The tests run as root; `nobody` is the user here. Tools installed under root's home (a Python
built there, rustup) are made reachable to it in a mount namespace of the command's own: a
world-readable empty folder is mounted over the home and only those tools' folders are mounted
back into it. Nothing changes outside that namespace.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

NOBODY = 65534

# Mounts root's home over a staging folder, covers the home with an empty world-readable
# folder, mounts the named tool folders back into it, then becomes nobody.
_ENTER = f"""set -e
stage="$1"; home="$2"; shift 2
mount --bind "$home" "$stage"
mount -t tmpfs -o mode=755 reviewbot-test-home "$home"
while [ "$1" != -- ]; do
  mkdir -p "$home/$1"; mount --bind "$stage/$1" "$home/$1"; shift
done
shift
exec setpriv --reuid={NOBODY} --regid={NOBODY} --clear-groups -- "$@"
"""


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


def _exposed() -> list[str]:
    """The top folders of root's home the tools live in."""
    home = Path.home().resolve()
    return sorted({p.resolve().relative_to(home).parts[0] for p in _tool_homes()
                   if p.resolve().is_relative_to(home) and p.resolve() != home})


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
        command = ["unshare", "--mount", "--propagation", "private", "sh", "-c", _ENTER, "sh",
                   str(self._stage), str(Path.home().resolve()), *_exposed(), "--",
                   "env", "-i", *(f"{k}={v}" for k, v in env.items()), *argv]
        return subprocess.run(command, env={"PATH": os.environ.get("PATH", os.defpath)},
                              cwd=cwd, capture_output=True, text=True, timeout=timeout)

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)
