"""From "the job starts" to "the review is published", for each way a runner can start
reviewbot, side by side on this machine, with reviewdog's set-up and run as the peer.

    .venv/bin/python bench/start/run.py [--flavors python,node,go,rust,full] [--no-cold]
                                        [--port 5123] [--native-only] [--repeat 1]

Every path reviews the bundled example change (examples/demo/: Python and JavaScript) as a
pull_request event and publishes the review to the validating fake GitHub on loopback (the
one the tests use), a fresh pull request for each path:

- **Dockerfile, cold**: what `image: Dockerfile` costs on every run: the full image built
  (`buildah bud`) into an empty storage with empty cache mounts, its base images pulled from
  the local registry (the stand-ins of scripts/image-standins), then the review in it.
- **image FLAVOR**: the released image pulled from the local registry into an empty storage
  (download and unpack), a container started and the review run in it, as the runner runs a
  Docker action: the action's entry point with its INPUT_* variables.
- **no container**: actions/native/install.sh from a local wheelhouse (no index), then
  actions/native/review.sh, with this machine's toolchains and the project's tools on PATH (the
  repository's own, which the workflow's earlier steps install); set up four ways (SETUPS):
  pip as before, uv from the index (the runner has none), the runner's own uv, and the
  virtualenv restored from the cache (warm).
- **reviewdog**: its set-up as reviewdog/action-setup does it (download the release archive
  and unpack it; here from loopback) and `ruff check --output-format=rdjson | reviewdog
  -f=rdjson -reporter=local -filter-mode=added`: ruff only, no publishing.

Needs root, buildah, docker-registry (Debian's package) and the flavors built with
scripts/build-image (REVIEWBOT_FLAVOR=F, tag localhost/reviewbot:dev-F; full is
localhost/reviewbot:dev). Also prints each flavor's compressed size (what the registry
serves: gzip layers and the config) and uncompressed size. Exit status 2: something it needs
is missing (named).
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
OUT = ROOT / "bench" / "out" / "start"
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "forges")]

from containers import (  # noqa: E402
    Store,
    fresh_store,
    push,
    registry,
    run_in,
    sizes,
)
from fakegithub import FakeGitHub  # noqa: E402

from tests.ci.test_github_actions import opened_pull_request  # noqa: E402

FLAVORS = ("python", "node", "go", "rust", "full")
UID = 1001  # the images' user (Dockerfile), who owns a hosted runner's workspace
MB = 1e6


@dataclass(frozen=True)
class Row:
    path: str
    download: str  # what the path downloads, in MB
    setup: float  # build, pull or install
    review: float  # container start (if any) and the review
    status: int
    published: tuple[int, bool]  # inline comments, whether the summary was published

    @property
    def total(self) -> float:
        return self.setup + self.review


def local_image(flavor: str) -> str:
    return "localhost/reviewbot:dev" if flavor == "full" else f"localhost/reviewbot:dev-{flavor}"


def git(repo: Path, *args: str) -> str:
    # -c safe.directory: a job's checkout belongs to the images' user, as on a runner.
    return subprocess.run(["git", "-c", "safe.directory=*", "-C", str(repo), *args], check=True,
                          capture_output=True, text=True).stdout.strip()


@dataclass(frozen=True)
class Job:
    """A runner's job folder: the checkout (`workspace/`), the event, the file commands."""

    root: Path
    base: str
    head: str

    @property
    def workspace(self) -> Path:
        return self.root / "workspace"

    def diff(self) -> dict[str, set[int]]:
        """Every line of each changed file: what the fake GitHub accepts comments on."""
        names = git(self.workspace, "diff", "--name-only", self.base, self.head).splitlines()
        return {n: set(range(1, len((self.workspace / n).read_text().splitlines()) + 1))
                for n in names if (self.workspace / n).is_file()}


