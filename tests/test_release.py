"""The release: one version (pyproject.toml) that every action.yml, the no-container action and
the GitLab templates agree with (scripts/version.py, which the release workflow runs before it
builds anything); actions that pull a released image and never build one; flavor actions that
are the root action with another image; the release workflow's jobs; a wheel and an sdist that
`twine check` accepts."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
VERSION_PY = ROOT / "scripts" / "version.py"
FLAVORS = ("python", "node", "go", "rust")
RELEASE = ROOT / ".github" / "workflows" / "release.yml"
UNRELEASED = "not-a-release-use-a-tag.invalid/reviewbot"  # docs/release.md: what an unreleased checkout names


def load(path: Path) -> dict[str, Any]:
    return dict(yaml.safe_load(path.read_text()))


def project() -> dict[str, Any]:
    with (ROOT / "pyproject.toml").open("rb") as handle:
        return dict(tomllib.load(handle)["project"])


def version_py(*args: str, root: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(root / "scripts" / "version.py"), *args],
                          capture_output=True, text=True)


def test_every_file_names_pyproject_s_version() -> None:
    done = version_py("check", "--image", UNRELEASED)
    assert done.returncode == 0, done.stderr
    version = project()["version"]
    major, minor, _ = version.split(".")
    assert done.stdout.splitlines() == [f"version={version}", f"minor={major}.{minor}",
                                        f"major={major}", f"image={UNRELEASED}"]


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    """The files version.py reads, in a folder of their own."""
    for rel in ["pyproject.toml", "scripts/version.py", "action.yml", "actions/native/action.yml",
                *(f"actions/{f}/action.yml" for f in FLAVORS),
                *(f"templates/gitlab/{n}" for n in ("template.yml", "reviewbot.yml", "merge-request.yml"))]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / rel, tmp_path / rel)
    return tmp_path


def test_a_file_behind_is_named(copy: Path) -> None:
    node = copy / "actions" / "node" / "action.yml"
    node.write_text(node.read_text().replace(":0.1.0-node", ":0.0.9-node"))
    done = version_py("check", root=copy)
    assert done.returncode == 1
    assert "actions/node/action.yml: names version 0.0.9, pyproject.toml 0.1.0" in done.stderr
    assert "run `scripts/version.py set 0.1.0`" in done.stderr


def test_a_tag_s_action_never_builds_a_dockerfile(copy: Path) -> None:
    action = copy / "action.yml"
    action.write_text(re.sub(r"image: docker://\S+", "image: Dockerfile", action.read_text()))
    done = version_py("check", "--tag", "v0.1.0", root=copy)
    assert done.returncode == 1 and "action.yml: no line names the version" in done.stderr


def test_the_tag_and_the_image_must_match(copy: Path) -> None:
    done = version_py("check", "--tag", "v0.2.0", "--image", "registry.example/Acme/reviewbot",
                      root=copy)
    assert done.returncode == 1
    assert "the tag v0.2.0 is not pyproject.toml's version 0.1.0" in done.stderr
    assert f"actions/python/action.yml: names image {UNRELEASED}, this release pushes " \
           "registry.example/acme/reviewbot" in done.stderr  # image names are lower case
    assert "set 0.2.0 --image registry.example/acme/reviewbot" in done.stderr


@pytest.mark.parametrize("args", [["check", "--tag", "0.1.0"], ["check", "--tag", "v1.2"],
                                  ["set", "1.2"], ["set", "1.2.3", "--image", "ghcr.io/a b"]])
def test_a_bad_version_is_a_usage_error(copy: Path, args: list[str]) -> None:
    done = version_py(*args, root=copy)
    assert done.returncode == 2 and done.stderr.startswith("version.py: "), done.stderr


def test_set_rewrites_every_place(copy: Path) -> None:
    done = version_py("set", "1.4.2", "--image", "registry.example/acme/bot", root=copy)
    assert done.returncode == 0, done.stderr
    check = version_py("check", "--tag", "v1.4.2", "--image", "registry.example/acme/bot",
                       root=copy)
    assert check.returncode == 0, check.stderr
    assert "image: docker://registry.example/acme/bot:1.4.2-rust\n" in \
        (copy / "actions/rust/action.yml").read_text()
    assert 'version = "1.4.2"' in (copy / "pyproject.toml").read_text()
    component = (copy / "templates/gitlab/template.yml").read_text()
    assert "default: registry.example/acme/bot\n" in component and 'default: "1.4.2"' in component


def test_an_unreleased_checkout_cannot_be_tagged(copy: Path) -> None:
    """Before the release step writes the project's image, a tag is refused before anything
    is built, with the command that writes it."""
    done = version_py("check", "--tag", "v0.1.0", "--image", "registry.example/us/reviewbot",
                      root=copy)
    assert done.returncode == 1
    assert f"action.yml: names image {UNRELEASED}, this release pushes " \
           "registry.example/us/reviewbot" in done.stderr
    assert "set 0.1.0 --image registry.example/us/reviewbot" in done.stderr


def test_actions_pull_the_release_s_image() -> None:
    """Until the release step writes the project's own image, every action and template names
    one under the reserved .invalid domain (RFC 2606): no registry answers for it, so a copy
    of an unreleased checkout stops at the pull and can never run a stranger's image."""
    version = project()["version"]
    for folder, suffix in [(ROOT, ""), *((ROOT / "actions" / f, f"-{f}") for f in FLAVORS)]:
        runs = load(folder / "action.yml")["runs"]
        assert runs["using"] == "docker"
        assert runs["image"] == f"docker://{UNRELEASED}:{version}{suffix}"
        assert "Dockerfile" not in str(runs)


