"""Regenerates docs/gallery/: what the bot posts, rendered as GitHub and GitLab show it.

A real review of the bundled example (examples/demo/make-repo, with fixed commit dates so the shas
and the pictures do not change from run to run), published nowhere: the summary comment, one
inline comment (with its one-click suggestion) and the same comment as a GitLab note are
rendered to HTML by the GFM parser the tests use (tests/gfm.py), inside a small GitHub-like
stylesheet, then photographed by headless Chromium. `--html-only` stops before Chromium (the
test suite runs that step; Chromium is needed only to refresh the PNGs).

Usage: .venv/bin/python scripts/gallery.py [--out DIR] [--html-only] [--only TOOL ...]
"""

from __future__ import annotations

import argparse
import html
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.forges.github import change as github  # noqa: E402
from bot.forges.gitlab import change as gitlab  # noqa: E402
from bot.forges.gitlab.notes import defuse  # noqa: E402
from bot.positions import split_lines  # noqa: E402
from bot.publishing import summary  # noqa: E402
from bot.publishing.gate import decide  # noqa: E402
from bot.publishing.placement import Item, Placed  # noqa: E402
from bot.publishing.policy import place  # noqa: E402
from bot.render.dialect import Dialect  # noqa: E402
from bot.run.pipeline import ReviewOptions, run_review  # noqa: E402
from tests.gfm import render_html  # noqa: E402

WIDTH = 920
FIXED_DATE = "2026-01-05T12:00:00+00:00"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--hide-scrollbars", "--force-device-scale-factor=1"]
HEIGHT_PROBE = ("<script>document.body.setAttribute('data-height', "
                "Math.ceil(document.documentElement.getBoundingClientRect().height))</script>")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "gallery")
    parser.add_argument("--html-only", action="store_true", help="write the HTML, take no pictures")
    parser.add_argument("--only", action="append", help="review with this tool only (repeatable)")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="reviewbot-gallery-") as scratch:
        pages = build(Path(scratch), tuple(args.only) if args.only else None)
        for name, page in pages.items():
            (args.out / f"{name}.html").write_text(page, encoding="utf-8")
        if not args.html_only:
            browser = shutil.which("chromium") or shutil.which("chromium-browser")
            if browser is None:
                print("scripts/gallery: chromium is not installed (apt-get install chromium); "
                      "wrote the HTML only", file=sys.stderr)
                return 2
            for name in pages:
                shoot(browser, args.out / f"{name}.html", args.out / f"{name}.png", Path(scratch))
    print("\n".join(str(args.out / f"{name}.{ext}") for name in pages
                    for ext in (("html",) if args.html_only else ("html", "png"))))
    return 0


def build(scratch: Path, only: tuple[str, ...] | None) -> dict[str, str]:
    """The review of the example, rendered: {name: standalone HTML page}."""
    env = {**os.environ, "GIT_AUTHOR_DATE": FIXED_DATE, "GIT_COMMITTER_DATE": FIXED_DATE}
    repo = Path(subprocess.run([str(ROOT / "examples" / "demo" / "make-repo"), str(scratch / "shop")],
                               check=True, capture_output=True, text=True, env=env).stdout.strip())
    result = run_review(ReviewOptions(repo=repo, base="main", only=only,
                                      cache_dir=scratch / "cache"))
    texts = {c.path: split_lines((repo / c.path).read_text(encoding="utf-8"))
             for c in result.changes if (repo / c.path).is_file()}
    gate = decide(result)
    placed = Placed(place(result, texts, dialect=github.DIALECT))
    page = summary.render(result, placed, gate, texts)
    item = _showcase(placed.items)
    note = next(i for i in place(result, texts, dialect=gitlab.DIALECT)
                if i.key == item.key and i.body is not None)
    assert item.body is not None and note.body is not None
    changed = next(c.changed_lines for c in result.changes if c.path == item.verdict.finding.path)
    return {
        "summary": _page("reviewbot summary", _comment(page, "github")),
        "inline-comment": _page("reviewbot inline comment",
                                _inline(item, item.body.text, texts, changed, github.DIALECT)),
        "gitlab-note": _page("reviewbot GitLab note",
                             _inline(note, defuse(note.body.text), texts, changed, gitlab.DIALECT)),
    }