def new_job(where: Path, owner: int | None = None) -> Job:
    """The bundled example repository checked out at its feature branch, as actions/checkout
    leaves it, with the pull_request event of the change."""
    shutil.rmtree(where, ignore_errors=True)
    (where / "workflow").mkdir(parents=True)
    (where / "file_commands").mkdir()
    (where / "home").mkdir()
    subprocess.run([str(ROOT / "examples" / "demo" / "make-repo"), str(where / "workspace")], check=True,
                   capture_output=True)
    job = Job(where, git(where / "workspace", "rev-parse", "main"),
              git(where / "workspace", "rev-parse", "feature"))
    (where / "workflow" / "event.json").write_text(json.dumps(opened_pull_request(job.base, job.head)))
    for name in ("output", "summary"):
        (where / "file_commands" / name).touch()
    if owner is not None:
        for path in [where, *where.rglob("*")]:
            os.lchown(path, owner, owner)
    return job


def action_env(fake: FakeGitHub, github: str, token_name: str) -> dict[str, str]:
    """What the runner gives the action's step: its inputs and the GITHUB_* variables, with
    `github` the folder holding workspace/, workflow/ and file_commands/."""
    return {
        token_name: "ghs_bench", "INPUT_MODE": "review", "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": f"{github}/workflow/event.json",
        "GITHUB_REPOSITORY": "octo/demo", "GITHUB_API_URL": fake.api_url,
        "GITHUB_GRAPHQL_URL": fake.graphql_url, "GITHUB_WORKSPACE": f"{github}/workspace",
        "GITHUB_OUTPUT": f"{github}/file_commands/output",
        "GITHUB_STEP_SUMMARY": f"{github}/file_commands/summary", "HOME": f"{github}/home",
    }


def entry_point() -> list[str]:
    runs = yaml.safe_load((ROOT / "action.yml").read_text())["runs"]
    return [runs["entrypoint"], *runs["args"]]


def review_in(store: Store, image: str, job: Job) -> tuple[float, int, tuple[int, bool]]:
    """A container of `image` runs the action's step on `job`: seconds, status, and what was
    published (inline comments, whether the summary was)."""
    with FakeGitHub(job.head, job.diff()) as fake:
        start = time.monotonic()
        done = run_in(store, image, entry_point(), action_env(fake, "/github", "INPUT_GITHUB-TOKEN"),
                      [(job.root, "/github")], "/github/workspace")
        seconds = time.monotonic() - start
        published = (len(fake.bot_comments()), bool(fake.summaries()) and not fake.errors)
    if done.returncode not in (0, 1, 4):
        print(done.stdout[-3000:], done.stderr[-3000:], file=sys.stderr)
    return seconds, done.returncode, published


def timed(step: Callable[[], object]) -> float:
    start = time.monotonic()
    step()
    return time.monotonic() - start


def flavor_path(flavor: str, address: str, size: int) -> Row:
    """The released image pulled into an empty storage, a container started, the review."""
    image = f"{address}/reviewbot:{flavor}"
    with fresh_store(OUT / "stores", f"pull-{flavor}") as store:
        job = new_job(OUT / "jobs" / flavor, owner=UID)
        pull = timed(lambda: store.run("pull", "--tls-verify=false", "--quiet", f"docker://{image}"))
        seconds, status, published = review_in(store, image, job)
    return Row(f"image `{flavor}`, pulled", f"{size / MB:.0f}", pull, seconds, status, published)


def standin_args(store: Store, address: str) -> list[str]:
    """The build arguments that select the stand-in base images, pushed to the registry."""
    done = subprocess.run([str(ROOT / "scripts" / "image-standins")], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"scripts/image-standins: {done.stderr.strip()[-2000:]}")
    args = done.stdout.split()
    out: list[str] = []
    for flag, value in zip(args[::2], args[1::2], strict=True):
        name, local = value.split("=", 1)
        remote = f"{address}/{local.removeprefix('localhost/')}"
        push(store, local, address, remote.split("/", 1)[1])
        out += [flag, f"{name}={remote}"]
    return out


def cold_path(project: Store, address: str) -> Row:
    """`image: Dockerfile`: the full image built with nothing cached, then the review."""
    args = standin_args(project, address)
    with fresh_store(OUT / "stores", "cold") as store, tempfile.TemporaryDirectory(dir=OUT) as tmp:
        job = new_job(OUT / "jobs" / "cold", owner=UID)
        build = timed(lambda: store.run(
            "bud", "--layers", "--pull=always", "--tls-verify=false", *args, "--target", "full",
            "--tag", "localhost/reviewbot:cold", "--file", str(ROOT / "Dockerfile"), str(ROOT),
            env={"TMPDIR": tmp}))  # buildah keeps its cache mounts under TMPDIR: empty here
        seconds, status, published = review_in(store, "localhost/reviewbot:cold", job)
    return Row("Dockerfile, built cold (full)", "-", build, seconds, status, published)


