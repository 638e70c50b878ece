"""The memory a job may still take, read from /proc and the cgroup folders (bot.linters.memory)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from bot.errors import BotError
from bot.linters import memory
from tests.linters.conftest import write

MiB = memory.MiB


def test_mem_available_in_bytes() -> None:
    assert memory.mem_available("MemTotal: 100 kB\nMemAvailable:   2048 kB\n") == 2 * MiB
    assert memory.mem_available("MemTotal: 100 kB\n") is None


def test_cgroup_folders_of_v2_and_v1() -> None:
    assert memory.cgroup_folders("0::/ci/job\n") == ("/ci/job", None)
    assert memory.cgroup_folders("5:cpu,cpuacct:/x\n4:memory:/pod/a\n0::/\n") == ("/", "/pod/a")


def test_a_limit_less_its_usage_the_reclaimable_cache_not_counted() -> None:
    stat = "anon 5\ninactive_file 104857600\n"
    assert memory.limit_left("1073741824\n", "524288000\n", stat, "inactive_file") == 624 * MiB
    assert memory.limit_left("max\n", "1\n", "", "inactive_file") is None
    assert memory.limit_left("9223372036854771712\n", "1\n", "", "total_inactive_file") is None
    assert memory.limit_left("100\n", "500\n", "", "inactive_file") == 0  # over its limit


def _machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str]) -> None:
    write(tmp_path, files)
    monkeypatch.setattr(memory, "PROC", tmp_path / "proc")
    monkeypatch.setattr(memory, "CGROUP", tmp_path / "cg")


def test_room_is_the_least_of_the_machine_and_each_cgroup_above_the_job(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _machine(tmp_path, monkeypatch, {
        "proc/meminfo": "MemAvailable: 8388608 kB\n", "proc/self/cgroup": "4:memory:/ci/job\n",
        "cg/memory/memory.limit_in_bytes": "9223372036854771712\n",
        "cg/memory/ci/memory.limit_in_bytes": f"{2048 * MiB}\n",  # the parent's limit binds
        "cg/memory/ci/memory.usage_in_bytes": f"{1024 * MiB}\n",
        "cg/memory/ci/memory.stat": f"total_inactive_file {512 * MiB}\n",
        "cg/memory/ci/job/memory.limit_in_bytes": f"{4096 * MiB}\n",
        "cg/memory/ci/job/memory.usage_in_bytes": "0\n"})
    assert memory.room() == 1536 * MiB


def test_room_of_a_container_at_its_cgroup_root_and_of_a_machine_that_says_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _machine(tmp_path, monkeypatch, {
        "proc/meminfo": "MemAvailable: 8388608 kB\n", "proc/self/cgroup": "0::/\n",
        "cg/cgroup.controllers": "cpu memory\n", "cg/memory.max": f"{3072 * MiB}\n",
        "cg/memory.current": f"{1024 * MiB}\n"})
    assert memory.room() == 2048 * MiB
    monkeypatch.setattr(memory, "PROC", tmp_path / "nowhere")
    assert memory.room() is None


@pytest.mark.parametrize(("raw", "at_once"), [("", None), ("auto", None), (" AUTO ", None),
                                              ("1", 1), ("3", 3)])
def test_the_setting(raw: str, at_once: int | None) -> None:
    assert memory.setting({memory.VARIABLE: raw}).at_once == at_once


@pytest.mark.parametrize("raw", ["0", "-1", "two", "1.5"])
def test_a_setting_that_does_not_read(raw: str) -> None:
    with pytest.raises(BotError, match="REVIEWBOT_HEAVY_TOOLS"):
        memory.setting({memory.VARIABLE: raw})


@pytest.mark.parametrize(("room_mb", "variable", "most"), [
    (2 * 512 + 256, None, 2),  # room for two estimates and the reserve, not three
    (4096, None, 3),
    (None, None, 1),  # the machine does not say: one at a time
    (100, "3", 3),
])
def test_the_gate_lets_in_as_many_as_the_room_holds(
        monkeypatch: pytest.MonkeyPatch, room_mb: int | None, variable: str | None,
        most: int) -> None:
    monkeypatch.setattr(memory, "room", lambda: None if room_mb is None else room_mb * MiB)
    if variable is None:
        monkeypatch.delenv(memory.VARIABLE, raising=False)
    else:
        monkeypatch.setenv(memory.VARIABLE, variable)
    gate = memory.HeavyGate()
    lock, now, peak = threading.Lock(), [0], [0]

    def run() -> None:
        with gate.hold(512 * MiB):
            with lock:
                now[0] += 1
                peak[0] = max(peak[0], now[0])
            time.sleep(0.5)  # long enough for the three to meet where the gate lets them
            with lock:
                now[0] -= 1

    threads = [threading.Thread(target=run) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert peak[0] == most
