"""A pull request conversation from the first review to the apply commit, printed as a
transcript with the requests each turn sent (run with -s to read it)."""

from __future__ import annotations

from collections.abc import Callable

from tests.flows.conftest import World, git


def turn(world: World, title: str, act: Callable[[], int]) -> tuple[int, int]:
    world.fake.reset_calls()
    comments_before = set(world.fake.s.issue_comments)
    act()
    reads, writes = world.fake.count(write=False), world.fake.count(write=True)
    print(f"\n## {title}   [{reads} reads, {writes} writes]")
    for cid in sorted(set(world.fake.s.issue_comments) - comments_before):
        c = world.fake.s.issue_comments[cid]
        if "reviewbot:summary" in c["body"]:
            continue
        who = c["user"]["login"]
        print(f"  {who}: " + c["body"].replace("\n", "\n    ")[:700])
        reactions = [r["content"] for r in world.fake.s.reactions.get(cid, [])]
        if reactions:
            print(f"    reactions: {' '.join(reactions)}")
    return reads, writes


def test_transcript(world: World) -> None:
    counts = {}
    counts["pull_request opened (review)"] = turn(world, "pull_request opened", world.review)
    counts["/help"] = turn(world, "wes: /help", lambda: world.comment("wes", "/help"))
    counts["/ast-grep"] = turn(world, "wes: /ast-grep print($A)",
                               lambda: world.comment("wes", "/ast-grep print($A)"))
    counts["/ast-edit"] = turn(world, "wes: /ast-edit print($A) => log($A)",
                               lambda: world.comment("wes", "/ast-edit print($A) => log($A)"))
    counts["/ignore"] = turn(world, "wes: /ignore", lambda: world.comment(
        "wes", "/ignore " + _fp(world, "F841") + " kept for the debugger"))
    counts["/review"] = turn(world, "wes: /review", lambda: world.comment("wes", "/review"))
    counts["read user /apply"] = turn(world, "rex (read): /apply",
                                      lambda: world.comment("rex", "/apply"))
    counts["bot comment"] = turn(world, "github-actions[bot]: /apply",
                                 lambda: world.comment("github-actions[bot]", "/apply", bot=True))
    counts["/apply"] = turn(world, "ada: /apply", lambda: world.comment("ada", "/apply"))
    counts["/fix (nothing left)"] = turn(world, "max: /fix", lambda: world.comment(
        "max", "/fix", written="2026-01-02T11:00:00Z"))
    print("\n| turn | reads | writes |\n|---|---:|---:|")
    for name, (reads, writes) in counts.items():
        print(f"| {name} | {reads} | {writes} |")
    new = world.branch()
    assert git(world.origin, "rev-parse", f"{new}^") == world.head
    assert git(world.origin, "show", f"{new}:app.py") == (
        "import sys\n\n\ndef main():\n    log(sys.argv)\n    unused = 1\n    return sys.argv")
    assert any(new in body for body in world.replies())
    assert counts["bot comment"] == (0, 0) and counts["read user /apply"][1] == 2
    assert counts["/help"] == (1, 3)  # the permission; eyes, the reply, rocket
    assert "Nothing to commit" in world.replies()[-1]


def _fp(world: World, rule: str) -> str:
    from bot.render.markdown import parse_marker
    for comment in world.fake.bot_comments():
        marker = parse_marker(comment["body"])
        if rule in comment["body"] and marker:
            return marker.fingerprint
    raise AssertionError(rule)
