"""Where a language server's time goes in a review of `gen.py`'s projects, per revision.

Each session of the review is traced from the outside (the client's calls wrapped, nothing
in the bot changed): the server's start (spawn and `initialize`), then each phase of
diagnostics — in a warm pair the head's text first and then, when the head has a finding, the
base's on the same server (`session.run_pair`); else one session per revision, the head's
first — with its requests (tsserver: a syntactic and a semantic request per file, the
project loading inside the first; gopls: one `gopls.diagnose_files`, its package load
inside), the progress the server reported, and the shutdown.

    .venv/bin/python bench/projects/phases.py [--projects ts ts-clean ts-added go-api go
                                              go-alone] [--repeat 2]

ts is gen.py's library and its change (a type error at the head); ts-clean the same library
with a change that adds no finding; ts-added the change and a new module (which the server
cannot be shown as an open document: one server per revision); go-alone the go project
with gopls alone (no golangci-lint). Each round also runs the same review asking for every
base (`ReviewOptions.fixed`, what a sweep asks for): the base diagnosed whatever the head
has, as before that cut. The ts projects need the library's own tools (see README: `npm
install --prefix ...`). The Go build cache is warm; beside golangci-lint gopls looks only
beyond what it checked (bot/lsp/scope.py), as in a real review.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))
sys.path.insert(0, str(HERE))

import gen  # noqa: E402
from run import TS_DEPS, fresh, review  # noqa: E402

from bench.repos import make_repo  # noqa: E402
from bot.lsp import session  # noqa: E402
from bot.lsp.client import LspClient  # noqa: E402
from bot.run.pipeline import ReviewOptions, run_review  # noqa: E402

PROJECTS = ("ts", "ts-clean", "ts-added", "go-api", "go", "go-alone")
CLEAN = "\nexport function extra_{n}(xs: number[]): number {{\n  return xs.length;\n}}\n"


@dataclass
class Session:
    side: str  # "pair" (both revisions on one server), "base" or "head"
    files: int
    start: float = 0.0
    steps: list[tuple[str, float]] = field(default_factory=list)  # (what, seconds)
    progress: dict[str, float] = field(default_factory=dict)  # title -> seconds, summed
    opened: dict[str, tuple[str, float]] = field(default_factory=dict)  # token -> began


class Tracer:
    """Wraps the client's calls for the length of a review; one `Session` per server."""

    def __init__(self) -> None:
        self.sessions: list[Session] = []
        self.local = threading.local()

    def current(self) -> Session | None:
        return getattr(self.local, "session", None)

    @contextmanager
    def installed(self) -> Iterator[None]:
        saved: list[tuple[Any, str, Any]] = []

        def patch(owner: Any, name: str, wrapper: Callable[[Any], Any]) -> None:
            original = getattr(owner, name) if not isinstance(owner, dict) else owner[name]
            saved.append((owner, name, original))
            if isinstance(owner, dict):
                owner[name] = wrapper(original)
            else:
                setattr(owner, name, wrapper(original))

        tracer = self

        def phases(original: Any) -> Any:
            def run(launch: Any, checkout: Path, project: Path, files: Any, hidden: Any,
                    overlays: Any, *rest: Any) -> Any:
                # The base checkout is a folder named "base" (bot.revisions.workspace).
                side = "pair" if len(overlays) > 1 else (
                    "base" if checkout.name == "base" else "head")
                record = Session(side, len(files), time.monotonic())
                tracer.sessions.append(record)
                tracer.local.session = record
                tracer.local.phase = 0
                try:
                    return original(launch, checkout, project, files, hidden, overlays, *rest)
                finally:
                    record.steps.append(("whole session", time.monotonic() - record.start))
                    tracer.local.session = None
            return run

        def step(name: str) -> Callable[[Any], Any]:
            def wrap(original: Any) -> Any:
                def call(*args: Any, **kwargs: Any) -> Any:
                    began = time.monotonic()
                    try:
                        return original(*args, **kwargs)
                    finally:
                        record = tracer.current()
                        if record is not None:
                            record.steps.append((name, time.monotonic() - began))
                return call
            return wrap

        def completion(original: Any) -> Any:
            def call(*args: Any, **kwargs: Any) -> Any:
                record = tracer.current()
                phase = getattr(tracer.local, "phase", 0)
                tracer.local.phase = phase + 1
                tracer.local.request = 0
                began = time.monotonic()
                try:
                    return original(*args, **kwargs)
                finally:
                    if record is not None:
                        record.steps.append((f"diagnostics, phase {phase + 1}",
                                             time.monotonic() - began))
            return call

        def execute(original: Any) -> Any:
            def call(client: LspClient, command: str, arguments: list[Any], timeout: Any) -> Any:
                began = time.monotonic()
                try:
                    return original(client, command, arguments, timeout)
                finally:
                    record = tracer.current()
                    if record is not None:
                        what = arguments[0] if command == "typescript.tsserverRequest" else command
                        n = getattr(tracer.local, "request", 0)
                        tracer.local.request = n + 1
                        phase = getattr(tracer.local, "phase", 1)
                        label = f"  phase {phase}: {what}" + (
                            " (the first request: the project loads here)"
                            if n == 0 and phase == 1 else " (the first request)" if n == 0
                            else "")
                        record.steps.append((label, time.monotonic() - began))
            return call

        owner: dict[int, Session] = {}  # id(client) -> its session (sessions run at once)

        def spawn(original: Any) -> Any:
            timed = step("spawn")(original)

            def call(client: LspClient, *args: Any, **kwargs: Any) -> Any:
                record = tracer.current()
                if record is not None:
                    owner[id(client)] = record
                return timed(client, *args, **kwargs)
            return call

        def on_record(original: Any) -> Any:
            def call(client: LspClient, method: str, params: dict[str, Any]) -> Any:
                record = owner.get(id(client))
                if method == "$/progress" and record is not None:
                    value = params.get("value") or {}
                    token = str(params.get("token"))
                    if value.get("kind") == "begin":
                        record.opened[token] = (str(value.get("title")), time.monotonic())
                    elif value.get("kind") == "end" and token in record.opened:
                        title, began = record.opened.pop(token)
                        record.progress[title] = record.progress.get(title, 0.0) + (
                            time.monotonic() - began)
                return original(client, method, params)
            return call

        patch(session, "_phases", phases)
        patch(LspClient, "__init__", spawn)
        patch(LspClient, "initialize", step("initialize"))
        patch(LspClient, "close", step("shutdown"))
        patch(LspClient, "execute", execute)
        patch(LspClient, "_record", on_record)
        for name in list(session._COMPLETIONS):
            patch(session._COMPLETIONS, name, completion)
        try:
            yield
        finally:
            for owner, name, original in reversed(saved):
                if isinstance(owner, dict):
                    owner[name] = original
                else:
                    setattr(owner, name, original)


