"""The bench's figures from results/*.jsonl and the judgements of judgements.toml: per language,
pairs, findings, agreements, disagreements, bot right / wrong / unclear and timings; then every
disagreement with its judgement. Exit 1 when a disagreement has no judgement.

    .venv/bin/python bench/history/summarize.py [--results DIR]
"""

from __future__ import annotations

import argparse
import json
import sys
import tomllib
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
LANGUAGES = ("python", "typescript", "go", "rust")


def judge(judgements: list[dict[str, str]], record: dict[str, object],
          row: dict[str, object]) -> dict[str, str] | None:
    """The first judgement naming this pair (head prefix) whose optional path and rule fit."""
    for j in judgements:
        if (j["project"] == record["project"] and str(record["head"]).startswith(j["head"])
                and j.get("path", row["path"]) == row["path"]
                and j.get("rule", row["rule"]) == row["rule"]):
            return j
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=HERE / "results")
    args = parser.parse_args(argv)
    judgements = tomllib.loads((HERE / "judgements.toml").read_text())["judgement"]
    table = ["| language | pairs | failed | findings | bot new | oracle new | diff new | "
             "agree | disagree | bot right | bot wrong | unclear | bot (s) | linter twice (s) | "
             "diff filter (s) | bot / twice | bot / diff |",
             "|---|" + "---:|" * 16]
    listing, missing, bots = [], 0, set()
    for language in LANGUAGES:
        path = args.results / f"{language}.jsonl"
        if not path.exists():
            continue
        records = [json.loads(row) for row in path.read_text().splitlines()]
        n: Counter[str] = Counter()
        for r in records:
            bots.add(str(r["bot_commit"])[:12])
            n["pairs"] += 1
            if r.get("failed"):
                n["failed"] += 1
                listing.append(f"- FAILED {r['project']} {r['head'][:12]}: "
                               f"{json.dumps(r['failed'])[:300]}")
                continue
            counts, seconds = r["counts"], r["seconds"]
            for key in ("findings", "bot_new", "oracle_new", "diff_new"):
                n[key] += counts[key]
            n["disagree"] += len(r["disagreements"])
            n["bot"] += seconds["bot"] * 1000
            n["twice"] += (seconds["linter_base"] + seconds["linter_head"]) * 1000
            n["diff"] += seconds["diff_filter"] * 1000
            for row in r["disagreements"]:
                j = judge(judgements, r, row)
                verdict = j["verdict"] if j else "UNJUDGED"
                missing += j is None
                n[verdict] += 1
                listing.append(
                    f"- {r['project']} {r['head'][:12]} `{row['path']}:{row['line']}` "
                    f"{row['rule']}: bot {row['bot']}"
                    f"{'/' + str(row['where']) if row['where'] else ''}, oracle {row['oracle']}, "
                    f"diff {row['diff']} -> **{verdict}**" + (f" ({j['id']})" if j else ""))
        bot, twice, diff = n["bot"] / 1000, n["twice"] / 1000, n["diff"] / 1000
        table.append(
            f"| {language} | {n['pairs']} | {n['failed']} | {n['findings']} | {n['bot_new']} | "
            f"{n['oracle_new']} | {n['diff_new']} | {n['findings'] - n['disagree']} | "
            f"{n['disagree']} | {n['bot-right']} | {n['bot-wrong']} | {n['unclear']} | "
            f"{bot:.1f} | {twice:.1f} | {diff:.1f} | {bot / twice if twice else 0:.2f}x | "
            f"{bot / diff if diff else 0:.2f}x |")
    print("\n".join(table))
    print(f"\nbot commit(s): {', '.join(sorted(bots))}\n")
    print("\n".join(listing))
    if missing:
        print(f"\n{missing} disagreement(s) not judged", file=sys.stderr)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
