"""What the bot does before it runs anything of a repository's, and checks after.

A repository's linter configuration, type checker plugin or build script is the repository's
code, and it runs as the bot's user. Before the command starts any tool: its secrets leave its
environment (`bot.safety.credentials`), its `--token` value is blanked in /proc/PID/cmdline, it becomes
non-dumpable (`bot.safety.selfproc`), so that no process of its user can read its memory or what is
left of its environment, the runner's file commands are read (`bot.safety.filecommands`), and it
adopts what its tools leave running (`bot.safety.orphans`). After the command those processes are
killed, and then, as before each write of its own to those files, the files are checked: a
change is undone and the run fails with Exit.SECURITY. docs/security.md says what this covers.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator, Mapping, Sequence

from bot import proc
from bot.errors import BotError, Exit, Tampered, Unprotected
from bot.safety import credentials, filecommands, orphans, selfproc
from bot.secrecy import FILE_COMMANDS

TOKEN_FLAGS = ("--token",)


def _protect(secrets: Mapping[str, str]) -> None:
    selfproc.blank_argument_values(TOKEN_FLAGS)
    if not selfproc.available():
        if secrets:
            print("reviewbot: warning: this system has no prctl(PR_SET_DUMPABLE): the tools "
                  "reviewbot runs may read its memory, and the token in it", file=sys.stderr)
        return
    try:
        selfproc.make_undumpable()
    except Unprotected as exc:
        raise BotError(f"security: cannot protect the bot from the tools it runs: {exc}",
                       Exit.SECURITY) from None


def tampered(names: Sequence[str]) -> BotError:
    return BotError(
        f"security: a process this run started changed the runner's file command"
        f"{'s' * (len(names) > 1)} {', '.join(names)}. Put back as before any tool ran; this "
        "run fails. A repository's linter configuration, plugin or build script is its code, "
        "and it runs here (docs/security.md)", Exit.SECURITY)


def _watch(env: Mapping[str, str], names: Sequence[str]) -> filecommands.Watch:
    try:
        return filecommands.Watch(env, names)
    except OSError as exc:
        raise BotError(f"cannot read the runner's file command {exc.filename}: "
                       f"{exc.strerror or exc}", Exit.USAGE) from None


def _tracked() -> set[int]:
    return set(proc.live_pids())


@contextlib.contextmanager
def engaged(names: Sequence[str] = FILE_COMMANDS,
            env: Mapping[str, str] | None = None) -> Iterator[None]:
    """The block runs with the secrets captured, the process protected and the file commands
    `names` (variables of `env`, default the process's) watched; a change to them raises
    BotError(Exit.SECURITY), whatever else the block raised."""
    with credentials.captured() as secrets:
        _protect(secrets)
        watch = _watch(os.environ if env is None else env, names)
        with filecommands.watching(watch):
            try:
                # Innermost: what the tools left running is killed before the last check.
                with orphans.adopted(_tracked):
                    yield
            except Tampered as exc:  # seen before one of the bot's own writes
                raise tampered(exc.names) from None
            finally:
                try:
                    watch.check()
                except Tampered as exc:
                    raise tampered(exc.names) from None
