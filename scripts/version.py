#!/usr/bin/env python3
"""The release's version lives in pyproject.toml (`[project] version`); the files a user runs
from a tag name it too, because neither GitHub's action.yml nor GitLab's component can compute
it: each action.yml's `image: docker://REPO:VERSION[-FLAVOR]`, the no-container action's
`version` input, the GitLab component's `version` and `image` inputs and the plain templates'
REVIEWBOT_IMAGE. This checks them against pyproject.toml and rewrites them.

  version.py check [--tag vX.Y.Z] [--image REPO]   exit 0: all agree (prints version=, minor=,
                                                   major=, image= for $GITHUB_OUTPUT);
                                                   1: a file disagrees (each one named)
  version.py set VERSION [--image REPO]            rewrites them all (pyproject.toml included)

Exit status 2: a usage error (a version that is not X.Y.Z, a tag that is not vX.Y.Z).
Standard library only: the release workflow runs it before installing anything."""

from __future__ import annotations

import argparse
import re
import sys
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FLAVORS = ("python", "node", "go", "rust")  # each an action under actions/; the root one is full
SEMVER = re.compile(r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)")
REF = r"(?P<repo>[a-z0-9][a-z0-9._/-]*[a-z0-9]):(?P<version>[0-9][0-9A-Za-z.]*)"


@dataclass(frozen=True)
class Place:
    """One line of one file that names the version (and maybe the image repository)."""

    path: str
    pattern: re.Pattern[str]  # groups: version, and repo where the line names the image
    suffix: str = ""  # what follows the version in an image tag (-python)

    def find(self, root: Path) -> re.Match[str] | None:
        return self.pattern.search((root / self.path).read_text())


def image_line(suffix: str) -> re.Pattern[str]:
    return re.compile(rf"^\s*image:\s*['\"]?docker://{REF}{re.escape(suffix)}['\"]?\s*$", re.M)


def places() -> list[Place]:
    out = [Place("action.yml", image_line(""))]
    out += [Place(f"actions/{f}/action.yml", image_line(f"-{f}"), f"-{f}") for f in FLAVORS]
    out.append(Place("actions/native/action.yml", re.compile(
        r"^  version:\n(?:    .*\n)*?    default:\s*['\"]?(?P<version>[0-9][0-9A-Za-z.]*)['\"]?\s*$", re.M)))
    out.append(Place("templates/gitlab/template.yml", re.compile(
        r"^    version:\n(?:      .*\n)*?      default:\s*['\"]?(?P<version>[0-9][0-9A-Za-z.]*)['\"]?\s*$",
        re.M)))
    out.append(Place("templates/gitlab/template.yml", re.compile(
        r"^    image:\n(?:      .*\n)*?      default:\s*(?P<repo>\S+)\s*$", re.M)))
    for name in ("reviewbot.yml", "merge-request.yml"):
        out.append(Place(f"templates/gitlab/{name}", re.compile(
            rf"^\s*REVIEWBOT_IMAGE:\s*{REF}\s*$", re.M)))
    return out


def project_version(root: Path) -> str:
    with (root / "pyproject.toml").open("rb") as handle:
        return str(tomllib.load(handle)["project"]["version"])


def problems(root: Path, version: str, image: str | None) -> list[str]:
    """What disagrees with `version` (and with the image repository `image`, when given)."""
    out: list[str] = []
    for place in places():
        found = place.find(root)
        if found is None:
            out.append(f"{place.path}: no line names the version (expected {place.pattern.pattern!r})")
            continue
        groups = found.groupdict()
        if "version" in groups and groups["version"] != version:
            out.append(f"{place.path}: names version {groups['version']}, pyproject.toml {version}")
        if image is not None and "repo" in groups and groups["repo"] != image:
            out.append(f"{place.path}: names image {groups['repo']}, this release pushes {image}")
    return out


def rewrite(root: Path, version: str, image: str | None) -> list[str]:
    """Sets every place (and pyproject.toml) to `version` and `image`; returns the files changed."""
    changed: list[str] = []

    def edit(path: str, change: Callable[[str], str]) -> None:
        before = (root / path).read_text()
        after = change(before)
        if after != before:
            (root / path).write_text(after)
            changed.append(path)

    edit("pyproject.toml", lambda t: re.sub(r'(?m)^version = "[^"]*"$', f'version = "{version}"', t,
                                            count=1))
    for place in places():
        def change(text: str, place: Place = place) -> str:
            found = place.pattern.search(text)
            if found is None:
                raise SystemExit(f"version.py: {place.path}: no line names the version")
            values = {"version": version, "repo": image}
            spans = sorted(((found.span(group), value) for group, value in values.items()
                            if value is not None and group in found.groupdict()), reverse=True)
            for (start, end), value in spans:  # from the end: the earlier spans stay valid
                text = text[:start] + value + text[end:]
            return text
        edit(place.path, change)
    return changed


def parse_tag(tag: str) -> str:
    if not (tag.startswith("v") and SEMVER.fullmatch(tag[1:])):
        raise ValueError(f"the tag {tag!r} is not vX.Y.Z")
    return tag[1:]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="version.py", description=__doc__.split("\n\n")[0])
    verbs = parser.add_subparsers(dest="verb", required=True)
    check = verbs.add_parser("check", help="check every file against pyproject.toml")
    check.add_argument("--tag", help="the release's tag (vX.Y.Z): must be pyproject.toml's version")
    check.add_argument("--image", help="the image repository the release pushes (ghcr.io/OWNER/NAME)")
    put = verbs.add_parser("set", help="write VERSION (and --image) into every file")
    put.add_argument("version")
    put.add_argument("--image", help="the image repository to name (ghcr.io/OWNER/NAME)")
    args = parser.parse_args(argv)
    image = args.image.lower() if args.image else None
    if image is not None and not re.fullmatch(REF.split(":")[0], image):
        print(f"version.py: {args.image!r} is not an image repository (ghcr.io/OWNER/NAME)",
              file=sys.stderr)
        return 2
    if args.verb == "set":
        if not SEMVER.fullmatch(args.version):
            print(f"version.py: {args.version!r} is not X.Y.Z", file=sys.stderr)
            return 2
        for path in rewrite(ROOT, args.version, image):
            print(f"version.py: wrote {path}")
        return 0
    version = project_version(ROOT)
    if not SEMVER.fullmatch(version):
        print(f"version.py: pyproject.toml's version {version!r} is not X.Y.Z", file=sys.stderr)
        return 2
    wanted = version
    if args.tag is not None:
        try:
            wanted = parse_tag(args.tag)
        except ValueError as error:
            print(f"version.py: {error}", file=sys.stderr)
            return 2
    found = problems(ROOT, version, image)
    if wanted != version:
        found.insert(0, f"the tag {args.tag} is not pyproject.toml's version {version}")
    if found:
        for line in found:
            print(f"version.py: {line}", file=sys.stderr)
        hint = f" --image {image}" if image else ""
        print(f"version.py: run `scripts/version.py set {wanted}{hint}`, commit, and tag that commit",
              file=sys.stderr)
        return 1
    major, minor, _ = version.split(".")
    repo = image or ""
    print(f"version={version}\nminor={major}.{minor}\nmajor={major}\nimage={repo}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
