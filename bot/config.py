"""`.reviewbot.yml`: optional settings, validated with messages that say how to fix them.

    fail-level: error          # none | info | warning | error
    tool-errors: fail          # fail | warn: a configured tool that could not check the change
    timeout: 300               # seconds per tool invocation
    tools:                     # per tool: enabled (default true)
      eslint: {enabled: false}
      my-lint:                 # a linter of the repository's own: a name and a command
        command: [my-lint, --sarif, "{files}"]
        files: ["*.foo"]       # .gitignore-style patterns of the files it checks
        format: sarif          # sarif | rdjson | rdjsonl | checkstyle | regex (with pattern:)
        scope: file            # file (run on the changed files) | repo (run once, no {files})
        fix: unsafe            # its fixes: safe (review --fix) | unsafe (suggested) | none
        exit-codes: [0, 1]     # the statuses that mean it ran (others: it failed)
    rules:                     # structural rules run as the tool "ast-grep" (bot.structural.rules)
      - id: no-print           # inline, in ast-grep's rule shape, plus message/severity/url
        language: python
        rule: {pattern: print($$$A)}
        message: use the logger
        fix: log.info($$$A)
      - lint/rules/no-eval.yml # or a rule file, relative to the repository
    sweep: {label: reviewbot:regressions}   # the scheduled sweep's tracking issue label
    commands: {prefix: /, permission: write}   # slash commands; write | maintain may run them
    apply: {label: reviewbot:apply, author: "Name <email>"}   # the apply label and commit author

Which revision each setting comes from (`for_review`): the gate's policy (`fail-level`,
`tool-errors`, a tool switched off) from the merge base, so a change cannot relax its own gate;
everything else from the head, like the linters' own configuration. The working tree never
counts.

Every refusal names where it is, as editors and CI logs read it: `FILE:LINE:COLUMN[ REVISION]:
what to fix` (the key for an unknown one, else the value).

`bot/schemas/reviewbot-config.schema.json` describes the same settings for editors (not checked
here: jsonschema costs a second to import); tests/test_config_schema.py keeps the two in step.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, cast

from bot import git
from bot.errors import BotError
from bot.model import Applicability, FailLevel, GatePolicy, ToolErrors

FAIL_LEVELS = tuple(level.value for level in FailLevel)  # as written in .reviewbot.yml
TOOL_ERRORS: tuple[ToolErrors, ...] = ("fail", "warn")
FILE_NAMES = (".reviewbot.yml", ".reviewbot.yaml")
KEYS = ("fail-level", "tool-errors", "timeout", "tools", "rules", "commands", "apply", "sweep")
TOOL_KEYS = ("enabled",)
DECLARED_KEYS = ("enabled", "command", "files", "format", "pattern", "scope", "fix", "exit-codes")
SCOPES = ("file", "repo")
FORMATS = ("sarif", "rdjson", "rdjsonl", "checkstyle", "regex")  # bot.linters.formats reads them
FIXES = ("safe", "unsafe", "none")
FILES_PLACEHOLDER = "{files}"
# The named groups of a `format: regex` pattern (bot.linters.formats.regex reads them).
REGEX_REQUIRED = ("file", "line", "message")
REGEX_OPTIONAL = ("column", "end_line", "end_column", "severity", "code")
SWEEP_KEYS = ("label",)
LABEL_LIMIT = 50  # characters in a GitHub label name
COMMAND_KEYS = ("prefix", "permission")
APPLY_KEYS = ("label", "author")
PERMISSIONS = ("write", "maintain")  # the least repository permission that may command the bot
DEFAULT_AUTHOR = "github-actions[bot] <41898282+github-actions[bot]@users.noreply.github.com>"


@dataclass(frozen=True)
class Declared:
    """A linter the repository declares in `tools:` (see `bot.linters.declared`)."""

    name: str
    command: tuple[str, ...]
    files: tuple[str, ...]
    format: str
    scope: str = "file"
    fix: Applicability | None = Applicability.UNSAFE  # None: its fixes are dropped
    pattern: str = ""
    exit_codes: tuple[int, ...] = (0, 1)


@dataclass(frozen=True)
class Config:
    """The repository's settings (`.reviewbot.yml`), with their defaults."""

    fail_level: FailLevel = FailLevel.ERROR
    tool_errors: ToolErrors = "fail"
    timeout: float = 300.0
    disabled: frozenset[str] = field(default_factory=frozenset)
    source: str | None = None
    rules: tuple[Any, ...] = ()  # rule documents (mappings) or rule file paths, unchecked here
    command_prefix: str = "/"  # commands: {prefix}
    command_permission: str = "write"  # commands: {permission}: write | maintain
    apply_label: str = "reviewbot:apply"  # apply: {label}
    apply_author: str = DEFAULT_AUTHOR  # apply: {author}: "Name <email>" of the apply commit
    sweep_label: str = "reviewbot:regressions"  # sweep: {label}: the tracking issue's label
    declared: tuple[Declared, ...] = ()  # tools: {NAME: {command: ...}}, from the head

    @property
    def policy(self) -> GatePolicy:
        return GatePolicy(self.fail_level, self.tool_errors)


