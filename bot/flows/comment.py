"""A comment on a change (GitHub's `issue_comment`, a GitLab note hook, Gitea's
`issue_comment`): the slash commands of the comment, in order, on any forge.

Comments by bots are ignored without a request (the bot's own replies included: no loop). A
comment with no command line sends nothing either. Someone without the permission gets a `-1`
reaction and one reply saying who may, and nothing else is written. Otherwise: `eyes`, every
command at the head the comment was written against (a head pushed after the comment stops
them all), one review published at the end when a command changed what it shows, then
`rocket`, or `confused` when a command failed (its reply says why). The exit status is 0 when
the commands could be answered: the gate is the check run's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Literal

from bot import config, git
from bot.apply import sources
from bot.apply.plan import plan_for, render
from bot.ci.base import Runner
from bot.conversation import structural
from bot.conversation.parse import Command, Parsed, Problem, help_text
from bot.conversation.parse import commands as parse_commands
from bot.conversation.state import Ignored, Staged, without_ignored
from bot.errors import BotError, Exit
from bot.flows.actor import Skip, acting
from bot.flows.session import Session, Workplace, log, reply_outcome, start
from bot.forges.repository import Access
from bot.model import Trigger
from bot.options import CiOptions
from bot.publishing.offer import staged
from bot.publishing.turn import Reaction, Review, Turn
from bot.render.markdown import code, escape, inline


def comment(runner: Runner, options: CiOptions, trigger: Trigger,
            at: Workplace | None = None) -> Turn:
    """The comment's commands; `at` where they work (default: the CI's checkout, which is the
    default branch, and its settings). The turn ends with the comment's reaction."""
    assert trigger.number is not None and trigger.comment_id is not None
    actor = acting(trigger, "a comment", "commands are not run")
    if isinstance(actor, Skip):
        log(actor.line)
        return Turn()
    if at is None:
        checkout = runner.checkout(options.repo)
        # The default branch: a checkout without `ref`.
        at = Workplace(checkout, config.read_at(checkout, "HEAD"))
    cfg = at.cfg
    parsed = parse_commands(trigger.comment_body or "", cfg.command_prefix)
    if not parsed:
        log(f"comment {trigger.comment_id} holds no command")
        return Turn()
    session = start(runner, options, trigger, at)
    number, comment = trigger.number, trigger.comment_id

    def refuse(access: Access) -> None:
        session.repo.react(number, comment, "-1")
        session.say(session.who_may(access, "run reviewbot commands"))

    if not session.admitted(actor, refuse):
        return Turn()
    session.repo.react(number, comment, "eyes")
    try:
        ok, review = run(session, parsed, trigger)
        code = int(Exit.OK)  # the gate is the check run's: a comment's job reports the commands
    except BotError as exc:
        session.say(f"reviewbot failed: {escape(exc.message)}")
        ok, code, review = False, int(exc.code), None
    return Turn(code, review, reaction=Reaction(session.repo, number, comment, ok))


def run(session: Session, parsed: Sequence[Parsed], trigger: Trigger
        ) -> tuple[bool, Review | None]:
    """Every command in order: (all succeeded, the review to publish when a command changed
    what it shows)."""
    lines = (trigger.comment_body or "").splitlines()
    if any(isinstance(p, Command) and p.verb != "help" for p in parsed):
        moved = session.moved_since(trigger)
        if moved:
            session.say(moved)
            return False, None
        session.fetch_head()
        session.state = session.read_state()
    ok, dirty = True, False
    for item in parsed:
        # The user's line quoted inert: a mention or reference in it is not posted again.
        quoted = "> " + inline(lines[item.line - 1][:200]) if item.line <= len(lines) else ""
        if isinstance(item, Problem):
            session.say(f"{quoted}\n\n{escape(item.message)}")
            ok = False
            continue
        done, changed = HANDLERS[item.verb](session, item, trigger.actor or "", quoted)
        ok, dirty = ok and done, dirty or changed
    return ok, session.to_publish() if dirty else None


Handler = Callable[[Session, Command, str, str], tuple[bool, bool]]  # -> (ok, publish)


def _help(session: Session, command: Command, actor: str, quoted: str) -> tuple[bool, bool]:
    session.say(help_text(session.cfg.command_prefix))
    return True, False


def _review(session: Session, command: Command, actor: str, quoted: str) -> tuple[bool, bool]:
    return True, True  # the published review is the answer


