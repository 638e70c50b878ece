"""`reviewbot ast-edit`: stage structural rewrites as a plan, then apply the plan all-or-nothing."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bot.commands import common
from bot.commands.ast_grep import add_pattern_args, search
from bot.errors import BotError, Exit
from bot.render.quoting import quote_path
from bot.structural import api
from bot.structural import plan as planmod
from bot.structural.show import file_diff, plan_summary


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("ast-edit", help="stage structural rewrites, or apply a staged plan",
                       description="With --stage: compute every rewrite, print them as a diff and "
                                   "write the plan; no source is touched. With --apply: write the "
                                   "plan's edits if no file changed since staging, else nothing.")
    p.add_argument("--rewrite", "-r", help="replacement template ($X, $$$XS, ${X}suffix)")
    p.add_argument("--stage", type=Path, metavar="PLAN.json", help="write the plan here")
    p.add_argument("--apply", type=Path, metavar="PLAN.json", help="apply this staged plan")
    add_pattern_args(p)
    for group in p._mutually_exclusive_groups:
        group.required = False  # --apply takes neither
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.apply is not None:
        if args.stage is not None or args.pattern or args.rule or args.rewrite is not None:
            raise BotError("--apply takes only the plan; stage with --pattern/--rewrite/--stage")
        return _apply(args.apply)
    if args.rule is not None and args.rewrite is not None:
        raise BotError("--rule rewrites with the rule's own `fix`: drop --rewrite", Exit.USAGE)
    if args.stage is None or not (args.rule or (args.pattern and args.rewrite is not None)):
        raise BotError("ast-edit needs --pattern, --rewrite and --stage PLAN.json, or --rule "
                       "RULE.yml (with a fix) and --stage (or --apply PLAN.json)", Exit.USAGE)
    return _stage(args)


def _stage(args: argparse.Namespace) -> int:
    common.writable_output(args.stage, "--stage")
    res = search(args, rewrite=args.rewrite, staging=True)
    for note in res.notes:
        print(f"reviewbot: {note}", file=sys.stderr)
    root = Path.cwd().resolve()
    pattern = args.pattern if args.rule is None else f"rule {args.rule}"
    rewrite = args.rewrite if args.rule is None else "(the rule's fix)"
    plan = planmod.build(res.results, root, ",".join(res.languages), pattern, rewrite)
    by_path = {Path(r.file.abspath).resolve(): r for r in res.results}
    diffs = []
    for f in plan.files:
        r = by_path[(root / f.path).resolve()]
        assert r.rewrite is not None
        before = r.source.decode("utf-8", errors="replace")
        after = r.rewrite.new_source.decode("utf-8", errors="replace")
        diffs.append((f, file_diff(r.file.path, before, after)))
    with common.writing(args.stage, "--stage"):
        planmod.save(plan, args.stage)
    print(plan_summary(plan, diffs))
    print(f"plan written to {args.stage}; apply with: reviewbot ast-edit --apply {args.stage}")
    return int(Exit.OK)


def _apply(path: Path) -> int:
    plan = planmod.load(path)
    planmod.within(plan, Path.cwd(), str(path))
    written = api.apply(plan)
    print(f"applied {plan.count} edit(s) to {len(written)} file(s)")
    for rel in written:
        print(f"  {quote_path(rel)}")
    return int(Exit.OK)
