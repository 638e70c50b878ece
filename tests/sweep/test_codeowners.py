"""CODEOWNERS as GitHub reads it: gitignore-like patterns, the last match wins."""

from __future__ import annotations

import pytest

from bot.sweep import codeowners

FILE = """\
# the default owners
*       @octo/all
*.py    @py-team   # Python
/build/ @builders
docs/*  docs@example.com
apps/   @apps
**/logs @logs
/src/**/gen.py @gen
vendor/lib.py
"""


@pytest.mark.parametrize("path,owners", [
    ("README.md", ("@octo/all",)),
    ("a.py", ("@py-team",)),
    ("deep/er/b.py", ("@py-team",)),
    ("build/x.txt", ("@builders",)),
    ("sub/build/x.txt", ("@octo/all",)),  # anchored at the root
    ("docs/guide.md", ("docs@example.com",)),
    ("docs/api/ref.md", ("@octo/all",)),  # docs/* is the folder's files, not its subfolders
    ("apps/web/main.js", ("@apps",)),
    ("x/apps/main.js", ("@apps",)),  # a folder pattern without a slash matches anywhere
    ("a/logs/today.txt", ("@logs",)),
    ("src/a/b/gen.py", ("@gen",)),
    ("src/gen.py", ("@gen",)),
    ("vendor/lib.py", ()),  # no owners: unowned
])
def test_owners(path: str, owners: tuple[str, ...]) -> None:
    assert codeowners.owners(codeowners.parse(FILE), path) == owners


def test_no_file_no_owners() -> None:
    assert codeowners.owners(codeowners.parse(""), "a.py") == ()
