"""Count the HTTP requests reviewbot sends to publish N findings on a GitHub pull request.

Runs the real publish flow (PyGithub + httpx) against the validating fake GitHub of the test
suite, on a fresh PR and on an unchanged re-run, and prints a Markdown table.

    .venv/bin/python bench/github/count_requests.py [N ...]     (default: 1 30 300)
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "forges")]

from builders import change, finding, result, verdict  # noqa: E402
from fakegithub import FakeGitHub  # noqa: E402

from bot.forges.base import StatusReport, status_annotations  # noqa: E402
from bot.forges.github import GitHubForge, Settings  # noqa: E402
from bot.gate import Gate  # noqa: E402
from bot.model import ReviewResult  # noqa: E402
from bot.publish import review  # noqa: E402
from bot.render.suggestion import split_lines  # noqa: E402
from bot.review import Policy  # noqa: E402

HEAD = "c" * 40


def build(count: int) -> tuple[ReviewResult, dict[str, list[str]]]:
    lines = count + 10
    text = split_lines("".join(f"v{n} = {n}\n" for n in range(1, lines + 1)))
    found = [verdict(finding("a.py", n, message=f"v{n} unused",
                             fix=((n, 1, n + 1, 1, ""),) if n % 3 == 0 else ()), f"fp-{n}")
             for n in range(1, count + 1)]
    return result(HEAD, found, [change("a.py", range(1, lines + 1))]), {"a.py": text}


def one_run(fake: FakeGitHub, res: ReviewResult, texts: dict[str, list[str]]) -> tuple[int, int]:
    fake.reset_calls()
    forge = GitHubForge(Settings(fake.api_url, fake.graphql_url, "t", "octo/demo", 7,
                                 timeout=5.0, write_spacing=0.0), sleep=lambda s: None)
    outcome = review(forge, res, texts, Policy(), Gate(1, "error"), settle=0)
    assert outcome.status == "published", outcome
    forge.check(StatusReport("reviewbot", HEAD, "failure", "t", "s", status_annotations(res)))
    return fake.count(write=False), fake.count(write=True)


def measure(count: int) -> tuple[tuple[int, int], tuple[int, int]]:
    res, texts = build(count)
    with FakeGitHub(HEAD, {"a.py": set(range(1, count + 11))}) as fake:
        fresh = one_run(fake, res, texts)
        again = one_run(fake, res, texts)
        assert fake.errors == [], fake.errors
    return fresh, again


def main(argv: list[str]) -> None:
    counts = [int(a) for a in argv] or [1, 30, 300]
    print("| findings | fresh PR: reads | fresh PR: writes | re-run: reads | re-run: writes |")
    print("|---:|---:|---:|---:|---:|")
    for count in counts:
        (r1, w1), (r2, w2) = measure(count)
        print(f"| {count} | {r1} | {w1} | {r2} | {w2} |")
    print("\nReads: GET requests and GraphQL queries. Writes: POST/PATCH and GraphQL mutations. "
          "Default policy: at most 50 inline comments on the PR, the rest in the summary; "
          "the check run is written on every run (50 annotations per request).")


if __name__ == "__main__":
    main(sys.argv[1:])
