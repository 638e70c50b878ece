"""Monorepos: several projects in one repository, each with its own linter configuration in
its own folder and none at the root. Every tool applies, runs from the project's root with the
project's configuration (real ruff, ESLint and golangci-lint), and its findings belong to the
project's files."""

from __future__ import annotations

from bot.doctor import probe
from bot.run.pipeline import ReviewOptions, registry, run_review
from tests.conftest import GitRepo, require_tool

GO = "package api\n\nimport \"os\"\n\n// A removes a file.\nfunc A() {{\n{body}}}\n\nvar _ = os.Remove\n"
BASE = {
    "svc/api/go.mod": "module example.com/api\n\ngo 1.22\n",
    "svc/api/.golangci.yml": 'version: "2"\nlinters:\n  default: none\n  enable: [errcheck]\n',
    "svc/api/a.go": GO.format(body=""),
    "web/app/package.json": '{"name": "app", "type": "module"}\n',
    "web/app/eslint.config.mjs": 'export default [{ rules: { "prefer-const": "error" } }];\n',
    "web/app/a.js": "export const a = 1;\n",
    # A second JavaScript project whose config turns the same rule off: its own config counts.
    "web/quiet/eslint.config.mjs": 'export default [{ rules: { "prefer-const": "off" } }];\n',
    "web/quiet/q.js": "export const q = 1;\n",
    "py/lib/pyproject.toml": '[tool.ruff.lint]\nselect = ["F"]\n',
    "py/lib/src/m.py": "import os\n",
    "README.md": "projects in folders\n",
}
HEAD = {
    "svc/api/a.go": GO.format(body='\tos.Remove("x")\n'),
    "web/app/a.js": "export const a = 1;\nlet b = 2;\nexport { b };\n",
    "web/quiet/q.js": "export const q = 1;\nlet r = 2;\nexport { r };\n",
    "py/lib/src/m.py": "import os\nimport sys\n",
}


def test_projects_configured_in_their_own_folders_are_each_reviewed(repo: GitRepo) -> None:
    for tool in ("ruff", "eslint", "golangci-lint"):
        require_tool(tool)
    repo.commit(BASE, "base")
    repo.branch("feat")
    repo.commit(HEAD)
    only = ("ruff", "eslint", "golangci-lint")
    result = run_review(ReviewOptions(repo=repo.path, base="main", only=only))
    assert sorted(t.name for t in result.tools) == sorted(only)
    assert all(t.status == "ok" for t in result.tools), result.tools
    introduced = sorted((v.finding.tool, v.finding.rule, v.finding.path)
                        for v in result.findings if v.scope == "introduced")
    assert introduced == [("eslint", "prefer-const", "web/app/a.js"),
                          ("golangci-lint", "errcheck", "svc/api/a.go"),
                          ("ruff", "F401", "py/lib/src/m.py")]


def test_a_project_config_applies_only_to_the_changed_files_beneath_it(repo: GitRepo) -> None:
    repo.commit(BASE, "base")
    tools = registry()
    # README.md and a file outside every project: no nested config above them.
    assert not tools["ruff"].applies(repo.path, ["tools/x.py"])
    assert tools["ruff"].applies(repo.path, ["py/lib/src/m.py"])
    assert not tools["eslint"].applies(repo.path, ["py/lib/x.js"])
    assert tools["eslint"].applies(repo.path, ["web/quiet/q.js"])
    assert tools["golangci-lint"].applies(repo.path, ["svc/api/a.go"])


def test_doctor_lists_each_projects_configuration(repo: GitRepo) -> None:
    repo.commit(BASE, "base")
    files = sorted(BASE)
    # Through the doctor's own listing, which loads each linter the registry holds lazily.
    listed = {f.name: f for f in probe.tools(registry(), repo.path, files, ())}
    facts = {name: listed[name] for name in ("ruff", "eslint", "golangci-lint")}
    assert facts["golangci-lint"].markers == ("svc/api/.golangci.yml",)
    assert facts["eslint"].markers == ("web/app/eslint.config.mjs", "web/quiet/eslint.config.mjs")
    assert facts["ruff"].markers == ("py/lib/pyproject.toml",)
    assert all(not f.declined for f in facts.values())


def test_both_revisions_use_the_heads_project_config(repo: GitRepo) -> None:
    """As with a config at the root: a project's config the change edits applies at the base
    too, so a rule it turns on does not blame the change for the project's old code."""
    require_tool("eslint")
    off = 'export default [{ rules: { "prefer-const": "off" } }];\n'
    on = 'export default [{ rules: { "prefer-const": "error" } }];\n'
    repo.commit({"web/app/eslint.config.mjs": off, "web/app/package.json": '{"type": "module"}\n',
                 "web/app/a.js": "let old = 1;\nexport { old };\n"}, "base")
    repo.branch("feat")
    repo.commit({"web/app/eslint.config.mjs": on,
                 "web/app/a.js": "let old = 1;\nexport { old };\nlet b = 2;\nexport { b };\n"})
    result = run_review(ReviewOptions(repo=repo.path, base="main", only=("eslint",)))
    assert [t.status for t in result.tools] == ["ok"], result.tools
    assert sorted((v.finding.line, v.scope) for v in result.findings) == [
        (1, "preexisting"), (3, "introduced")]