def summarize(label: str, runs: list[list[Session]]) -> None:
    """Medians over the rounds, step by step (the rounds run the same sessions in order)."""
    print(f"\n{label}: median of {len(runs)} review(s)")
    shapes = {tuple((s.side, s.files, len(s.steps)) for s in r) for r in runs}
    if len(shapes) != 1:
        print(f"  (the rounds differ in their sessions: {sorted(shapes)}; the first shown)")
        runs = runs[:1]
    if not runs[0]:
        print("  no server started (the plan left nothing to look at; the tool's note says why)")
    for i, first in enumerate(runs[0]):
        print(f"  session {i + 1}: {first.side}, {first.files} file(s) diagnosed")
        rest: dict[str, list[float]] = {}  # phase -> each later request's median
        for j, (what, _) in enumerate(first.steps):
            seconds = statistics.median(r[i].steps[j][1] for r in runs)
            phase = what.strip().split(":")[0]
            if what.startswith("  ") and "first request" not in what:
                rest.setdefault(phase, []).append(seconds)
                continue
            if not what.startswith("  ") and rest.get(f"phase {what[-1]}"):
                later = rest[f"phase {what[-1]}"]
                print(f"    {sum(later):7.2f} s    {what[-7:]}: the {len(later)} other requests "
                      f"(the files' diagnostics)")
            print(f"    {seconds:7.2f} s  {what}")
        titles = sorted({t for r in runs for t in r[i].progress})
        for title in titles:
            seconds = statistics.median(r[i].progress.get(title, 0.0) for r in runs)
            print(f"    {seconds:7.2f} s  progress shown: {title}")


def bench(name: str, tmp: Path, repeat: int) -> None:
    if name.startswith("ts"):
        repo = tmp / name
        base, head = gen.ts_project()
        base[".gitignore"] = "node_modules\n"
        expect: tuple[str, ...] = ("TS2322",)
        if name == "ts-clean":  # the change adds no finding: the head alone is diagnosed
            head = {p: gen._ts_file(int(p[5:7]), CLEAN.format(n=p[5:7])) for p in head}
            expect = ()
        elif name == "ts-added":  # a new module: one server per revision, the head's first
            head["src/added.ts"] = CLEAN.format(n="added")
        make_repo(repo, base, head)
        (repo / "node_modules").symlink_to(TS_DEPS / "node_modules", target_is_directory=True)
        tools: tuple[str, ...] = ("typescript",)
    else:
        repo = tmp / name
        base, head = gen.go_project(name == "go-api")
        make_repo(repo, base, head)
        tools = ("golangci-lint", "gopls") if name != "go-alone" else ("gopls",)
        expect = (("errcheck", "WrongArgCount") if name == "go-api"
                  else () if name == "go-alone" else ("errcheck",))
    runs: list[list[Session]] = []
    walls: list[float] = []
    every: list[float] = []
    for _ in range(repeat):
        tracer = Tracer()
        with tracer.installed():
            _, parts, _ = review(repo, tools, fresh(tmp, "findings"), expect)
        runs.append(tracer.sessions)
        walls.append(parts[tools[-1]])
        # The same review asking for every base (ReviewOptions.fixed, as a sweep does): the
        # base diagnosed whatever the head has, as before.
        result = run_review(ReviewOptions(repo, base="main", only=tools, fixed=True,
                                          cache_dir=fresh(tmp, "findings")))
        every += [t.seconds or 0.0 for t in result.tools if t.name == tools[-1]]
    ours, before = statistics.median(walls), statistics.median(every)
    print(f"\n{name}: the {tools[-1]} part of the review, median {ours:.2f} s; with every base "
          f"diagnosed (fixed=True) {before:.2f} s: {ours / before:.2f}x")
    summarize(f"{name}: {tools[-1]}'s sessions", runs)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--projects", nargs="+", default=list(PROJECTS), choices=PROJECTS)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    print(f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory(prefix="bench-phases-") as tmp:
        for name in args.projects:
            bench(name, Path(tmp).resolve(), args.repeat)


if __name__ == "__main__":
    main()
