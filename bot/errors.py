"""Exit statuses and the error type that carries one. Documented in the README."""

from __future__ import annotations

from enum import IntEnum


class Exit(IntEnum):
    OK = 0  # the gate passes / the command did what was asked
    GATE = 1  # the gate fails (or ast-edit --apply refused a plan that moved)
    USAGE = 2  # bad usage, configuration, event, git state or pattern
    FORGE = 3  # the forge API failed in a way retries could not fix
    UNCHECKED = 4  # a tool could not check the change (failed, timed out, not installed)
    SECURITY = 5  # a tool changed the runner's file commands, or the bot could not protect itself
    INTERNAL = 70  # a bug: an unexpected exception (EX_SOFTWARE)


class BotError(Exception):
    """An error the user can act on: `message` says what is wrong and how to fix it."""

    def __init__(self, message: str, code: Exit = Exit.USAGE) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