def wheelhouse() -> Path:
    """The bot's wheel and its dependencies', and uv's (downloaded once; the bot's rebuilt
    each run): the package index a runner's install reads, on loopback."""
    folder = OUT / "wheelhouse"
    for old in folder.glob("reviewbot-*.whl"):
        old.unlink()
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--wheel-dir", str(folder),
                    str(ROOT)], check=True)
    if not any(folder.glob("uv-*.whl")):
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                        "--dest", str(folder), "uv"], check=True)
    return folder


# The no-container set-ups, each from the same wheelhouse into a fresh RUNNER_TEMP:
#   pip       what install.sh did before (python -m venv, pip install): the reference
#   uv cold   uv from the wheelhouse by pip (the runner has none), uv's cache empty
#   uv ready  the runner's own uv (astral-sh/setup-uv, or a runner image with it), cache empty
#   warm      actions/cache's restore (a zstd tar of the virtualenv, unpacked), then
#             install.sh finding it the version asked for
SETUPS = ("pip", "uv cold", "uv ready", "warm")


def composite_path(house: Path, setup: str = "uv cold") -> Row:
    """actions/native/action.yml's steps: install from the wheelhouse, then the review."""
    job = new_job(OUT / "jobs" / "composite")
    version = next(house.glob("reviewbot-*.whl")).name.split("-")[1]
    tools = [ROOT / "tools" / "node_modules" / ".bin", Path(sys.executable).parent]
    path = os.pathsep.join([*map(str, tools), os.environ.get("PATH", "")])
    runner_temp = OUT / "runner-temp"
    shutil.rmtree(runner_temp, ignore_errors=True)
    runner_temp.mkdir(parents=True)
    own_uv = OUT / "runner-uv"  # what setup-uv leaves on PATH
    if setup == "uv ready":
        path = os.pathsep.join([str(own_uv / "bin"), path])
    base = {"PATH": path, "HOME": str(job.root / "home"), "RUNNER_TEMP": str(runner_temp),
            "GITHUB_ACTION_PATH": str(ROOT / "actions" / "native")}
    cache = fresh_folder(OUT / "uv-cache")
    install_env = {**{k: v for k, v in os.environ.items() if k != "PATH"}, **base,
                   "REVIEWBOT_VERSION": version, "PIP_NO_INDEX": "1",
                   "PIP_FIND_LINKS": str(house), "UV_CACHE_DIR": str(cache),
                   "GITHUB_OUTPUT": str(job.root / "install-output"),
                   "REVIEWBOT_PYTHON": sys.executable}
    install_env.pop("VIRTUAL_ENV", None)
    archive = OUT / "venv-cache.tar.zst"
    if setup == "uv ready" and not (own_uv / "bin" / "uv").is_file():
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-index",
                        "--find-links", str(house), "--target", str(own_uv), "uv"], check=True)
    if setup == "warm":
        # What a cold run saved: the virtualenv right after the install (the action saves it
        # before the review), as actions/cache archives it.
        run_install(install_env, "uv cold")
        (job.root / "install-output").unlink()
        subprocess.run(["tar", "--use-compress-program", "zstd -T0", "-cf", str(archive),
                        "-C", str(runner_temp), "reviewbot"], check=True)
        shutil.rmtree(runner_temp)
        runner_temp.mkdir()
    start = time.monotonic()
    if setup == "warm":
        subprocess.run(["tar", "--use-compress-program", "zstd -d", "-xf", str(archive),
                        "-C", str(runner_temp)], check=True)
    if setup == "pip":
        home = runner_temp / "reviewbot"
        subprocess.run([sys.executable, "-m", "venv", str(home)], check=True, env=install_env)
        subprocess.run([str(home / "bin" / "python"), "-m", "pip", "install", "--quiet",
                        "--disable-pip-version-check", f"reviewbot=={version}"],
                       env=install_env, check=True, capture_output=True)
        (job.root / "install-output").write_text(f"home={home}\n")
    else:
        run_install(install_env, setup)
    install = time.monotonic() - start
    home = (job.root / "install-output").read_text().split("home=", 1)[1].strip()
    with FakeGitHub(job.head, job.diff()) as fake:
        env = {**base, **action_env(fake, str(job.root), "INPUT_GITHUB_TOKEN"), "REVIEWBOT_HOME": home}
        start = time.monotonic()
        done = subprocess.run(["bash", str(ROOT / "actions" / "native" / "review.sh")], env=env,
                              cwd=job.workspace, capture_output=True, text=True)
        seconds = time.monotonic() - start
        published = (len(fake.bot_comments()), bool(fake.summaries()) and not fake.errors)
    wheels = [p for p in house.glob("*.whl") if setup == "uv cold" or not p.name.startswith("uv-")]
    size = (archive.stat().st_size if setup == "warm"
            else sum(p.stat().st_size for p in wheels))
    return Row(f"no container, {setup} (wheelhouse)", f"{size / MB:.0f}", install, seconds,
               done.returncode, published)


