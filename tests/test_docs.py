"""The README and docs/: a README a newcomer reads in a few screens, starting with the two
commands; snippets that are copies of files the tests run; links and anchors that resolve."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import ROOT

README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
INCLUDED = re.compile(r"<!-- from (\S+) -->\n```\w*\n(.*?)```\n", re.S)
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)|^\[[^\]]+\]:\s*(\S+)", re.M)
FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def test_the_readme_fits_on_a_few_screens_and_starts_with_the_two_commands() -> None:
    text = README.read_text("utf-8")
    assert len(text.splitlines()) <= 250
    first = text.split("```sh\n", 1)[1].split("```", 1)[0].splitlines()
    assert [line.split("#")[0].strip() for line in first] == [
        "scripts/setup && examples/demo/run", "scripts/test"]
    assert (ROOT / "examples" / "demo" / "run").is_file() and (ROOT / "scripts" / "test").is_file()


def test_the_readme_s_snippets_are_the_files_the_tests_run() -> None:
    text = README.read_text("utf-8")
    included = INCLUDED.findall(text)
    assert {path for path, _ in included} >= {"examples/github/pull-request.yml",
                                              "examples/gitlab/remote.yml",
                                              "examples/pre-commit-config.yaml"}
    for path, body in included:
        assert (ROOT / path).read_text("utf-8") == body, f"README's copy of {path} differs"
    # Every other YAML block of the README is one of these: none is written by hand.
    assert text.count("```yaml\n") == len(included)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = FENCE.sub("", page.read_text("utf-8"))
    seen: Counter[str] = Counter()
    out = set()
    for heading in re.findall(r"^#+ (.+)$", text, re.M):
        base = slug(heading)
        out.add(base if not seen[base] else f"{base}-{seen[base]}")
        seen[base] += 1
    return out


def broken_links(page: Path) -> list[str]:
    text = FENCE.sub("", page.read_text("utf-8"))
    out = []
    for inline, reference in LINK.findall(text):
        target = inline or reference
        if re.match(r"[a-z]+:", target):  # https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        where = (page.parent / path).resolve() if path else page
        if not where.exists():
            out.append(f"{page.name}: {target} (no such file)")
        elif anchor and where.suffix == ".md" and anchor not in anchors(where):
            out.append(f"{page.name}: {target} (no such heading)")
    return out


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_link_resolves(page: Path) -> None:
    assert broken_links(page) == []


def test_the_link_check_can_fail(tmp_path: Path) -> None:
    page = tmp_path / "p.md"
    page.write_text("# A `b` c\n\n[x](nope.md) [y](#a-b-c) [z](#gone) [w](p.md#a-b-c)\n")
    assert broken_links(page) == ["p.md: nope.md (no such file)", "p.md: #gone (no such heading)"]


def test_the_documented_rule_finds_and_rewrites_what_it_says(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from bot.cli import main

    page = (ROOT / "docs" / "commands.md").read_text("utf-8")
    [rule] = [b.split("```", 1)[0] for b in page.split("```yaml\n")[1:] if "id: log-not-print" in b]
    (tmp_path / "rule.yml").write_text(rule)
    (tmp_path / "a.py").write_text("print(0)\n\n\ndef f():\n    print(1, 2)\n")
    monkeypatch.chdir(tmp_path)
    assert main(["ast-grep", "--rule", "rule.yml", "a.py", "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert [m["range"]["start"]["line"] for m in found] == [5]  # inside a function only
    assert main(["ast-edit", "--rule", "rule.yml", "--stage", "plan.json", "a.py"]) == 0
    assert main(["ast-edit", "--apply", "plan.json"]) == 0
    assert (tmp_path / "a.py").read_text() == "print(0)\n\n\ndef f():\n    log(1, 2)\n"


# How the docs and the files users copy name a release of reviewbot.
RELEASE_REF = re.compile(r"OWNER/reviewbot(?:/actions/[a-z]+)?@([\w.]+)|^\s*rev: (\S+)|/gitlab@([\w.]+)"
                         r"|reviewbot/(v[\w.]+)/|ghcr\.io/OWNER/reviewbot:([0-9XYZ.]+)", re.M)


def release_refs(text: str) -> list[str]:
    return [next(g for g in m.groups() if g) for m in RELEASE_REF.finditer(text)]


def test_every_reference_to_a_release_names_a_tag_the_release_makes() -> None:
    """The release moves v0 and v0.1 to v0.1.0 (vX and vX.Y from 1.0 on) and tags the images
    0, 0.1 and 0.1.0 (docs/release.md): no `@v1` before 1.0, no tag that cannot exist."""
    major, minor, patch = re.search(r'(?m)^version = "(\d+)\.(\d+)\.(\d+)"',
                                    (ROOT / "pyproject.toml").read_text()).groups()
    made = {f"v{major}", f"v{major}.{minor}", f"v{major}.{minor}.{patch}", major,
            f"{major}.{minor}", f"{major}.{minor}.{patch}",
            "vX", "vX.Y", "vX.Y.Z", "X", "X.Y", "X.Y.Z",  # the placeholders README explains
            "main", "sha256"}  # a branch and a digest: named as what they are, not releases
    files = [*PAGES, *(ROOT / "examples").rglob("*.y*ml"), *(ROOT / "templates").rglob("*.yml")]
    wrong = [f"{p.relative_to(ROOT)}: {ref}" for p in files
             for ref in release_refs(p.read_text("utf-8")) if ref not in made]
    assert not wrong, wrong


def test_the_release_reference_check_can_fail() -> None:
    assert release_refs("uses: OWNER/reviewbot@v1\n  rev: v1\nghcr.io/OWNER/reviewbot:0.9.9-python") \
        == ["v1", "v1", "0.9.9"]
