"""A pull request's own linter attacks the findings cache, as it could on a runner that keeps
its disk between jobs: its eslint.config.js (plain JS that real ESLint runs through the bot)
rewrites every entry of the cache folder it can find to claim no findings, and writes new
forged entries where the next review will look. The review of another change run afterwards
must report what that change introduced, with the same exit status, and name the cache."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot import cache
from tests.conftest import GitRepo, require_tool

ROOT = Path(__file__).resolve().parents[2]
CONFIG = 'module.exports = [{ rules: { "no-unused-vars": "error" } }];\n'
# What the attacker runs as its linter's configuration. @PATHS@: entries it writes from
# scratch (an attacker can compute the keys: the key's recipe is in the bot's source).
POISON = r"""
const fs = require("fs");
const os = require("os");
const path = require("path");
const forged = [];
const claim = (text) => {
  // The format read off the entry: a first line (kept as it was), then the JSON.
  const cut = text.indexOf("\n");
  const head = cut >= 0 ? text.slice(0, cut + 1) : "";
  const data = JSON.parse(cut >= 0 ? text.slice(cut + 1) : text);
  if ("findings" in data) data.findings = [];
  if ("version" in data) data.version = "0.0.0";
  return head + JSON.stringify(data);
};
const walk = (dir) => {
  let names = [];
  try { names = fs.readdirSync(dir, { withFileTypes: true }); } catch (e) { return; }
  for (const entry of names) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full);
    else if (entry.name.endsWith(".json")) {
      try { fs.writeFileSync(full, claim(fs.readFileSync(full, "utf8"))); forged.push(full); }
      catch (e) {}
    }
  }
};
for (const root of [process.env.REVIEWBOT_CACHE_DIR, path.join(os.homedir(), ".cache", "reviewbot")]) {
  if (!root) continue;
  walk(root);
  for (const rel of @PATHS@) {
    const full = path.join(root, rel);
    fs.mkdirSync(path.dirname(full), { recursive: true });
    fs.writeFileSync(full, JSON.stringify({ key: path.basename(rel, ".json"), findings: [] }));
    forged.push(full);
  }
}
fs.appendFileSync(@LOG@, forged.join("\n") + "\n");
module.exports = [{ rules: { "no-unused-vars": "error" } }];
"""


def _review(repo: GitRepo, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bot.cli", "review", "--base", "main",
                           "--only", "eslint", "--format", "json"],
                          cwd=repo.path, env=env, capture_output=True, text=True, timeout=180)


def _introduced(done: subprocess.CompletedProcess[str]) -> list[tuple[str, str, int]]:
    return sorted((f["path"], f["rule"], f["line"]) for f in json.loads(done.stdout)["findings"]
                  if f["scope"] == "introduced")


@pytest.mark.parametrize("evicted", [False, True])
def test_a_pull_requests_eslint_config_cannot_poison_the_next_review(
        repo: GitRepo, tmp_path: Path, evicted: bool) -> None:
    """`evicted`: B's entries were gone from the folder before A ran, so A's writes are all new
    entries; else A rewrites the entries B's review left."""
    require_tool("eslint")
    store, log = tmp_path / "cache", tmp_path / "forged.log"
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("GITHUB_", "CI")) and k != "XDG_CACHE_HOME"}
    # A home of its own: the attack also walks the home's default cache folder, which must be
    # this test's, never the machine's.
    (tmp_path / "home").mkdir()
    env.update(PYTHONPATH=str(ROOT), REVIEWBOT_CACHE_DIR=str(store), HOME=str(tmp_path / "home"),
               **{cache.SECRET_VARIABLE: "held by the bot only"})
    repo.commit({"package.json": '{"name": "app", "private": true}\n',
                 "eslint.config.js": CONFIG,
                 "lib.js": "export function f() {\n  return 1;\n}\n"})
    # Change B: an unused variable in lib.js, reported introduced (exit 1: the gate).
    repo.branch("b")
    repo.commit({"lib.js": "export function f() {\n  const unused = 1;\n  return 1;\n}\n"})
    first = _review(repo, env)
    assert first.returncode == 1, first.stderr
    assert _introduced(first) == [("lib.js", "no-unused-vars", 2)]
    entries = sorted(str(p.relative_to(store)) for p in store.rglob("*.json"))
    assert len(entries) >= 3  # lib.js at both revisions, ESLint's version
    if evicted:
        for rel in entries:
            (store / rel).unlink()
    # Change A: the attacker's, reviewed on the same machine with the same cache folder.
    repo.checkout("main")
    repo.branch("a")
    repo.commit({"eslint.config.js": POISON.replace("@PATHS@", json.dumps(entries))
                 .replace("@LOG@", json.dumps(str(log))),
                 "other.js": "export const g = 2;\n"})
    attacked = _review(repo, env)  # (its own config is linted too: unused catch bindings)
    assert attacked.returncode in (0, 1), attacked.stderr
    forged = set(log.read_text().split())
    assert {str(store / rel) for rel in entries} <= forged  # the attack ran, on every entry
    for rel in entries:
        assert b'"findings":[]' in (store / rel).read_bytes() \
            or b'"version":"0.0.0"' in (store / rel).read_bytes()
    # B reviewed again: the same verdict and exit status, and the cache named.
    repo.checkout("b")
    second = _review(repo, env)
    assert second.returncode == 1, second.stderr
    assert _introduced(second) == [("lib.js", "no-unused-vars", 2)]
    assert f"reviewbot: cache {store}: {len(entries)} entries did not verify and were ignored" \
        in second.stderr
    third = _review(repo, env)  # what the second run saved is sound: no word, same verdict
    assert third.returncode == 1 and _introduced(third) == _introduced(first)
    assert "did not verify" not in third.stderr
