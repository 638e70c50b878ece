"""Count the HTTP requests reviewbot sends to publish N findings on a GitHub pull request, the
way `ci` publishes (from the review in memory) and the way `publish` does (from the analysis
artifact, in a folder with no checkout), side by side.

Both run the real publishing code (PyGithub + httpx) against the validating fake GitHub of the
test suite, on a fresh PR and on an unchanged re-run, and print a Markdown table.

    .venv/bin/python bench/github/count_requests.py [N ...]     (default: 1 30 300)
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "forges")]

from builders import change, finding, result, verdict  # noqa: E402
from fakegithub import FakeGitHub  # noqa: E402

from bot.ci import github_actions  # noqa: E402
from bot.commands import publish  # noqa: E402
from bot.forges.github.api import Api, Settings  # noqa: E402
from bot.model import ReviewResult  # noqa: E402
from bot.options import Delivery  # noqa: E402
from bot.publishing import publication, sinks  # noqa: E402
from bot.render.suggestion import split_lines  # noqa: E402
from bot.run import artifact  # noqa: E402

HEAD = "c" * 40
Counts = tuple[int, int]


def build(count: int) -> tuple[ReviewResult, dict[str, list[str]]]:
    lines = count + 10
    text = split_lines("".join(f"v{n} = {n}\n" for n in range(1, lines + 1)))
    found = [verdict(finding("a.py", n, message=f"v{n} unused",
                             fix=((n, 1, n + 1, 1, ""),) if n % 3 == 0 else ()), f"fp-{n}")
             for n in range(1, count + 1)]
    return result(HEAD, found, [change("a.py", range(1, lines + 1))]), {"a.py": text}


def fake_api(fake: FakeGitHub) -> Callable[[Settings], Api]:
    """The run's one API connection, pointed at the fake and not pacing its writes."""
    return lambda settings: Api(Settings(fake.api_url, fake.graphql_url, "t", "octo/demo", 7,
                                         timeout=5.0, write_spacing=0.0), sleep=lambda s: None)


def as_ci(fake: FakeGitHub, res: ReviewResult, texts: dict[str, list[str]], _: Path) -> None:
    github_actions.open_api = fake_api(fake)  # type: ignore[assignment]
    connection = github_actions.connect({}, "octo/demo", "t", 7)
    assert connection.change is not None
    sinks.deliver(connection, github_actions.GitHubActions({}),
                  publication.build(res, texts, connection.change.dialect, Delivery()), 7)


def as_publish(fake: FakeGitHub, res: ReviewResult, texts: dict[str, list[str]], folder: Path
               ) -> None:
    path = folder / "analysis.json"
    path.write_bytes(artifact.dump(artifact.build(res, texts, repository="octo/demo", number=7,
                                                  base_sha="b" * 40, target_ref="main")))
    github_actions.open_api = fake_api(fake)  # type: ignore[assignment]
    args = argparse.Namespace(files=[path], token="t", max_bytes=publish.DEFAULT_MAX_BYTES,
                              fail_level=None, tool_errors=None, max_comments=50,
                              max_file_comments=10, sarif=None, code_quality=None, dry_run=False,
                              label=False)
    publish.run(args, {"GITHUB_REPOSITORY": "octo/demo"})


def measure(count: int, how: Callable[[FakeGitHub, ReviewResult, dict[str, list[str]], Path], None]
            ) -> tuple[Counts, Counts]:
    res, texts = build(count)
    runs = []
    with FakeGitHub(HEAD, {"a.py": set(range(1, count + 11))}) as fake, \
            tempfile.TemporaryDirectory() as folder:
        for _ in range(2):  # a fresh PR, then an unchanged re-run
            fake.reset_calls()
            how(fake, res, texts, Path(folder))
            runs.append((fake.count(write=False), fake.count(write=True)))
        assert fake.errors == [], fake.errors
    return runs[0], runs[1]


def main(argv: list[str]) -> None:
    counts = [int(a) for a in argv] or [1, 30, 300]
    print("| findings | mode | fresh PR: reads | fresh PR: writes | re-run: reads | re-run: writes |")
    print("|---:|---|---:|---:|---:|---:|")
    for count in counts:
        for name, how in (("ci", as_ci), ("publish", as_publish)):
            (r1, w1), (r2, w2) = measure(count, how)
            print(f"| {count} | {name} | {r1} | {w1} | {r2} | {w2} |")
    print("\nReads: GET requests and GraphQL queries. Writes: POST/PATCH and GraphQL mutations. "
          "Default policy: at most 50 inline comments on the PR, the rest in the summary; "
          "the check run is written on every run (50 annotations per request). publish also "
          "reads the PR's files (GitHub's own diff) to check every inline position.")


if __name__ == "__main__":
    main(sys.argv[1:])
