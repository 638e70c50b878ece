"""The gallery (docs/gallery/, made by scripts/gallery) and the README that shows it.

Taking the pictures needs Chromium; the suite checks what does not: the committed pictures are
PNGs of the page width, and the script's HTML step renders a real review of the example.
"""

from __future__ import annotations

import re
import struct
import subprocess
import sys
from pathlib import Path

from tests import gfm

ROOT = Path(__file__).resolve().parents[2]
GALLERY = ROOT / "docs" / "gallery"
PICTURES = ("summary", "inline-comment", "gitlab-note")


def test_the_committed_pictures_are_pngs_of_the_page_width() -> None:
    for name in PICTURES:
        data = (GALLERY / f"{name}.png").read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
        width, height = struct.unpack(">II", data[16:24])
        assert width == 920 and 200 < height < 4000, (name, width, height)


def test_the_html_step_renders_a_real_review_of_the_example(tmp_path: Path) -> None:
    run = subprocess.run([sys.executable, str(ROOT / "scripts" / "gallery.py"), "--html-only",
                          "--out", str(tmp_path), "--only", "ruff"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    summary = (tmp_path / "summary.html").read_text()
    assert "<h2>reviewbot</h2>" in summary and "Caused outside the diff" in summary
    assert "<!-- reviewbot:summary -->" in summary  # hidden: an HTML comment, shown by no one
    comment = (tmp_path / "inline-comment.html").read_text()
    assert "class=suggestion" in comment and "█" in comment and "<del>" not in comment
    note = (tmp_path / "gitlab-note.html").read_text()
    assert "class='comment gitlab'" in note
    for page in (summary, comment, note):
        assert page.count("<script") == 1  # the height probe, nothing from the bodies
        assert "style.css" in page and "http" not in re.sub(r'href="https://[^"]+"', "", page)


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def test_the_readme_links_and_paths_exist() -> None:
    readme = (ROOT / "README.md").read_text()
    tokens = list(gfm.walk(gfm.parse(readme)))
    anchors = {_slug("".join(c.content for c in (tokens[i + 1].children or [])))
               for i, t in enumerate(tokens) if t.type == "heading_open"}
    targets = [str(t.attrs.get("href") or t.attrs.get("src")) for t in tokens
               if t.type in ("link_open", "image")]
    assert any(t == "docs/gallery/summary.png" for t in targets)
    assert any(t == "docs/gallery/inline-comment.png" for t in targets)
    for target in targets:
        if target.startswith(("http://", "https://")):
            continue
        if target.startswith("#"):
            assert target[1:] in anchors, target
        else:
            assert (ROOT / target.split("#")[0]).exists(), target
    # Paths of this repository named in code spans, in the README and the pages it links to,
    # exist (the user's own paths do not count).
    pages = [readme, *(p.read_text() for p in sorted((ROOT / "docs").glob("*.md")))]
    named = {t.content for page in pages for t in gfm.walk(gfm.parse(page)) if t.type == "code_inline"}
    ours = re.compile(r"(?:bot|tests|scripts|examples|templates|bench|docs|"
                      r"actions/(?:python|node|go|rust|native))(?:/[\w./-]*)?")
    checked = [p for p in named if ours.fullmatch(p)]
    assert len(checked) > 10
    missing = [p for p in checked if not (ROOT / p).exists()]
    assert not missing, missing