def _ignore(session: Session, command: Command, actor: str, quoted: str) -> tuple[bool, bool]:
    assert command.fingerprint and command.reason
    found = next((v for v in session.result().findings if v.fingerprint == command.fingerprint),
                 None)
    if found is None:
        session.say(f"{quoted}\n\nNo finding at {session.pr.head[:12]} has the fingerprint "
                    f"{code(command.fingerprint)}; nothing was ignored.")
        return False, False
    session.state = session.state.ignore(Ignored(command.fingerprint, actor, command.reason))
    f = found.finding
    where = code(f"{f.path}:{f.span.line}")
    session.say(f"{quoted}\n\nIgnored {code(f.tool)} {code(f.rule)} at {where} on this "
                "pull request: it is not commented or gated any more, and the summary lists it.")
    return True, True


def _changed_texts(session: Session) -> dict[str, str]:
    head, base = session.pr.head, session.pr.base
    merge_base = git.merge_base(session.checkout, base, head) or base
    paths = [c.new_path for c in git.diff_raw(session.checkout, merge_base, head)
             if c.new_path and c.status != "D"]
    return sources.head_texts(session.checkout, head, paths)


def _ast_grep(session: Session, command: Command, actor: str, quoted: str) -> tuple[bool, bool]:
    assert command.pattern is not None
    texts = _changed_texts(session)
    try:
        found = structural.search(command.pattern, command.lang, texts)
    except BotError as exc:
        session.say(f"{quoted}\n\n{escape(exc.message)}")
        return False, False
    session.say(f"{quoted}\n\n{structural.matches_reply(command.pattern, found, texts)}")
    return True, False


def _ast_edit(session: Session, command: Command, actor: str, quoted: str) -> tuple[bool, bool]:
    assert command.pattern is not None and command.rewrite is not None
    result = session.result()
    paths = sources.changed_paths(result)
    texts = sources.head_texts(session.checkout, result.head, paths)
    rewrite = sources.StagedRewrite(command.pattern, command.rewrite, command.lang, actor)
    groups, problem = sources.staged_groups(rewrite, f"/ast-edit by {actor}", paths, texts)
    if problem:
        session.say(f"{quoted}\n\n{escape(problem)}")
        return False, False
    if not groups:
        session.say(f"{quoted}\n\nNo match in the pull request's changed files; nothing staged.")
        return True, False
    broken = structural.unparsable(groups, texts)
    if broken:  # refused now: apply would refuse it, and staging it would only postpone that
        n = len(broken)
        session.say(f"{quoted}\n\n" + escape(f"Not staged: {n} rewritten file{'s' * (n != 1)} "
                                              f"would not parse: {'; '.join(broken)}"))
        return False, False
    session.state = session.state.stage(Staged(command.pattern, command.rewrite, command.lang,
                                               actor))
    plan = plan_for(session.checkout, without_ignored(result, session.state),
                    staged(session.state), "apply")
    session.state = replace(session.state, shown=plan.id)
    n = len(groups)
    session.say(f"{quoted}\n\nStaged {n} edit{'s' * (n != 1)}; nothing is committed yet.\n\n"
                f"{structural.preview(groups, texts)}\n\n"
                + render(plan, label=session.cfg.apply_label if session.change.dialect.labels
                         else None, command=f"{session.cfg.command_prefix}apply"))
    return True, True


def _apply(session: Session, command: Command, actor: str, quoted: str) -> tuple[bool, bool]:
    if command.verb == "apply" and session.state.shown is None:
        session.say(f"{quoted}\n\nNothing to apply: the summary shows no staged plan at "
                    f"{session.pr.head[:12]}.")
        return False, False
    if command.plan is not None and command.plan != session.state.shown:
        shown = session.state.shown
        session.say(f"{quoted}\n\nThe summary shows plan {code(shown)}, not plan "
                    f"{code(command.plan)}: nothing was committed." if shown else
                    f"{quoted}\n\nThe summary shows no staged plan, not plan "
                    f"{code(command.plan)}: nothing was committed.")
        return False, False
    kind: Literal["apply", "fix"] = "fix" if command.verb == "fix" else "apply"
    return reply_outcome(session, session.apply(kind, actor), quoted, kind), True


HANDLERS: dict[str, Handler] = {"help": _help, "review": _review, "ignore": _ignore,
                                "ast-grep": _ast_grep, "ast-edit": _ast_edit, "apply": _apply,
                                "fix": _apply}

