"""What a language server said about one revision, kept in the findings cache.

A new push to a pull request has the same merge base as the last one: where one warm server
would check both revisions (`LspAnalyzer.collect_pair`), the base's diagnostics are those the
last review stored, and only the head is checked. The state a server checks there is the
revision's tree (the head's checkout, changed files at the base's text: nothing else differs,
or the pair would not be taken), so an entry is keyed on the commit and on everything else
that shapes the answer: the server binary, the toolchain it reads (the `go` command, the
tsserver library, the Python interpreter), its settings and environment, the project folder,
the files diagnosed and the other files open, and what the checkout has installed (its
virtualenv, its node_modules: bot.revisions.deps.stamp). Only a clean result is kept (no file failed or
left unanalysed).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from pathlib import Path

from bot.cache import binary_stamp, make_key
from bot.lsp.servers import Launch

VERSION = "lsp-1"  # bump when an entry's meaning changes


def session_key(launch: Launch, rev: str, project: str, files: Sequence[str],
                hidden: Sequence[str], installed: str = "") -> str | None:
    """The key of one revision's diagnostics of `files` in the server rooted at `project`
    (repo-relative), with what the checkout has `installed`; None when the binary cannot be
    identified (then nothing is kept)."""
    stamp = binary_stamp(launch.argv[0])
    if stamp is None:
        return None
    shape = json.dumps([list(launch.argv[1:]), launch.settings, launch.init_options, launch.env],
                       sort_keys=True, default=str)
    return make_key(VERSION, launch.spec.name, stamp, *toolchain(launch), shape, rev, project,
                    installed, *sorted(files), "|", *sorted(hidden))


def toolchain(launch: Launch) -> list[str]:
    """Stamps of what the server runs beside its own binary."""
    language = launch.spec.import_language
    found: list[str | None] = []
    if language == "go":
        go = shutil.which("go", path=launch.env.get("PATH"))
        found.append(binary_stamp(go) if go else "no go")
    elif language == "typescript":
        lib = (launch.init_options.get("tsserver") or {}).get("path")
        found.append(binary_stamp(str(Path(lib) / "tsserver.js")) if lib else "no tsserver")
    elif language == "python":
        python = (launch.settings.get("python") or {}).get("pythonPath")
        found.append(binary_stamp(python) if python else "no python")
    return [stamp or "unreadable" for stamp in found]