# Registries anyone can publish to: a reference to a namespace on one of them is either the
# project's own (written by `scripts/version.py set --image`) or the documented placeholder.
PUBLIC_REGISTRY = re.compile(r"\b(?:ghcr\.io|(?:index\.|registry-1\.)?docker\.io|quay\.io|"
                             r"registry\.gitlab\.com|gcr\.io|[a-z0-9-]+\.pkg\.dev|"
                             r"public\.ecr\.aws|mcr\.microsoft\.com)/([^/\s\"'`)]+)/")


def own_namespaces() -> set[str]:
    """OWNER (where the project is published, docs/release.md), the release workflow's
    computed one, and the namespace the actions name once a release wrote it."""
    own = {"OWNER", "${GITHUB_REPOSITORY,,}"}
    image = load(ROOT / "action.yml")["runs"]["image"].removeprefix("docker://")
    found = PUBLIC_REGISTRY.match(image)
    return own | ({found[1]} if found else set())


def test_no_committed_file_names_a_namespace_that_is_not_the_project_s() -> None:
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True,
                           check=True).stdout.split("\0")
    own = own_namespaces()
    found = []
    for rel in filter(None, files):
        try:
            text = (ROOT / rel).read_text("utf-8")
        except (UnicodeDecodeError, OSError):  # binary, or being moved by someone right now
            continue
        for line_no, line in enumerate(text.splitlines(), 1):
            found += [f"{rel}:{line_no}: {m[0]}" for m in PUBLIC_REGISTRY.finditer(line)
                      if m[1] not in own]
    assert not found, "\n".join(found)


def test_the_namespace_scan_can_fail() -> None:
    ghcr, quay = "ghcr" + ".io", "quay" + ".io"  # split: this file is scanned too
    assert [m[1] for m in PUBLIC_REGISTRY.finditer(
        f"docker://{ghcr}/owner/reviewbot:1 {quay}/acme/x {ghcr}/OWNER/reviewbot:0")] == \
        ["owner", "acme", "OWNER"]


def test_flavor_actions_are_the_root_action_with_another_image() -> None:
    root = load(ROOT / "action.yml")
    for flavor in FLAVORS:
        doc = load(ROOT / "actions" / flavor / "action.yml")
        assert doc["inputs"] == root["inputs"] and doc["outputs"] == root["outputs"], flavor
        assert {k: v for k, v in doc["runs"].items() if k != "image"} == \
            {k: v for k, v in root["runs"].items() if k != "image"}


def test_the_no_container_action_takes_the_same_inputs_and_gives_the_same_outputs() -> None:
    root, native = load(ROOT / "action.yml"), load(ROOT / "actions" / "native" / "action.yml")
    assert native["runs"]["using"] == "composite"
    extra = set(native["inputs"]) - set(root["inputs"])
    assert extra == {"version", "package", "python"}
    assert {k: native["inputs"][k] for k in root["inputs"]} == root["inputs"]
    assert set(native["outputs"]) == set(root["outputs"])
    for name, output in native["outputs"].items():
        assert output["value"] == f"${{{{ steps.review.outputs.{name} }}}}"
    review = next(s for s in native["runs"]["steps"] if s.get("id") == "review")
    given = {k.removeprefix("INPUT_"): v for k, v in review["env"].items() if k.startswith("INPUT_")}
    assert given == {n.upper().replace("-", "_"): f"${{{{ inputs.{n} }}}}" for n in root["inputs"]}


