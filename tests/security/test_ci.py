"""The project's own CI runs the security suite: its test step has root (the suite starts the
bot as another user and mounts folders), and a test that needs root fails there, not skips."""

from __future__ import annotations

import os

import pytest
import yaml

from tests.conftest import ROOT, requires_root


def test_the_ci_workflow_runs_the_tests_as_root() -> None:
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "ci.yml").read_text())
    runs = [step["run"] for job in workflow["jobs"].values() for step in job["steps"]
            if "run" in step]
    tests = [run for run in runs if ".ci/run" in run]
    assert tests == ['sudo -E env "PATH=$PATH" "HOME=$HOME" bash .ci/run'], runs
    assert "-rs" in (ROOT / "scripts" / "test").read_text()  # the skips are listed


@pytest.mark.parametrize(("ci", "outcome"), [("true", pytest.fail.Exception),
                                             ("", pytest.skip.Exception),
                                             ("false", pytest.skip.Exception)])
def test_a_test_that_needs_root_fails_in_ci_without_it(
        ci: str, outcome: type[BaseException], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", ci)
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    with pytest.raises(outcome) as caught:
        requires_root("mounting a tmpfs")
    assert str(caught.value).startswith("mounting a tmpfs needs root"), caught.value
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    requires_root("mounting a tmpfs")  # goes on
