"""`.reviewbot.yml`: every typo is an error that names the fix; each setting comes from the
revision it belongs to (the gate's policy from the merge base, the rest from the head)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from bot import config
from bot.errors import BotError
from bot.model import GatePolicy
from tests.conftest import GitRepo

TOOLS = frozenset({"ruff", "eslint", "biome", "ast-grep"})


# (document, where the error is, what it says); tests/test_config_schema.py checks that the
# published schema refuses each of them too.
TYPOS = [
    ("fail-levle: error\n", "1:1", "unknown setting 'fail-levle' (did you mean 'fail-level'?)"),
    ("fail-level: eror\n", "1:13", "fail-level must be one of none, info, warning, error, not 'eror' "
                                   "(did you mean 'error'?)"),
    ("tool-errors: warning\n", "1:14",
     "tool-errors must be one of fail, warn, not 'warning' (did you mean 'warn'?)"),
    ("tools: {rufff: {enabled: false}}\n", "1:9", "unknown tool in tools: 'rufff' (did you mean 'ruff'?)"),
    ("tools: {ruff: {enabled: 'no'}}\n", "1:25", "tools.ruff.enabled must be true or false, not 'no'"),
    ("tools: {ruff: {enabeld: false}}\n", "1:16",
     "unknown setting in tools.ruff: 'enabeld' (did you mean 'enabled'?)"),
    ("tools: {ruff: false}\n", "1:15", "tools.ruff: expected a mapping"),
    ("rules:\n  - {language: python, rule: {pattern: x}}\n", "2:5", "rules[1] has no `id`"),
    ("rules:\n  - {idd: r, language: python, rule: {pattern: x}}\n", "2:5",
     "rules[1] has no `id` (a name for its findings) (did you mean 'idd'?)"),
    ("tools: {mylint: {files: '*.x'}}\n", "1:9",
     "unknown tool in tools: 'mylint'"),
    ("tools: {mylint: {command: [x], files: '*.x', formt: sarif}}\n", "1:46",
     "unknown setting in tools.mylint: 'formt' (did you mean 'format'?)"),
    ("tools: {mylint: {command: [x], files: '*.x', format: sarf}}\n", "1:54",
     "tools.mylint.format must be one of sarif, rdjson, rdjsonl, checkstyle, regex, not 'sarf' "
     "(did you mean 'sarif'?)"),
    ("tools: {mylint: {command: [x], files: '*.x', format: regex, pattern: '(?P<line>\\d+)'}}\n",
     "1:70", "tools.mylint.pattern needs the named group(s) (?P<file>...), (?P<message>...)"),
    ("tools: {mylint: {command: [x], files: '*.x', format: sarif, scope: dir}}\n", "1:68",
     "tools.mylint.scope must be one of file, repo, not 'dir'"),
    ("tools: {ruff: {command: [x], files: '*.x', format: sarif}}\n", "1:25",
     "tools.ruff: ruff is built in, its command cannot be replaced"),
    ("timeout: 0\n", "1:10", "timeout must be a positive number"),
    ("timeout: -1\n", "1:10", "timeout must be a positive number"),
    ("[1, 2]\n", "1:1", "expected a mapping of settings"),
    ("a: [\n", "2:1", "not valid YAML"),
]


@pytest.mark.parametrize(("text", "at", "says"), TYPOS)
def test_typos_are_errors_with_a_suggestion(text: str, at: str, says: str) -> None:
    with pytest.raises(BotError) as caught:
        config.parse(text, ".reviewbot.yml", TOOLS)
    assert says in caught.value.message and caught.value.message.startswith(f".reviewbot.yml:{at}: ")
    assert "\n" not in caught.value.message


@pytest.mark.parametrize(("text", "at"), [
    # The offending key or value of a nested block, a later list item, the kept duplicate.
    ("timeout: 10\ntools:\n  ruff:\n    enabled: false\n  eslint:\n    enabled: maybe\n", "6:14"),
    ("rules:\n  - lint/a.yml\n  - id: ok\n    rule: {pattern: x}\n  - 7\n", "5:5"),
    ("commands:\n  prefix: /\n  permision: write\n", "3:3"),
    ("apply:\n  author: nobody\n", "2:11"),
    ("sweep:\n  label: 'a,b'\n", "2:10"),
    ("fail-level: error\nfail-level: loud\n", "2:13"),
])
def test_errors_point_at_the_line_and_column(text: str, at: str) -> None:
    with pytest.raises(BotError) as caught:
        config.parse(text, "ci/settings.yml", TOOLS)
    assert caught.value.message.startswith(f"ci/settings.yml:{at}: ")


def test_declared_linters_are_read_from_the_head(repo: GitRepo) -> None:
    base = repo.commit({".reviewbot.yml": "tools: {grepper: {command: [rm, -rf, x], files: '*',"
                                          " format: sarif}}\n"})
    repo.branch("feature")
    head = repo.commit({".reviewbot.yml": "tools:\n  grepper:\n    command: [grep, -n, x, '{files}']\n"
                                          "    files: '*.txt'\n    format: regex\n    pattern: "
                                          "'(?P<file>[^:]+):(?P<line>\\d+):(?P<message>.*)'\n"})
    declared = config.for_review(repo.path, base, head, tools=TOOLS).config.declared
    assert declared == (config.Declared("grepper", ("grep", "-n", "x", "{files}"), ("*.txt",),
                                        "regex", "file", "unsafe",
                                        "(?P<file>[^:]+):(?P<line>\\d+):(?P<message>.*)"),)


def test_valid_settings() -> None:
    cfg = config.parse("fail-level: warning\ntool-errors: warn\ntimeout: 10\n"
                       "tools: {ruff: {enabled: false}, eslint: {enabled: true}}\n", "x", TOOLS)
    assert cfg.policy == GatePolicy("warning", "warn")
    assert cfg.timeout == 10 and cfg.disabled == frozenset({"ruff"})
    assert config.parse("", "x", TOOLS) == config.Config(source="x")


@pytest.fixture
def two_sides(repo: GitRepo) -> tuple[GitRepo, str, str]:
    base = repo.commit({".reviewbot.yml": "fail-level: error\ntimeout: 100\n", "a.py": "x = 1\n"})
    repo.branch("feature")
    head = repo.commit({".reviewbot.yml": "fail-level: none\ntool-errors: warn\ntimeout: 50\n"
                                          "tools: {ruff: {enabled: false}}\n"})
    return repo, base, head


def test_policy_from_the_merge_base_the_rest_from_the_head(two_sides: tuple[GitRepo, str, str]) -> None:
    repo, base, head = two_sides
    got = config.for_review(repo.path, base, head, None, TOOLS)
    assert got.config.policy == GatePolicy("error", "fail")  # the change cannot relax its gate
    assert got.config.disabled == frozenset()
    assert got.config.timeout == 50  # everything else is the head's
    assert len(got.notes) == 1
    note = got.notes[0]
    assert "fail-level error → none" in note and "tool-errors fail → warn" in note
    assert "ruff switched off" in note and "takes effect once merged" in note


def test_the_working_tree_never_counts(two_sides: tuple[GitRepo, str, str]) -> None:
    repo, base, head = two_sides
    (repo.path / ".reviewbot.yml").write_text("fail-level: bogus\n")  # uncommitted, and invalid
    assert config.for_review(repo.path, base, head, None, TOOLS).config.timeout == 50
    (repo.path / ".reviewbot.yml").unlink()
    assert config.for_review(repo.path, base, head, None, TOOLS).config.timeout == 50


def test_a_broken_head_is_an_error_a_broken_base_falls_back(repo: GitRepo) -> None:
    base = repo.commit({".reviewbot.yml": "fail-level: loud\n"})
    repo.branch("feature")
    head = repo.commit({".reviewbot.yml": "fail-level: warning\n"})
    got = config.for_review(repo.path, base, head, None, TOOLS)
    assert got.config.policy == GatePolicy()  # the default, the strictest on tool errors
    assert any("merge base's settings are invalid (.reviewbot.yml:1:13 at the merge base: "
               "fail-level must be one of" in n for n in got.notes)
    broken = repo.commit({".reviewbot.yml": "fail-level: warnign\n"})
    with pytest.raises(BotError, match="did you mean 'warning'"):
        config.for_review(repo.path, base, broken, None, TOOLS)


def test_explicit_config_inside_is_read_per_revision_outside_as_is(
        two_sides: tuple[GitRepo, str, str], tmp_path: Path) -> None:
    repo, base, head = two_sides
    (repo.path / "ci").mkdir()
    repo.commit({"ci/settings.yml": "fail-level: warning\n"})
    inside = config.for_review(repo.path, base, repo.git("rev-parse", "HEAD"),
                               repo.path / "ci" / "settings.yml", TOOLS)
    assert inside.config.policy.fail_level == "error"  # not at the merge base: defaults
    outside = tmp_path / "mine.yml"
    outside.write_text("fail-level: info\n")
    got = config.for_review(repo.path, base, head, outside, TOOLS)
    assert got.config.policy.fail_level == "info" and not got.notes
    with pytest.raises(BotError, match=r"nope\.yml: no such file"):
        config.for_review(repo.path, base, head, repo.path / "nope.yml", TOOLS)
    (repo.path / "ci" / "new.yml").write_text("timeout: 3\n")
    with pytest.raises(BotError, match="not committed at the head"):
        config.for_review(repo.path, base, head, repo.path / "ci" / "new.yml", TOOLS)


def test_the_documented_settings_are_valid() -> None:
    """Each `.reviewbot.yml` shown in docs/configuration.md is read as the bot reads it."""
    page = (Path(__file__).resolve().parent.parent / "docs" / "configuration.md").read_text("utf-8")
    examples = [block.split("```", 1)[0] for block in page.split("```yaml\n")[1:]]
    assert len(examples) == 2
    settings = config.parse(examples[0], ".reviewbot.yml", TOOLS | {"biome"})
    assert settings.disabled == {"biome"} and len(settings.rules) == 2
    declared = config.parse(examples[1], ".reviewbot.yml", TOOLS | {"hadolint", "shellcheck"}).declared
    assert {d.format for d in declared} == {"sarif", "rdjson", "checkstyle", "regex", "rdjsonl"}


def test_read_at_reads_the_file_committed_at_a_revision(repo: GitRepo) -> None:
    first = repo.commit({"a.txt": "x\n"})
    second = repo.commit({".reviewbot.yaml": "timeout: 40\n"})
    third = repo.commit({".reviewbot.yml": "timeout: 50\n"})
    repo.write({".reviewbot.yml": "timeout: 60\n"})  # the working tree never counts
    assert config.read_at(repo.path, first) == config.Config()
    assert config.read_at(repo.path, second).timeout == 40
    assert config.read_at(repo.path, third).timeout == 50  # .reviewbot.yml comes first
    bad = repo.commit({".reviewbot.yml": "timeout: fast\n"})
    with pytest.raises(BotError, match=rf"\.reviewbot\.yml:1:10 at {bad[:12]}: "):
        config.read_at(repo.path, bad)
    binary = repo.commit({".reviewbot.yml": b"\xff\n"})
    with pytest.raises(BotError, match=rf"\.reviewbot\.yml at {binary[:12]} is not UTF-8 text"):
        config.read_at(repo.path, binary)


def test_read_takes_the_first_file_a_source_has_and_asks_no_further() -> None:
    """The reader behind read_at and the publish flow's (a forge's API): the first of
    FILE_NAMES found, named in errors with `where`, refused whole when it is not UTF-8."""
    asked: list[str] = []

    def forge(files: dict[str, bytes]) -> Callable[[str], bytes | None]:
        def read_file(name: str) -> bytes | None:
            asked.append(name)
            return files.get(name)
        return read_file

    assert config.read(forge({}), "on the default branch") == config.Config()
    assert asked == [".reviewbot.yml", ".reviewbot.yaml"]
    asked.clear()
    both = {".reviewbot.yml": b"timeout: 5\n", ".reviewbot.yaml": b"timeout: 6\n"}
    assert config.read(forge(both), "at 1a2b").timeout == 5 and asked == [".reviewbot.yml"]
    with pytest.raises(BotError, match=r"^\.reviewbot\.yaml:1:10 on the default branch: timeout"):
        config.read(forge({".reviewbot.yaml": b"timeout: fast\n"}), "on the default branch")
    with pytest.raises(BotError, match=r"^\.reviewbot\.yml on the default branch is not UTF-8"):
        config.read(forge({".reviewbot.yml": b"fail-level: \xff\n"}), "on the default branch")


def test_regex_patterns_are_checked() -> None:
    """A `format: regex` pattern's groups, checked where the settings are read."""
    problem = config.regex_problem
    pattern = (r"(?P<file>[^:]+):(?P<line>\d+):(?:(?P<column>\d+):)? (?P<severity>\w+) "
               r"\[(?P<code>[\w-]+)\] (?P<message>.*)")
    assert problem(pattern) is None
    assert problem("(") is not None and problem("(").startswith("not a regular expression")
    assert problem(r"(?P<file>.+):(?P<line>\d+)") == "needs the named group(s) (?P<message>...)"
    assert problem(r"(?P<file>.+):(?P<line>\d+) (?P<message>.*) (?P<col>\d+)") == (
        "unknown named group 'col'; known: file, line, message, column, end_line, end_column, "
        "severity, code")