def _showcase(items: Sequence[Item]) -> Item:
    """The inline comment worth showing: one with a suggestion, a `changed` one first."""
    inline = [i for i in items if i.kind == "inline" and i.body is not None]
    offered = [i for i in inline if "suggestion" in (i.body.text if i.body else "")]
    return sorted(offered or inline, key=lambda i: i.verdict.scope != "changed")[0]


def _comment(markdown: str, forge: str, texts: Sequence[str] = (), anchor: tuple[int, int] = (0, 0)
             ) -> str:
    who = ("<b>github-actions</b> <span class=label>bot</span> commented" if forge == "github"
           else "<b>reviewbot</b> <span class=label>@project_bot</span> started a thread")
    body = _suggestions(render_html(markdown), texts, anchor)
    return (f"<div class='comment {forge}'><div class=head><span class=avatar>R</span>{who}"
            f"</div><div class=markdown-body>{body}</div></div>")


def _suggestions(rendered: str, texts: Sequence[str], anchor: tuple[int, int]) -> str:
    """A suggestion fence shown as the forges show it: the lines it replaces, then the new
    lines (a "Suggested change" box). `anchor` is the comment's first and last line; GitLab's
    `suggestion:-A+B` counts from the last."""
    def box(found: re.Match[str]) -> str:
        new = html.unescape(found.group(2)).split("\n")[:-1]
        relative = re.fullmatch(r"suggestion:-(\d+)\+(\d+)", found.group(1))
        start, end = anchor
        if relative:
            start, end = end - int(relative.group(1)), end + int(relative.group(2))
        old = [t.rstrip("\r\n") for t in texts[start - 1:end]]
        rows = "".join(f"<div class=del>- {html.escape(t)}</div>" for t in old)
        rows += "".join(f"<div class=add>+ {html.escape(t)}</div>" for t in new)
        return f"<div class=suggestion><div class=title>Suggested change</div>{rows}</div>"
    return re.sub(r'<pre><code class="language-(suggestion\S*)">(.*?)</code></pre>', box,
                  rendered, flags=re.DOTALL)


def _inline(item: Item, markdown: str, texts: dict[str, list[str]], changed: frozenset[int],
            dialect: Dialect) -> str:
    """The comment under the diff lines it sits on, as a pull request's Files tab shows it."""
    lines = texts[item.verdict.finding.path]
    assert item.line is not None
    start = item.start_line or item.line
    rows = "".join(f"<tr class={'add' if n in changed else 'same'}><td class=num>{n}</td>"
                   f"<td class=code>{'+' if n in changed else ' '} "
                   f"{html.escape(lines[n - 1].rstrip())}</td></tr>"
                   for n in range(max(1, start - 3), item.line + 1))
    path = html.escape(item.verdict.finding.path)
    comment = _comment(markdown, dialect.name, lines, (start, item.line))
    return (f"<div class=file><div class=path>{path}</div><table class=diff>{rows}</table>"
            f"<div class=thread>{comment}</div></div>")


def _page(title: str, content: str) -> str:
    return (f"<!doctype html><html><head><meta charset=utf-8><title>{title}</title>"
            f"<link rel=stylesheet href=style.css></head><body>{content}{HEIGHT_PROBE}</body></html>\n")


def shoot(browser: str, page: Path, png: Path, scratch: Path) -> None:
    """A screenshot of the whole page: one run measures its height, the second takes it."""
    profile = scratch / "chromium"
    base = [browser, *CHROMIUM_FLAGS, f"--user-data-dir={profile}"]
    url = page.resolve().as_uri()
    dom = subprocess.run([*base, f"--window-size={WIDTH},800", "--dump-dom", url], check=True,
                         capture_output=True, text=True, timeout=120).stdout
    found = re.search(r'data-height="(\d+)"', dom)
    height = int(found.group(1)) if found else 1200
    subprocess.run([*base, f"--window-size={WIDTH},{height}", f"--screenshot={png}", url],
                   check=True, capture_output=True, timeout=120)
    shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
