"""Hostile documents the bot reads back: analysis artifacts (what `publish` takes from a job
that ran a pull request's code) and staged plans (what `ast-edit --apply` takes). Every field
of real and generated ones removed or given a value of another type: each is read, or refused
with exit 2 naming that field (or the one holding it), never anything else."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from bot.cli import main
from bot.errors import ArtifactError, BotError, Exit
from bot.run import artifact
from bot.run.artifact import Analysis
from bot.structural import api
from bot.structural import plan as planmod
from tests.faults.mutate import Mutation, dotted, mutations
from tests.run.test_artifact import analyses, raw_doc


def same_field(said: str, mutation: Mutation) -> bool:
    """`said` (texts['a.py'].lines['2'], as messages quote keys that are paths) is the mutated
    field, holds it, or sits inside it."""
    plain = re.sub(r"\['([^']*)'\]", r".\1", said)
    field = dotted(mutation.path)
    return plain.startswith(field) or field.startswith(plain)


def head_text_and_its_map(said: str, mutation: Mutation) -> bool:
    """A shard's head text and the line map of the same file must agree: a text removed or
    changed is named as the map it no longer fits (`shard.maps['a.py']`)."""
    path = mutation.path
    return (len(path) >= 4 and path[:3] == ("shard", "files", "head")
            and said.startswith(f"shard.maps[{str(path[3])!r}]"))


def artifact_problems(document: Any) -> tuple[int, list[str]]:
    tried, broken = 0, []
    for m in mutations(document):
        tried += 1
        try:
            artifact.load(json.dumps(m.document).encode())
        except ArtifactError as exc:
            if exc.code != Exit.USAGE or not (same_field(exc.field, m)
                                              or head_text_and_its_map(exc.field, m)):
                broken.append(f"{m}: {exc.message}")
        except Exception as exc:  # any other exception is the bug sought
            broken.append(f"{m}: {type(exc).__name__}: {exc}")
    return tried, broken


def test_every_field_of_an_artifact() -> None:
    tried, broken = artifact_problems(raw_doc())
    assert broken == [], "\n".join(broken[:20])
    assert tried > 800


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(analyses())
def test_every_field_of_generated_artifacts(analysis: Analysis) -> None:
    _, broken = artifact_problems(json.loads(artifact.dump(analysis)))
    assert broken == [], "\n".join(broken[:20])


PY = "def f(a):\n    print(a)\n    print(a, 2)\n"


@pytest.fixture
def staged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """A genuine plan of two files, as JSON, with its folder as the current directory."""
    monkeypatch.chdir(tmp_path)
    for name in ("a.py", "sub/b.py"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(PY)
    plan = api.stage("print($$$A)", "log($$$A)", lang="python", paths=["a.py", "sub"])
    assert plan.count == 4
    return planmod.to_json(plan)


def test_every_field_of_a_plan(staged: dict[str, Any]) -> None:
    tried, broken = 0, []
    for m in mutations(staged):
        tried += 1
        try:
            planmod.from_json(m.document, "plan.json")
        except BotError as exc:
            field = exc.message.removeprefix("plan.json: ").split(":")[0]
            if exc.code != Exit.USAGE or not (same_field(field, m) or _version(m, exc)):
                broken.append(f"{m}: {exc.message}")
        except Exception as exc:  # any other exception is the bug sought
            broken.append(f"{m}: {type(exc).__name__}: {exc}")
    assert broken == [], "\n".join(broken[:20])
    assert tried > 500


def _version(m: Mutation, exc: BotError) -> bool:
    return m.path == ("version",) and "version" in exc.message


def test_apply_of_a_mutated_plan_writes_nothing_or_what_was_staged(
        staged: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """End to end, through `--apply`: a plan mutated in any field either applies what it still
    plans as staged, or is refused whole, with exit 2 or 1 and no file changed."""
    before = {p: (tmp_path / p).read_bytes() for p in ("a.py", "sub/b.py")}
    after = {p: b.replace(b"print(", b"log(") for p, b in before.items()}
    plan = tmp_path / "plan.json"
    tried = 0
    for m in mutations(staged, values=(None, -1, "x", [], {})):
        if m.path[:1] in (("pattern",), ("rewrite",), ("lang",), ("tool",)):
            continue  # shown, never used: covered by the reader test above
        tried += 1
        plan.write_text(json.dumps(m.document))
        status = main(["ast-edit", "--apply", str(plan)])
        now = {p: (tmp_path / p).read_bytes() for p in before}
        err = capsys.readouterr().err
        assert "Traceback" not in err, f"{m}: {err}"
        if status == 0:  # a file left out of the plan is left alone
            assert all(now[p] in (before[p], after[p]) for p in now), str(m)
            for p, content in before.items():
                (tmp_path / p).write_bytes(content)
        else:
            assert status in (1, 2) and now == before, f"{m}: {status}: {err}"
    assert tried > 300


def test_every_field_of_a_shard_part(part_doc: dict[str, Any]) -> None:
    """A shard's part (`analyze --shard I/N`): its findings at both revisions, the files'
    texts and line maps the assembler classifies with, every field mutated."""
    tried, broken = artifact_problems(part_doc)
    assert broken == [], f"{len(broken)} of {tried}:\n" + "\n".join(broken[:20])
    assert tried > 1000
