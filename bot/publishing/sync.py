"""Bring a forge's comments in line with one review run: post what is new, edit what changed, resolve what
was fixed, keep one sticky summary. Forge-neutral; the decisions are pure (`reconcile`).

Idempotency: a comment is recognised by the fingerprint in its hidden marker, so a finding
already commented is never posted again; after a write that may have taken effect (a 5xx or
a timeout) the state is read again and only what is still missing is retried.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from bot.errors import ReadOnly, Uncertain
from bot.forges.base import Change, Draft, Posted, Rejected, State
from bot.model import ReviewResult
from bot.publishing.placement import Item, Placed
from bot.publishing.policy import Policy, cap, demote
from bot.render.dialect import Dialect

RETRIES = 3  # attempts after an uncertain write before giving up
Status = Literal["published", "read-only", "closed", "stale"]


@dataclass(frozen=True)
class SyncPlan:
    items: tuple[Item, ...]  # after caps
    new: tuple[Item, ...]
    edits: tuple[tuple[Posted, str], ...]
    resolve: tuple[Posted, ...]
    reopen: tuple[Posted, ...]
    kept: frozenset[str]  # keys commented in an earlier run
    gone: tuple[Posted, ...] = ()  # our comments whose finding is fixed
    duplicates: tuple[Posted, ...] = ()  # a second comment for one key, nobody replied


@dataclass(frozen=True)
class Synced:
    status: Status
    placed: Placed
    message: str = ""
    errors: tuple[str, ...] = field(default=())


def duplicates(comments: Sequence[Posted]) -> tuple[Posted, ...]:
    """Later comments for a key already commented (a write the forge carried out after it
    answered with an error, and that was sent again); never one somebody replied to."""
    seen: set[str] = set()
    out = []
    for comment in comments:
        if comment.key in seen and not comment.replied:
            out.append(comment)
        seen.add(comment.key)
    return tuple(out)


def reconcile(items: Sequence[Item], state: State, policy: Policy) -> SyncPlan:
    posted: dict[str, Posted] = {}
    for comment in state.comments:
        posted.setdefault(comment.key, comment)
    capped = cap(items, frozenset(posted), policy)
    present = {item.key for item in capped}
    edits = tuple((posted[i.key], i.body.text) for i in capped
                  if i.key in posted and i.body is not None and i.body.digest != posted[i.key].digest)
    new = tuple(i for i in capped if i.kind != "summary" and i.key not in posted)
    gone = tuple(p for p in posted.values() if p.key not in present)
    resolve = tuple(p for p in gone if not p.resolved)
    # Reopen only what we resolved ourselves: a human resolving a live finding is a decision.
    reopen = tuple(posted[i.key] for i in capped
                   if i.key in posted and posted[i.key].resolved and posted[i.key].resolved_by_us)
    kept = frozenset(key for key in posted if key in present)
    return SyncPlan(capped, new, edits, resolve, reopen, kept, gone, duplicates(state.comments))


def draft(item: Item) -> Draft:
    assert item.body is not None
    inline = item.kind == "inline"
    return Draft(item.key, item.verdict.finding.path, item.body.text,
                 item.line if inline else None, item.start_line if inline else None,
                 item.old_path, item.old_line if inline else None)


def publish(forge: Change, result: ReviewResult, items: Sequence[Item],
            texts: Mapping[str, Sequence[str]], policy: Policy,
            summary: Callable[[Placed], str], *, settle: float = 2.0,
            sleep: Callable[[float], None] = time.sleep, dialect: Dialect | None = None
            ) -> Synced:
    """Post `items`, then the summary of what was done; refused comments are re-rendered in
    `dialect` (default: the forge's)."""
    dialect = dialect or forge.dialect
    state = forge.load()
    if not state.open:
        return Synced("closed", Placed(with_kind(items, "summary", "the pull request is closed")),
                       "the pull request is closed; nothing posted")
    if state.head != result.head:
        return Synced("stale", Placed(with_kind(items, "summary", "the head moved")),
                       f"the pull request's head moved to {state.head[:12]} since "
                       f"{result.head[:12]} was analysed; not commenting on stale lines")
    plan = reconcile(items, state, policy)
    try:
        final, uncertain = _post_all(forge, result, plan, texts, dialect, settle, sleep)
        extra: Sequence[Posted] = ()
        if uncertain:
            # A write that failed may still appear after it was sent again: look once more.
            sleep(settle)
            extra = duplicates(forge.load().comments)
        for comment in dict.fromkeys([*plan.duplicates, *extra]):
            forge.delete(comment)
        for comment, body in plan.edits:
            forge.edit(comment, body)
        for comment in plan.resolve:
            forge.resolve(comment, True)
        for comment in plan.reopen:
            forge.resolve(comment, False)
        placed = Placed(final, frozenset(i.key for i in final if i.key not in plan.kept
                                         and i.kind != "summary"),
                        plan.kept, len(plan.edits),
                        sum(1 for c in plan.gone if c.resolved or c.thread), len(plan.reopen),
                        0 if state.threads_known else len(plan.resolve))
        forge.summary(state, summary(placed))
    except ReadOnly as exc:
        return Synced("read-only", Placed(with_kind(
            plan.items, "summary", "the token cannot write to this pull request")), exc.message)
    return Synced("published", placed)


def _post_all(forge: Change, result: ReviewResult, plan: SyncPlan, texts: Mapping[str, Sequence[str]],
              dialect: Dialect, settle: float, sleep: Callable[[float], None]
              ) -> tuple[tuple[Item, ...], bool]:
    """The items as finally placed, and whether any write was uncertain."""
    by_key = {item.key: item for item in plan.items}
    body = review_body(result, len(plan.new))
    uncertain: list[bool] = []
    rejected = _post_safely(forge, result.head, body, [draft(i) for i in plan.new], settle, sleep,
                            uncertain)
    retry: list[Item] = []
    for refused in rejected:
        item = by_key[refused.draft.key]
        by_key[item.key] = demote(item, refused.reason, texts.get(item.verdict.finding.path, ()),
                                  dialect=dialect)
        if by_key[item.key].kind == "file":
            retry.append(by_key[item.key])
    if retry:
        for refused in _post_safely(forge, result.head, body, [draft(i) for i in retry], settle, sleep,
                                    uncertain):
            by_key[refused.draft.key] = demote(by_key[refused.draft.key], refused.reason, (),
                                               dialect=dialect)
    return tuple(by_key[item.key] for item in plan.items), bool(uncertain)


def _post_safely(forge: Change, head: str, body: str, drafts: list[Draft], settle: float,
                 sleep: Callable[[float], None], uncertain: list[bool]) -> list[Rejected]:
    pending = drafts
    for attempt in range(RETRIES + 1):
        if not pending:
            return []
        try:
            return forge.post(head, body, pending)
        except Uncertain:
            uncertain.append(True)
            if attempt == RETRIES:
                raise
            sleep(settle * (attempt + 1))  # let a write that did go through become visible
            done = {comment.key for comment in forge.load().comments}
            pending = [d for d in pending if d.key not in done]
    return []


def review_body(result: ReviewResult, count: int) -> str:
    noun = "finding" if count == 1 else "findings"
    return (f"**reviewbot** — {count} new {noun} on `{result.head[:12]}` "
            f"(compared with the merge base `{result.merge_base[:12]}`). "
            "The reviewbot summary comment lists everything, including what is not inline.")


def with_kind(items: Sequence[Item], kind: Literal["summary"], reason: str) -> tuple[Item, ...]:
    """Every item folded into the summary (read-only tokens, dry runs without a forge)."""
    return tuple(replace(i, kind=kind, reason=reason) if i.kind != "summary" else i for i in items)