def dockerfile_targets() -> list[str]:
    return re.findall(r"^FROM \S+ AS (\S+)$", (ROOT / "Dockerfile").read_text(), re.M)


def test_the_dockerfile_builds_each_flavor_and_full_by_default() -> None:
    targets = dockerfile_targets()
    assert {*FLAVORS, "full"} <= set(targets)
    assert targets[-1] == "full"  # `docker build .` builds the last stage


def test_the_release_workflow() -> None:
    doc = load(RELEASE)
    on = doc[True]  # YAML 1.1 reads the key `on` as true
    assert on["push"] == {"tags": ["v[0-9]+.[0-9]+.[0-9]+"]}
    publish = on["workflow_dispatch"]["inputs"]["publish"]
    assert publish["type"] == "boolean" and publish["default"] is False
    assert doc["permissions"] == {"contents": "read"}
    jobs = doc["jobs"]
    check = "\n".join(s.get("run", "") for s in jobs["version"]["steps"])
    assert "scripts/version.py check --tag \"$GITHUB_REF_NAME\"" in check

    images = jobs["images"]
    assert sorted(images["strategy"]["matrix"]["flavor"]) == sorted([*FLAVORS, "full"])
    steps = {s["uses"].split("@")[0]: s for s in images["steps"] if "uses" in s}
    build = steps["docker/build-push-action"]["with"]
    assert build["push"] == "${{ needs.version.outputs.publish == 'true' }}"
    assert build["target"] == "${{ matrix.flavor }}"
    assert build["provenance"] == "mode=max" and build["sbom"] is True
    assert steps["docker/login-action"]["if"] == "needs.version.outputs.publish == 'true'"
    tags = steps["docker/metadata-action"]["with"]["tags"]
    for part in ("version", "minor", "major"):
        assert f"value=${{{{ needs.version.outputs.{part} }}}}-${{{{ matrix.flavor }}}}" in tags

    moves = jobs["floating-tags"]["steps"][-1]  # v0 and v0.1 for v0.1.0, vX and vX.Y after 1.0
    assert moves["env"] == {"MAJOR": "v${{ needs.version.outputs.major }}",
                            "MINOR": "v${{ needs.version.outputs.minor }}"}
    assert 'git push --force origin "refs/tags/$MAJOR" "refs/tags/$MINOR"' in moves["run"]
    for job in ("pypi", "floating-tags"):
        assert jobs[job]["if"] == "needs.version.outputs.publish == 'true'", job
    pypi = jobs["pypi"]
    assert pypi["permissions"] == {"id-token": "write"}  # trusted publishing, no stored token
    assert any(s.get("uses", "").startswith("pypa/gh-action-pypi-publish@v") for s in pypi["steps"])


def test_every_action_a_workflow_uses_is_pinned_to_a_version() -> None:
    for path in sorted((ROOT / ".github" / "workflows").glob("*.yml")):
        for job in load(path)["jobs"].values():
            for step in job.get("steps", []):
                if "uses" in step:
                    assert re.fullmatch(r"[\w.-]+/[\w.-]+@v\d+(\.\d+)*", step["uses"]), step["uses"]


def test_the_release_builds_with_the_tools_the_tests_use() -> None:
    pins = {re.split("==", r)[0]: r for r in project()["optional-dependencies"]["dev"] if "==" in r}
    text = RELEASE.read_text()
    for name in ("build", "twine"):
        assert f'"{pins[name]}"' in text, name


def test_the_wheel_and_sdist_pass_twine_check(tmp_path: Path) -> None:
    """What the release's python-package job runs, for real."""
    dist = tmp_path / "dist"
    done = subprocess.run([sys.executable, "-m", "build", "--outdir", str(dist), str(ROOT)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    version = project()["version"]
    assert sorted(p.name for p in dist.iterdir()) == [f"reviewbot-{version}-py3-none-any.whl",
                                                      f"reviewbot-{version}.tar.gz"]
    check = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", *map(str, dist.iterdir())],
                           capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    assert check.stdout.count("PASSED") == 2
