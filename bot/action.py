"""The Docker action's entry point: action.yml's inputs as one reviewbot command, and what the
review found as the step's outputs.

GitHub hands a Docker action its inputs as `INPUT_<NAME>` variables with the name upper-cased
and hyphens kept (`INPUT_GITHUB-TOKEN`), which a shell cannot read but `os.environ` can. The
mapping from inputs to a command line is pure (`command`); running it and writing
`$GITHUB_OUTPUT` are the edges (`main`).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from bot import cache, proc, secrecy
from bot.errors import BotError, Exit
from bot.model import Scope
from bot.publishing.gate import decide
from bot.run import artifact
from bot.safety import credentials, filecommands, lockdown

MODES = ("review", "analyze", "publish", "publish-label", "sweep", "warm")
DEFAULT_ARTIFACT = "reviewbot-analysis.json"
SCOPES = tuple(s for s in Scope if s is not Scope.UNCLASSIFIED)
# The inputs each mode reads besides mode, github-token and working-directory; any other input
# given a value is a mistake worth stopping for (it would silently do nothing).
TAKES = {
    "review": ("fail-level", "config", "max-inline-comments", "sarif"),
    "analyze": ("base", "config", "artifact"),
    "publish": ("fail-level", "max-inline-comments", "sarif", "artifact"),
    "publish-label": ("artifact",),
    "sweep": ("base", "config"),
    "warm": ("base", "config"),
}
OPTIONAL = ("base", "fail-level", "config", "max-inline-comments", "sarif", "artifact")
# The gate output for each exit status of the command (others: "error").
GATES = {int(Exit.OK): "pass", int(Exit.GATE): "fail", int(Exit.UNCHECKED): "unchecked"}


@dataclass(frozen=True)
class Inputs:
    mode: str
    values: Mapping[str, str]  # the optional inputs given a non-empty value
    working_directory: str = ""


def read_inputs(env: Mapping[str, str]) -> Inputs:
    """The action's inputs from the environment (empty means not given)."""
    def get(name: str) -> str:
        # Hyphens as GitHub passes them; underscores as some other runners do.
        key = "INPUT_" + name.upper()
        return (env.get(key) or env.get(key.replace("-", "_")) or "").strip()
    values = {name: get(name) for name in OPTIONAL if get(name)}
    return Inputs(get("mode") or "review", values, get("working-directory"))


def command(inputs: Inputs, sarif: str, outcome: str = "") -> list[str]:
    """The reviewbot arguments for `inputs`; `sarif` is where review and publish write SARIF
    (the `sarif` input if given, else a file the outputs are read from), `outcome` where a
    sweep writes its outcome (the outputs are read from it)."""
    if inputs.mode not in MODES:
        raise BotError(f"reviewbot action: unknown mode {inputs.mode!r} (use {', '.join(MODES)})")
    stray = sorted(set(inputs.values) - set(TAKES[inputs.mode]))
    if stray:
        raise BotError(f"reviewbot action: mode {inputs.mode} does not use input"
                       f"{'s' * (len(stray) > 1)} {', '.join(stray)}: remove "
                       f"{'them' if len(stray) > 1 else 'it'} from `with:`")
    v = inputs.values
    flags = {"fail-level": "--fail-level", "config": "--config",
             "max-inline-comments": "--max-comments"}
    options = [arg for name, flag in flags.items() if name in v for arg in (flag, v[name])]
    repo = ["--repo", "."] if inputs.working_directory else []
    art = v.get("artifact", DEFAULT_ARTIFACT)
    if inputs.mode == "review":
        return ["ci", *repo, *options, "--sarif", sarif]
    if inputs.mode == "analyze":
        base = ["--base", v["base"]] if "base" in v else []
        return ["analyze", *repo, *base, *options, "--out", art]
    if inputs.mode == "publish":
        return ["publish", *options, "--sarif", sarif, art]
    if inputs.mode == "publish-label":  # the apply label's artifact, on workflow_run
        return ["publish", "--label", art]
    if inputs.mode == "warm":  # base: the push's first commit, for --since
        return ["warm", *repo, *(["--since", v["base"]] if "base" in v else []), *options]
    ref = ["--ref", v["base"]] if "base" in v else []
    return ["sweep", *repo, *ref, *options, *(["--outcome", outcome] if outcome else [])]