@dataclass(frozen=True)
class Reviewed:
    """The settings a review uses, and what the reader should know about where they came from."""

    config: Config
    notes: tuple[str, ...] = ()


Where = tuple[str | int, ...]  # where in the document: keys and list indexes from the top


class _Problem(Exception):
    """A refused setting: what is wrong, and where (`key`: at the key, not its value)."""

    def __init__(self, where: Where, what: str, key: bool = False) -> None:
        super().__init__(what)
        self.where, self.what, self.key = where, what, key


def did_you_mean(word: str, choices: Collection[str]) -> str:
    """' (did you mean X?)' for the closest choice, or '' when none is close."""
    close = difflib.get_close_matches(word, sorted(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _unknown(where: Where, what: str, names: Collection[str], known: Collection[str]) -> _Problem:
    first = sorted(map(str, names))[0]
    return _Problem((*where, first), f"unknown {what} {first!r}{did_you_mean(first, known)}; "
                                     f"known: {', '.join(sorted(known))}", key=True)


def _mark(node: Any, where: Where, key: bool) -> Any:
    """The YAML mark of the node at `where` (the key node with `key`), or of the deepest node
    on the way that exists."""
    import yaml

    for depth, step in enumerate(where):
        last = depth == len(where) - 1
        if isinstance(node, yaml.MappingNode):
            # The last of duplicate keys is the one the loader keeps.
            pairs = [(k, v) for k, v in node.value if isinstance(k, yaml.ScalarNode) and k.value == str(step)]
            if not pairs:
                break
            node = pairs[-1][0] if key and last else pairs[-1][1]
        elif isinstance(node, yaml.SequenceNode) and isinstance(step, int) and step < len(node.value):
            node = node.value[step]
        else:
            break
    return node.start_mark


def _located(source: str, mark: Any, what: str, revision: str) -> BotError:
    at = f" {revision}" if revision else ""
    return BotError(f"{source}:{mark.line + 1}:{mark.column + 1}{at}: {what}")


def parse(text: str, source: str, tools: Collection[str] = (), revision: str = "") -> Config:
    """The settings in `text`; `tools` are the tool names `tools:` may name (empty: any).
    Errors read "SOURCE:LINE:COLUMN[ REVISION]: what to fix"."""
    import yaml  # only when there is a file to read: most repositories have none

    loader = yaml.SafeLoader(text)
    try:  # composed first, so that every refusal can point at its node
        node = loader.get_single_node()
        data: Any = loader.construct_document(node) if node is not None else None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        if mark is None:
            raise BotError(f"{source}{' ' + revision if revision else ''}: not valid YAML: {exc}") from exc
        # One line: the location is ours, pyyaml's own copy of it (and the excerpt) is left out.
        said = [str(p) for p in (getattr(exc, "context", None), getattr(exc, "problem", None)) if p]
        raise _located(source, mark, f"not valid YAML: {': '.join(said) or exc}", revision) from exc
    finally:
        loader.dispose()
    try:
        return _settings(data, source, tools)
    except _Problem as problem:
        raise _located(source, _mark(node, problem.where, problem.key), problem.what, revision) from None


def _settings(data: Any, source: str, tools: Collection[str]) -> Config:
    if data is None:
        return Config(source=source)
    if not isinstance(data, dict):
        raise _Problem((), "expected a mapping of settings at the top level")
    unknown = set(map(str, data)) - set(KEYS)
    if unknown:
        raise _unknown((), "setting", unknown, KEYS)
    level = data.get("fail-level", "error")
    if level not in FAIL_LEVELS:
        raise _Problem(("fail-level",), f"fail-level must be one of {', '.join(FAIL_LEVELS)}, "
                                        f"not {level!r}" + did_you_mean(str(level), FAIL_LEVELS))
    errors = data.get("tool-errors", "fail")
    if errors not in TOOL_ERRORS:
        raise _Problem(("tool-errors",), f"tool-errors must be one of {', '.join(TOOL_ERRORS)}, "
                                         f"not {errors!r}" + did_you_mean(str(errors), TOOL_ERRORS))
    timeout = data.get("timeout", 300)
    if not isinstance(timeout, int | float) or isinstance(timeout, bool) or timeout <= 0:
        raise _Problem(("timeout",), f"timeout must be a positive number of seconds, not {timeout!r}")
    prefix, permission = _commands(data.get("commands"))
    label, author = _apply(data.get("apply"))
    return Config(FailLevel(level), cast(ToolErrors, errors), float(timeout),
                  _disabled(data.get("tools"), tools), source, _rules(data.get("rules")),
                  prefix, permission, label, author,
                  sweep_label=_sweep_label(data.get("sweep")),
                  declared=_declared(data.get("tools"), tools))


def _section(value: Any, name: str, keys: tuple[str, ...]) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise _Problem((name,), f"{name} must be a mapping of {', '.join(keys)}")
    if set(map(str, value)) - set(keys):
        raise _unknown((name,), f"setting in {name}:", set(map(str, value)) - set(keys), keys)
    for key, item in value.items():
        if not isinstance(item, str) or not item.strip() or "\n" in item:
            raise _Problem((name, str(key)), f"{name}.{key} must be a non-empty one-line string, "
                                             f"not {item!r}")
    return value


def _commands(value: Any) -> tuple[str, str]:
    """commands: {prefix: "/", permission: write | maintain}."""
    found = _section(value, "commands", COMMAND_KEYS)
    prefix, permission = found.get("prefix", "/"), found.get("permission", "write")
    if permission not in PERMISSIONS:
        raise _Problem(("commands", "permission"),
                       f"commands.permission must be one of {', '.join(PERMISSIONS)}, not "
                       f"{permission!r}" + did_you_mean(permission, PERMISSIONS))
    if prefix != prefix.strip() or len(prefix) > 20:
        raise _Problem(("commands", "prefix"),
                       f"commands.prefix must be a word of at most 20 characters without "
                       f"surrounding spaces, not {prefix!r}")
    return prefix, permission


def _apply(value: Any) -> tuple[str, str]:
    """apply: {label: reviewbot:apply, author: "Name <email>"}."""
    found = _section(value, "apply", APPLY_KEYS)
    author = found.get("author", DEFAULT_AUTHOR)
    if not re.fullmatch(r"[^<>]+ <[^<>\s]+@[^<>\s]+>", author):
        raise _Problem(("apply", "author"), f"apply.author must read \"Name <email>\", not {author!r}")
    return found.get("label", "reviewbot:apply"), author


def _disabled(tools: Any, known: Collection[str]) -> frozenset[str]:
    if tools is None:
        return frozenset()
    if not isinstance(tools, dict):
        raise _Problem(("tools",), "tools must map tool names to settings, e.g. {eslint: {enabled: false}}")
    # A name the bot does not know is a linter the repository declares: it needs a command.
    unknown = {str(n) for n, v in tools.items()
               if str(n) not in known and not (isinstance(v, dict) and "command" in v)}
    if known and unknown:
        problem = _unknown(("tools",), "tool in tools:", unknown, known)
        raise _Problem(problem.where, f"{problem.what} (a linter of your own needs a `command`)",
                       key=True)
    disabled = set()
    for name, settings in tools.items():
        if not isinstance(settings, dict):
            raise _Problem(("tools", str(name)),
                           f"tools.{name}: expected a mapping such as {{enabled: false}}")
        allowed = DECLARED_KEYS if "command" in settings else TOOL_KEYS
        if set(map(str, settings)) - set(allowed):
            raise _unknown(("tools", str(name)), f"setting in tools.{name}:",
                           set(map(str, settings)) - set(allowed), allowed)
        enabled = settings.get("enabled", True)
        if not isinstance(enabled, bool):
            raise _Problem(("tools", str(name), "enabled"),
                           f"tools.{name}.enabled must be true or false, not {enabled!r}")
        if not enabled:
            disabled.add(str(name))
    return frozenset(disabled)


def _declared(tools: Any, known: Collection[str]) -> tuple[Declared, ...]:
    """The linters `tools:` declares (entries with a `command`), checked; `_disabled` has
    checked the shape of every entry already."""
    return tuple(_declared_one(str(name), settings, known)
                 for name, settings in (tools or {}).items() if "command" in settings)


def _declared_one(name: str, settings: dict[str, Any], known: Collection[str]) -> Declared:
    if name in known:
        raise _Problem(("tools", name, "command"),
                       f"tools.{name}: {name} is built in, its command cannot be replaced; "
                       "declare your own linter under another name")
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", name):
        raise _Problem(("tools", name), f"tools.{name}: a declared linter's name must be "
                                        "letters, digits, '.', '-' or '_'", key=True)
    where: Where = ("tools", name)
    command, scope = _command(name, settings)
    files = settings.get("files")
    if isinstance(files, str):
        files = [files]
    if not (isinstance(files, list) and files and all(isinstance(f, str) and f.strip()
                                                      for f in files)):
        raise _Problem((*where, "files") if "files" in settings else where,
                       f"tools.{name}.files must list the files it checks, e.g. [\"*.sh\"]")
    fmt, pattern = _format(name, settings)
    fix = settings.get("fix", "unsafe")
    if fix not in FIXES:
        raise _Problem((*where, "fix"), f"tools.{name}.fix must be one of {', '.join(FIXES)}, "
                                        f"not {fix!r}" + did_you_mean(str(fix), FIXES))
    codes = settings.get("exit-codes", [0, 1])
    if not (isinstance(codes, list) and codes and all(
            isinstance(c, int) and not isinstance(c, bool) and 0 <= c <= 255 for c in codes)):
        raise _Problem((*where, "exit-codes"), f"tools.{name}.exit-codes must list the exit "
                                               "statuses (0 to 255) that mean it ran, e.g. [0, 1]")
    return Declared(name, command, tuple(files), fmt, scope,
                    None if fix == "none" else Applicability(fix), pattern, tuple(codes))


def _command(name: str, settings: dict[str, Any]) -> tuple[tuple[str, ...], str]:
    """A declared linter's command and scope, checked together: `{files}` is for scope file."""
    where: Where = ("tools", name)
    command = settings["command"]
    if not (isinstance(command, list) and command
            and all(isinstance(a, str) and a for a in command)):
        raise _Problem((*where, "command"), f"tools.{name}.command must be a list of "
                                            "arguments, e.g. [my-lint, --json, \"{files}\"]")
    scope = settings.get("scope", "file")
    if scope not in SCOPES:
        raise _Problem((*where, "scope"), f"tools.{name}.scope must be one of "
                                          f"{', '.join(SCOPES)}, not {scope!r}"
                                          + did_you_mean(str(scope), SCOPES))
    if scope == "repo" and FILES_PLACEHOLDER in command:
        raise _Problem((*where, "command"), f"tools.{name}.command: scope repo runs once "
                                            f"over the repository, without {FILES_PLACEHOLDER}")
    if FILES_PLACEHOLDER in command[:1]:
        raise _Problem((*where, "command"), f"tools.{name}.command must start with the "
                                            "program to run")
    return tuple(command), scope


def _format(name: str, settings: dict[str, Any]) -> tuple[str, str]:
    """A declared linter's output format, and its pattern when the format is regex."""
    where: Where = ("tools", name)
    fmt = settings.get("format")
    if fmt not in FORMATS:
        raise _Problem((*where, "format") if "format" in settings else where,
                       f"tools.{name}.format must be one of {', '.join(FORMATS)}, not "
                       f"{fmt!r}" + did_you_mean(str(fmt), FORMATS))
    pattern = settings.get("pattern", "")
    if (fmt == "regex") != ("pattern" in settings):
        raise _Problem((*where, "pattern") if "pattern" in settings else (*where, "format"),
                       f"tools.{name}: format regex needs a pattern, and only it takes one")
    if fmt == "regex":
        why = regex_problem(pattern) if isinstance(pattern, str) else "must be a string"
        if why:
            raise _Problem((*where, "pattern"), f"tools.{name}.pattern {why}")
    return fmt, pattern


def regex_problem(pattern: str) -> str | None:
    """Why a `format: regex` pattern cannot read findings; None when it can. Checked here, with
    the rest of the settings, so that a bad pattern is refused at its line before any tool runs."""
    try:
        groups = set(re.compile(pattern).groupindex)
    except re.error as exc:
        return f"not a regular expression: {exc}"
    missing = [g for g in REGEX_REQUIRED if g not in groups]
    if missing:
        return f"needs the named group(s) {', '.join(f'(?P<{g}>...)' for g in missing)}"
    unknown = sorted(groups - set(REGEX_REQUIRED) - set(REGEX_OPTIONAL))
    if unknown:
        return (f"unknown named group {unknown[0]!r}; known: "
                f"{', '.join(REGEX_REQUIRED + REGEX_OPTIONAL)}")
    return None


def _rules(rules: Any) -> tuple[Any, ...]:
    if rules is None:
        return ()
    if not isinstance(rules, list):
        raise _Problem(("rules",), "rules must be a list of rule mappings or rule file paths")
    for index, rule in enumerate(rules):
        if not isinstance(rule, dict | str):
            raise _Problem(("rules", index), "rules must be a list of rule mappings or rule file paths")
        if isinstance(rule, dict) and not (isinstance(rule.get("id"), str) and rule["id"].strip()):
            near = did_you_mean("id", [str(k) for k in rule if k != "id"])
            raise _Problem(("rules", index),
                           f"rules[{index + 1}] has no `id` (a name for its findings){near}")
    return tuple(rules)


def _sweep_label(value: Any) -> str:
    """sweep: {label: reviewbot:regressions}."""
    if value is None:
        return "reviewbot:regressions"
    if not isinstance(value, dict):
        raise _Problem(("sweep",), "sweep must be a mapping such as {label: reviewbot:regressions}")
    if set(map(str, value)) - set(SWEEP_KEYS):
        raise _unknown(("sweep",), "setting in sweep:", set(map(str, value)) - set(SWEEP_KEYS), SWEEP_KEYS)
    label = value.get("label", "reviewbot:regressions")
    if not isinstance(label, str) or not label.strip() or label != label.strip() or "," in label \
            or len(label) > LABEL_LIMIT:
        raise _Problem(("sweep", "label"),
                       f"sweep.label must be a label name of 1 to {LABEL_LIMIT} characters "
                       f"without commas or surrounding spaces, not {label!r}")
    return label


def load(repo_root: Path, explicit: Path | None = None, tools: Collection[str] = ()) -> Config:
    """The settings as files on disk say: `explicit`, else the checkout's own file. For a
    review, `for_review` decides per revision instead."""
    if explicit is not None:
        return parse(_read_explicit(explicit), str(explicit), tools)
    for name in FILE_NAMES:
        path = repo_root / name
        if path.is_file():
            try:
                return parse(path.read_text("utf-8"), name, tools)
            except UnicodeDecodeError as exc:
                raise BotError(f"{name} is not UTF-8 text") from exc
    return Config()


def read(blob: Callable[[str], bytes | None], where: str, tools: Collection[str] = ()) -> Config:
    """The settings at one revision: the first of `FILE_NAMES` that `blob` finds (its bytes,
    None when absent), the defaults when there is none. `where` names the revision in errors
    ("at 1a2b3c4d5e6f"). The one reader of the settings at a revision, from git (`read_at`) or
    from a forge's API (the publish flow, which has no checkout)."""
    for name in FILE_NAMES:
        found = blob(name)
        if found is not None:
            return parse(_text(found, name, where), name, tools, where)
    return Config()


def read_at(repo: Path, rev: str, tools: Collection[str] = ()) -> Config:
    """The settings as committed at `rev` (the working tree never counts)."""
    # Every name in one git process: most repositories have none of them.
    blobs = dict(zip(FILE_NAMES, git.cat_blobs(repo, [f"{rev}:{n}" for n in FILE_NAMES]),
                     strict=True))
    return read(blobs.__getitem__, f"at {git.short(rev)}", tools)


def _text(blob: bytes, name: str, where: str) -> str:
    try:
        return blob.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BotError(f"{name} {where} is not UTF-8 text") from exc


def _read_explicit(path: Path) -> str:
    try:
        return path.read_text("utf-8")
    except FileNotFoundError as exc:
        raise BotError(f"--config {path}: no such file") from exc
    except OSError as exc:
        raise BotError(f"cannot read --config {path}: {exc.strerror}") from exc
    except UnicodeDecodeError as exc:
        raise BotError(f"--config {path} is not UTF-8 text") from exc


def _at(repo: Path, revs: Sequence[str], names: Collection[str]) -> list[tuple[str, str] | None]:
    """For each of `revs`, (name, text) of the first of `names` committed there; all read
    through one git process."""
    names = list(names)
    blobs = git.cat_blobs(repo, [f"{rev}:{name}" for rev in revs for name in names])
    out: list[tuple[str, str] | None] = []
    for i, rev in enumerate(revs):
        mine = blobs[i * len(names):(i + 1) * len(names)]
        name, blob = next(((n, b) for n, b in zip(names, mine, strict=True) if b is not None),
                          ("", None))
        out.append(None if blob is None else (name, _text(blob, name, f"at {git.short(rev)}")))
    return out


def _inside(repo: Path, path: Path) -> str | None:
    """`path` relative to the repository, when it lies inside it."""
    try:
        return (path if path.is_absolute() else Path.cwd() / path).resolve().relative_to(
            repo.resolve()).as_posix()
    except ValueError:
        return None


def for_review(repo: Path, merge_base: str, head: str, explicit: Path | None = None,
               tools: Collection[str] = ()) -> Reviewed:
    """The settings of a review between `merge_base` and `head`: the policy from the merge
    base, the rest from the head, both read from git. An `explicit` file outside the
    repository is the caller's own and applies as it is to both."""
    names: Collection[str] = FILE_NAMES
    if explicit is not None:
        inside = _inside(repo, explicit)
        if inside is None:
            return Reviewed(parse(_read_explicit(explicit), str(explicit), tools))
        names = (inside,)
    at_head, at_base = _at(repo, (head, merge_base), names)
    if at_head is None and explicit is not None:
        if not explicit.exists():
            raise BotError(f"--config {explicit}: no such file")
        raise BotError(f"--config {explicit}: not committed at the head {git.short(head)}")
    head_cfg = parse(at_head[1], at_head[0], tools) if at_head else Config()
    notes: list[str] = []
    try:
        base_cfg = parse(at_base[1], at_base[0], tools, "at the merge base") if at_base else Config()
    except BotError as exc:
        base_cfg = Config()
        notes.append(f"the merge base's settings are invalid ({exc.message}): the gate uses the "
                     "default policy")
    merged = replace(head_cfg, fail_level=base_cfg.fail_level, tool_errors=base_cfg.tool_errors,
                     disabled=base_cfg.disabled)
    edits = _policy_edits(base_cfg, head_cfg)
    if edits:
        notes.append(f"this change edits the gate's policy ({'; '.join(edits)}): it takes effect "
                     "once merged; this review uses the merge base's")
    return Reviewed(merged, tuple(notes))


def _policy_edits(base: Config, head: Config) -> list[str]:
    edits = []
    if base.fail_level != head.fail_level:
        edits.append(f"fail-level {base.fail_level} → {head.fail_level}")
    if base.tool_errors != head.tool_errors:
        edits.append(f"tool-errors {base.tool_errors} → {head.tool_errors}")
    for name in sorted(head.disabled - base.disabled):
        edits.append(f"{name} switched off")
    for name in sorted(base.disabled - head.disabled):
        edits.append(f"{name} switched on")
    return edits
