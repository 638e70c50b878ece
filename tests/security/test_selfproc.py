"""What another process of the bot's user reads of it through /proc, at each step of
`bot.safety.lockdown`: the kernel's facts the design rests on, checked as the image's user."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import requires
from tests.security import unprivileged

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _unprivileged_user() -> None:
    requires(unprivileged.unavailable())


# Run as the unprivileged user; a child of it (as a tool is) reads its /proc files.
PROBE = """
import json, os, subprocess, sys
sys.path.insert(0, {root!r})
from bot.safety import selfproc

def peek():
    seen = {{}}
    for name in ("environ", "cmdline", "mem"):
        done = subprocess.run(["head", "-c", "4096", f"/proc/{{os.getpid()}}/{{name}}"],
                              capture_output=True)
        seen[name] = done.stdout.decode("latin1") if done.returncode == 0 or done.stdout \\
            else "refused: " + done.stderr.decode().strip()
    seen["dumpable"] = selfproc.dumpable()
    return seen

steps = {{"start": peek()}}
os.environ.pop("FAKE_TOKEN")
steps["unsetenv"] = peek()
steps["blanked"] = dict(peek(), names=selfproc.blank_environment(lambda n, v: n == "FAKE_TOKEN"),
                        argv=selfproc.blank_argument_values(["--token"]))
steps["blanked"].update(peek())
selfproc.make_undumpable()
steps["undumpable"] = peek()
print(json.dumps(steps))
"""


@pytest.fixture
def sandbox() -> Iterator[unprivileged.Sandbox]:
    box = unprivileged.Sandbox()
    try:
        yield box
    finally:
        box.close()


def test_what_proc_shows_of_the_bot_at_each_step(sandbox: unprivileged.Sandbox) -> None:
    argv = [sys.executable, "-I", "-c", PROBE.format(root=str(ROOT)), "--token", "ghs_argvalue"]
    done = sandbox.run(argv, {"PATH": unprivileged.path(), "FAKE_TOKEN": "ghs_envvalue"},
                       cwd=sandbox.root)
    assert done.returncode == 0, done.stderr
    steps = json.loads(done.stdout)
    # At first a process of the same user reads the environment block, and memory is open.
    assert "FAKE_TOKEN=ghs_envvalue" in steps["start"]["environ"]
    assert "ghs_argvalue" in steps["start"]["cmdline"] and steps["start"]["dumpable"]
    assert not steps["start"]["mem"].startswith("refused: head: cannot open")
    # Removing the variable from os.environ leaves the block /proc shows as it was.
    assert "FAKE_TOKEN=ghs_envvalue" in steps["unsetenv"]["environ"]
    # Blanking overwrites the value in the block itself, and --token's value in cmdline.
    assert steps["blanked"]["names"] == ["FAKE_TOKEN"] and steps["blanked"]["argv"] == 1
    assert "ghs_envvalue" not in steps["blanked"]["environ"]
    assert "FAKE_TOKEN=" in steps["blanked"]["environ"]
    assert "ghs_argvalue" not in steps["blanked"]["cmdline"]
    # Non-dumpable: environ and mem are refused to the same user; cmdline never is.
    after = steps["undumpable"]
    assert not after["dumpable"]
    assert after["environ"].startswith("refused") and "Permission denied" in after["environ"]
    assert after["mem"].startswith("refused") and "Permission denied" in after["mem"]
    assert "--token" in after["cmdline"]
