"""The layering of the package, as a test: every import of every module under `bot/` (lazy
ones inside functions too) read from its syntax tree and held against the rules below."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "bot"
# What a forge is spoken to with: only forge packages may import these.
SDKS = ("github", "gitlab", "httpx", "requests", "graphql")
# The forge protocols and the values they exchange: what anyone may import of `bot.forges`.
PROTOCOLS = ("bot.forges.base", "bot.forges.repository")
# The core's rooms, from the bottom up: each may import the rooms below it, never one above.
ROOMS = ("bot.safety", "bot.revisions", "bot.verdicts", "bot.run")
# Who calls the review run: the layers above it, and the few top modules that hand it options.
ABOVE_THE_RUN = ("bot.cli", "bot.action", "bot.commands", "bot.flows", "bot.sweep", "bot.options")
# What the publishing wing stands on: the renderers, the forges and the conversation hold what
# it carries (a forge's dialect, a comment's body) and never import it.
BELOW_PUBLISHING = ("bot.render", "bot.forges", "bot.conversation", "bot.positions", "bot.model")
# The ground: every process the bot starts goes through `proc`, which asks `secrecy` what no
# child inherits; the safety package above (lockdown, cleanup) uses them, never the reverse.
GROUND = ("bot.model", "bot.errors", "bot.secrecy", "bot.atomic", "bot.toolpath", "bot.proc")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> Iterator[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = module_name(path).rsplit(".", 1)[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: resolved against the module's package
                base = ".".join([*package.split(".")[: len(package.split(".")) - node.level + 1],
                                 *([base] if base else [])])
            yield base
            # `from bot.forges import github` imports the module bot.forges.github
            yield from (f"{base}.{alias.name}" for alias in node.names)


def within(name: str, *prefixes: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def layer(module: str) -> str:
    for prefix in ("bot.commands", "bot.flows", "bot.ci", "bot.forges", "bot.conversation"):
        if within(module, prefix):
            return prefix.removeprefix("bot.")
    return "front" if within(module, "bot.cli", "bot.action") else "core"


def room(module: str) -> int | None:
    """The rank of the core room `module` sits in (0 the lowest), or None outside them."""
    return next((rank for rank, prefix in enumerate(ROOMS) if within(module, prefix)), None)


def broken(module: str, imported: str) -> str | None:
    """Why `module` may not import `imported`, or None."""
    where = layer(module)
    here, there = room(module), room(imported)
    if here is not None and there is not None and there > here:
        return f"{ROOMS[here]} sits below {ROOMS[there]}: no arrow back up"
    if within(imported, "bot.verdicts") and not within(module, "bot.verdicts", "bot.run"):
        return "only the run reads the verdicts (bot.run joins findings and verdicts)"
    if within(imported, "bot.run") and not within(module, "bot.run", *ABOVE_THE_RUN):
        return "the run is called from above it only: the front, commands, flows, sweep, options"
    if within(module, *GROUND) and within(imported, "bot") and imported != "bot" \
            and not within(imported, *GROUND):
        return "the ground (model, errors, secrecy, atomic, toolpath, proc) imports only the ground"
    if within(module, *BELOW_PUBLISHING) and within(imported, "bot.publishing"):
        return "the renderers, the forges and the conversation sit below publishing"
    if here is not None and within(imported, "bot.publishing", "bot.apply", "bot.sweep",
                                   "bot.doctor", "bot.options"):
        return "the core's rooms sit below publishing, apply, sweep, doctor and the options"
    if where in ("core", "conversation"):
        if within(imported, "bot.ci", "bot.commands", "bot.flows"):
            return "the core and the conversation never import the CI, commands or flows"
        if within(imported, "bot.forges") and not within(imported, *PROTOCOLS) \
                and imported != "bot.forges":
            return "the core reaches a forge only through its protocols (forges.base, .repository)"
        if where == "conversation" and within(imported, "bot.forges"):
            return "the conversation is pure: no forge"
    if where == "forges" and within(imported, "bot.flows", "bot.commands", "bot.ci"):
        return "a forge never imports the flows, the commands or the CI"
    if where == "flows":
        if within(imported, *SDKS):
            return "a flow never imports a forge's SDK"
        if within(imported, "bot.forges") and not within(imported, *PROTOCOLS) \
                and imported != "bot.forges":
            return "a flow speaks to a forge through its protocols only"
        if within(imported, "bot.commands"):
            return "the flows never import the commands"
    if where == "ci" and within(imported, "bot.flows", "bot.commands"):
        return "the CI runners never import the flows or the commands"
    if module == "bot.config" and within(imported, "bot.linters"):
        return "the settings sit below the linters that read them (bot.linters imports bot.config)"
    if where == "commands" and within(imported, *SDKS):
        return "a command never imports a forge's SDK"
    if where not in ("forges", "ci") and within(imported, *SDKS) and where != "front":
        return "only the forge packages import a forge's SDK"
    return None


def modules() -> list[Path]:
    return sorted(ROOT.rglob("*.py"))


def test_the_rules_see_every_layer() -> None:
    seen = {layer(module_name(p)) for p in modules()}
    assert seen == {"core", "conversation", "commands", "flows", "ci", "forges", "front"}


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_follow_the_layers(path: Path) -> None:
    module = module_name(path)
    wrong = sorted({f"{module} imports {name}: {why}" for name in imports(path)
                    if (why := broken(module, name))})
    assert wrong == []


@pytest.mark.parametrize("module,imported", [
    ("bot.run.pipeline", "bot.ci.github_actions"),
    ("bot.conversation.state", "bot.forges.base"),
    ("bot.forges.github.change", "bot.flows.publish"),
    ("bot.flows.review", "github"),
    ("bot.flows.review", "bot.forges.github.change"),
    ("bot.publishing.sync", "bot.forges.gitlab.change"),
    ("bot.ci.gitlab_ci", "bot.flows.review"),
    ("bot.config", "bot.linters.formats.regex"),
    ("bot.safety.guard", "bot.revisions.workspace"),
    ("bot.revisions.workspace", "bot.verdicts.classify"),
    ("bot.verdicts.classify", "bot.run.pipeline"),
    ("bot.run.pipeline", "bot.publishing.gate"),
    ("bot.linters.runner", "bot.run.pipeline"),
    ("bot.publishing.sync", "bot.verdicts.classify"),
    ("bot.revisions.trees", "bot.options"),
    ("bot.render.markdown", "bot.publishing.placement"),
    ("bot.forges.base", "bot.publishing.placement"),
    ("bot.conversation.state", "bot.publishing.summary"),
    ("bot.proc", "bot.safety.credentials"),
    ("bot.secrecy", "bot.safety.selfproc"),
    ("bot.model", "bot.positions"),
])
def test_a_wrong_import_is_caught(module: str, imported: str) -> None:
    assert broken(module, imported) is not None