def run_install(env: dict[str, str], setup: str) -> None:
    """install.sh, which must have taken the way `setup` says."""
    done = subprocess.run(["bash", str(ROOT / "actions" / "native" / "install.sh")], env=env,
                          capture_output=True, text=True)
    said = "from the cached virtualenv" if setup == "warm" else "by uv"
    if done.returncode != 0 or said not in done.stderr:
        raise RuntimeError(f"install.sh ({setup}): {done.stderr.strip()[-2000:]}")


def fresh_folder(path: Path) -> Path:
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)
    return path


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        return


@contextmanager
def serve(folder: Path) -> Iterator[str]:
    """`folder` over HTTP on loopback: the release download reviewdog's set-up makes."""
    handler = functools.partial(QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def reviewdog_path() -> Row:
    """reviewdog/action-setup (download and unpack the release) and its run on ruff's rdjson."""
    binary = ROOT / "tools" / "bin" / "reviewdog"
    release = OUT / "release"
    release.mkdir(parents=True, exist_ok=True)
    with tarfile.open(release / "reviewdog.tar.gz", "w:gz") as archive:
        archive.add(binary, "reviewdog")
    job = new_job(OUT / "jobs" / "reviewdog")
    unpacked = OUT / "reviewdog-bin"
    shutil.rmtree(unpacked, ignore_errors=True)
    with serve(release) as url:
        start = time.monotonic()
        with urllib.request.urlopen(f"{url}/reviewdog.tar.gz") as answer, \
                tarfile.open(fileobj=answer, mode="r|gz") as archive:
            archive.extractall(unpacked, filter="data")
        setup = time.monotonic() - start
    ruff = Path(sys.executable).parent / "ruff"
    changed = [n for n in job.diff() if n.endswith(".py")]
    script = (f"{ruff} check --output-format=rdjson {' '.join(changed)} | {unpacked}/reviewdog "
              f"-f=rdjson -reporter=local -filter-mode=added -diff='git diff {job.base} {job.head}'")
    start = time.monotonic()
    done = subprocess.run(["sh", "-c", script], cwd=job.workspace, capture_output=True, text=True)
    run = time.monotonic() - start
    size = (release / "reviewdog.tar.gz").stat().st_size
    return Row("reviewdog (set-up + ruff, local)", f"{size / MB:.0f}", setup, run, done.returncode,
               (0, False))


def table(rows: list[Row]) -> str:
    lines = ["| path | downloads (MB) | set-up (s) | start + review (s) | total (s) | exit "
             "| inline comments | summary |", "|---|---:|---:|---:|---:|---:|---:|---|"]
    lines += [f"| {r.path} | {r.download} | {r.setup:.1f} | {r.review:.1f} | **{r.total:.1f}** | "
              f"{r.status} | {r.published[0]} | {'yes' if r.published[1] else 'no'} |" for r in rows]
    return "\n".join(lines)


def missing() -> list[str]:
    out = [f"{tool} (Debian package {tool})" for tool in ("buildah", "docker-registry")
           if shutil.which(tool) is None]
    if os.geteuid() != 0:
        out.append("root (buildah's chroot isolation)")
    if not (ROOT / "tools" / "bin" / "reviewdog").is_file():
        out.append("tools/bin/reviewdog (scripts/setup)")
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--flavors", default=",".join(FLAVORS),
                        help="the flavors to pull and run (comma-separated; default all)")
    parser.add_argument("--no-cold", action="store_true", help="skip the cold Dockerfile build")
    parser.add_argument("--port", type=int, default=5123, help="the local registry's port")
    parser.add_argument("--sizes-only", action="store_true",
                        help="push the flavors and print their sizes, time nothing")
    parser.add_argument("--native-only", action="store_true",
                        help="only the no-container set-ups and reviewdog (no buildah, no images)")
    parser.add_argument("--repeat", type=int, default=1,
                        help="rounds of the no-container set-ups and reviewdog (medians shown)")
    args = parser.parse_args()
    if args.native_only:
        if not (ROOT / "tools" / "bin" / "reviewdog").is_file():
            print("bench/start: missing tools/bin/reviewdog (scripts/setup)", file=sys.stderr)
            return 2
        OUT.mkdir(parents=True, exist_ok=True)
        print(table(native_rows(args.repeat)))
        return 0
    flavors = [f for f in args.flavors.split(",") if f]
    unknown = sorted(set(flavors) - set(FLAVORS))
    if unknown:
        print(f"bench/start: unknown flavor(s) {', '.join(unknown)} (use {', '.join(FLAVORS)})",
              file=sys.stderr)
        return 2
    needed = missing()
    project = Store.project()
    needed += [f"{local_image(f)} (REVIEWBOT_FLAVOR={f} scripts/build-image)" for f in flavors
               if not project.has(local_image(f))]
    if args.sizes_only:
        needed = [n for n in needed if not n.startswith("tools/bin/reviewdog")]
    if needed:
        print("bench/start: missing " + "; ".join(needed), file=sys.stderr)
        return 2
    OUT.mkdir(parents=True, exist_ok=True)
    rows: list[Row] = []
    size_rows = ["| flavor | compressed (MB) | uncompressed (MB) |", "|---|---:|---:|"]
    with registry(OUT / "registry", args.port) as address:
        pushed: dict[str, int] = {}
        for flavor in flavors:
            push(project, local_image(flavor), address, f"reviewbot:{flavor}")
            pushed[flavor], unpacked = sizes(address, f"reviewbot:{flavor}")
            size_rows.append(f"| {flavor} | {pushed[flavor] / MB:.0f} | {unpacked / MB:.0f} |")
        print("\n".join(size_rows), flush=True)
        if args.sizes_only:
            return 0
        if not args.no_cold:
            rows.append(cold_path(project, address))
            print(table(rows), flush=True)
        for flavor in flavors:
            rows.append(flavor_path(flavor, address, pushed[flavor]))
    rows += native_rows(args.repeat)
    print()
    print(table(rows))
    return 0


def native_rows(repeat: int) -> list[Row]:
    """Each no-container set-up and reviewdog's, `repeat` rounds alternating, medians."""
    house = wheelhouse()
    runs: dict[str, list[Row]] = {}
    for _ in range(repeat):
        for setup in SETUPS:
            runs.setdefault(setup, []).append(composite_path(house, setup))
        runs.setdefault("reviewdog", []).append(reviewdog_path())
    for name, rows in runs.items():  # each round's, beside the medians
        print(f"{name}: set-up " + ", ".join(f"{r.setup:.1f}" for r in rows) + " s; review "
              + ", ".join(f"{r.review:.1f}" for r in rows) + " s", file=sys.stderr)
    return [median_row(rows) for rows in runs.values()]


def median_row(rows: list[Row]) -> Row:
    return Row(rows[0].path, rows[0].download, statistics.median(r.setup for r in rows),
               statistics.median(r.review for r in rows), rows[-1].status, rows[-1].published)


if __name__ == "__main__":
    sys.exit(main())