def child_env(inputs: Inputs, env: Mapping[str, str]) -> dict[str, str]:
    """The command's environment: analyze gets no credential (it runs the pull request's
    linters), except on issue_comment, whose payload names no commit: there it reads the pull
    request with the job's token, which the workflow's `permissions:` make read-only
    (examples/github/commands.yml). The others get the token input as GITHUB_TOKEN. The cache's
    secret reaches analyze too: it only verifies the entries it reads with it (bot.cache)."""
    token = env.get("INPUT_GITHUB-TOKEN") or env.get("INPUT_GITHUB_TOKEN")
    if inputs.mode == "analyze":
        out = {k: v for k, v in env.items()
               if not secrecy.is_secret(k, v) or k == cache.SECRET_VARIABLE}
        if token and env.get("GITHUB_EVENT_NAME") == "issue_comment":
            out["GITHUB_TOKEN"] = token
        return out
    out = {k: v for k, v in env.items() if not k.startswith("INPUT_")}
    if token:
        out["GITHUB_TOKEN"] = token
    return out


def counts_from_sarif(doc: Mapping[str, object]) -> dict[str, int]:
    """Findings per scope in a reviewbot SARIF log (fixed findings are counted in the run's
    properties, since they are not results)."""
    counts: dict[str, int] = dict.fromkeys(SCOPES, 0)
    runs = doc.get("runs")
    for run in runs if isinstance(runs, list) else []:
        for result in run.get("results", []):
            scope = result.get("properties", {}).get("scope")
            if scope in counts:
                counts[scope] += 1
        fixed = run.get("properties", {}).get("fixed")
        if isinstance(fixed, int):
            counts["fixed"] += fixed
    return counts


def outputs(mode: str, status: int, sarif: Path, sarif_output: str,
            artifact_file: Path, outcome_file: Path | None = None) -> dict[str, str]:
    """The step's outputs once the command exited with `status`. Counts are empty when the
    command reviewed nothing (an event it does not handle, a sweep); a sweep adds its open
    regressions and its tracking issue's number."""
    out: dict[str, str] = dict.fromkeys(SCOPES, "")
    out["gate"] = GATES.get(status, "error")
    out["sarif-file"] = ""
    if mode == "sweep":
        swept = (json.loads(outcome_file.read_text())
                 if outcome_file is not None and outcome_file.is_file() else {})
        out["regressions"] = str(swept["open"]) if "open" in swept else ""
        out["tracking-issue"] = str(swept["issue"]) if swept.get("issue") is not None else ""
    if mode == "analyze" and status == 0 and artifact_file.is_file():
        analysis = artifact.load(artifact_file.read_bytes())
        out.update({s: str(analysis.result.count(s)) for s in SCOPES})
        out["gate"] = GATES.get(int(decide(analysis.result).exit), "error")
    elif mode in ("review", "publish") and sarif.is_file():
        out.update({s: str(n) for s, n in counts_from_sarif(json.loads(sarif.read_text())).items()})
        out["sarif-file"] = sarif_output
    elif mode == "review" and status == 0:
        out["gate"] = "skipped"  # nothing to review in this event
    return out


def write_outputs(path: str | None, values: Mapping[str, str]) -> None:
    if not path:
        return
    filecommands.append(path, "".join(f"{name}={value}\n" for name, value in values.items()))


def run(argv: Sequence[str], env: Mapping[str, str]) -> int:
    exe = shutil.which("reviewbot", path=env.get("PATH"))
    if exe is None:
        raise BotError("reviewbot action: the reviewbot command is not on PATH", Exit.INTERNAL)
    return proc.handoff([exe, *argv], env)


def main(env: Mapping[str, str] | None = None) -> int:
    """The action; `env` stands for the process's environment (tests). The token input is
    held as `reviewbot` itself holds its token (bot.safety.lockdown): this process stays alive while
    the pull request's linters run, and the file commands it writes are watched meanwhile."""
    try:
        with lockdown.engaged(filecommands.COMMANDS, env):
            return act(credentials.environ() if env is None else dict(env))
    except (BotError, OSError) as exc:
        message = exc.message if isinstance(exc, BotError) else f"reviewbot action: {exc}"
        print(message, file=sys.stderr)
        return int(exc.code) if isinstance(exc, BotError) else int(Exit.USAGE)


def act(env: Mapping[str, str]) -> int:
    """Run the command the inputs in `env` ask for, then write the step's outputs."""
    inputs = read_inputs(env)
    if inputs.working_directory:
        os.chdir(inputs.working_directory)
    with tempfile.TemporaryDirectory(prefix="reviewbot-action-") as tmp:
        given = inputs.values.get("sarif")
        sarif = Path(given) if given else Path(tmp) / "reviewbot.sarif"
        sarif_output = (os.path.join(inputs.working_directory, given)
                        if given and inputs.working_directory else given or "")
        outcome = Path(tmp) / "sweep-outcome.json"
        status = run(command(inputs, str(sarif), str(outcome)), child_env(inputs, env))
        art = Path(inputs.values.get("artifact", DEFAULT_ARTIFACT))
        write_outputs(env.get("GITHUB_OUTPUT"), outputs(inputs.mode, status, sarif,
                                                        sarif_output, art, outcome))
    return status


if __name__ == "__main__":
    sys.exit(main())
