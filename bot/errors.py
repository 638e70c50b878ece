"""Exit statuses, and every exception the bot raises, in one tree. Documented in the README.

    BotError                the user can act on: `message` says what and how; `code` the exit
    ├── ArtifactError       an analysis artifact that cannot be used (2)
    ├── ForgeError          the forge failed in a way retries could not fix (3)
    │   ├── ReadOnly        the token may read the change but not write to it
    │   ├── Uncertain       a write that may or may not have taken effect: re-read first
    │   ├── HTTPError       an answer no retry fixes, with its HTTP `status`
    │   │   ├── NotFound
    │   │   └── Refused     validated and refused (400, 409, 422)
    │   └── GraphQLError
    Breach                  the bot could not protect itself or the runner; never a BotError,
    ├── Tampered            so that no handler of a user's error swallows it: `bot.safety.lockdown`
    └── Unprotected         alone turns it into exit 5
    ProcError               a subprocess could not be run to the end (bot.proc)
    ├── MissingBinary
    ├── Timeout             the process group was killed
    └── Cancelled           the run is being cancelled: no new process starts
    ToolError               a tool's own failure, reported as the tool's status
    ├── GarbageOutput       not the tool's documented output format
    └── LspError            a language server's
        ├── FramingError    a body that is not JSON
        ├── RpcError        an error object in answer to a request
        ├── ServerGone      its output ended (it exited or crashed)
        ├── RequestTimeout
        └── SessionError    the session as a whole failed, with the tool's status
    CodecError (ValueError) a JSON value that does not decode: `path` names the field
    EditConflict (ValueError) two edits of one text cannot both apply
    CannotLink              hard links are not possible here (the caller copies)

Two private exceptions stay in their modules, raised and caught there as control flow:
`config._Problem` and `linters.runner._Mixed`.

Outside the tree, on purpose: `bot.safety.cancel.Terminated` derives from BaseException, so that no
`except Exception` of a tool's clean-up swallows a SIGTERM.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import IntEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bot.model import ToolStatus


class Exit(IntEnum):
    OK = 0  # the gate passes / the command did what was asked
    GATE = 1  # the gate fails (or ast-edit --apply refused a plan that moved)
    USAGE = 2  # bad usage, configuration, event, git state or pattern
    FORGE = 3  # the forge API failed in a way retries could not fix
    UNCHECKED = 4  # a tool could not check the change (failed, timed out, not installed)
    SECURITY = 5  # a tool changed the runner's file commands, or the bot could not protect itself
    INTERNAL = 70  # a bug: an unexpected exception (EX_SOFTWARE)
    PIPE = 141  # the output's reader closed it early (128 + SIGPIPE, as `| head` makes)


class BotError(Exception):
    """An error the user can act on: `message` says what is wrong and how to fix it."""

    def __init__(self, message: str, code: Exit = Exit.USAGE) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


class ArtifactError(BotError):
    """An artifact that cannot be used: `field` names the part, `why` what is wrong (exit 2)."""

    def __init__(self, field: str, why: str) -> None:
        super().__init__(f"invalid analysis artifact: {field}: {why}", Exit.USAGE)
        self.field = field
        self.why = why


class ForgeError(BotError):
    def __init__(self, message: str) -> None:
        super().__init__(message, Exit.FORGE)


class ReadOnly(ForgeError):
    """The token may read the change but not write to it (fork PRs, missing permission)."""


class Uncertain(ForgeError):
    """A write failed in a way that may or may not have taken effect (5xx, timeout).

    The caller re-reads the state before writing again, so a retry never duplicates.
    """


class HTTPError(ForgeError):
    """The forge answered with an error no retry fixes; `status` is its HTTP status (0 when
    the client library did not say)."""

    def __init__(self, message: str, status: int = 0) -> None:
        super().__init__(message)
        self.status = status


class NotFound(HTTPError):
    pass


class Refused(HTTPError):
    """The forge validated the request and refused it (400, 409, 422). Where no caller can do
    without the write (the summary comment), the run ends as any forge failure does: exit 3."""


class GraphQLError(ForgeError):
    pass


class Breach(Exception):
    pass


class Tampered(Breach):
    """A file command changed behind the bot's back: restored; `names` says which."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names = tuple(names)
        super().__init__(", ".join(self.names))


class Unprotected(Breach):
    """The kernel did not make this process non-dumpable."""


class ProcError(Exception):
    """A subprocess could not be run to the end (`bot.proc`)."""


class MissingBinary(ProcError):
    def __init__(self, program: str, hint: str = "") -> None:
        self.program = program
        self.hint = hint
        super().__init__(f"{program}: not found" + (f" (install: {hint})" if hint else ""))


class Timeout(ProcError):
    def __init__(self, argv: Sequence[str], seconds: float, stderr: bytes) -> None:
        self.argv = list(argv)
        self.seconds = seconds
        self.stderr = stderr
        super().__init__(f"{Path(argv[0]).name}: no result after {seconds:g}s; process group killed")


class Cancelled(ProcError):
    """The run is being cancelled (`kill_all`): no new process starts, except for the
    cancelling thread's own clean-up."""


class ToolError(Exception):
    """A tool's own failure: reported as that tool's status, never the run's."""


class GarbageOutput(ToolError):
    """The linter printed something that is not its documented output format."""


class LspError(ToolError):
    pass


class FramingError(LspError):
    """A body that is not JSON (the caller decides whether that is fatal)."""


class RpcError(LspError):
    """The server answered a request with an error object."""

    def __init__(self, method: str, code: int, message: str, data: Any = None) -> None:
        super().__init__(f"{method}: error {code}: {message}")
        self.method = method
        self.code = code
        self.data = data


class ServerGone(LspError):
    """The server's output ended (it exited or crashed); `detail` holds what it said last."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class RequestTimeout(LspError):
    def __init__(self, method: str, seconds: float) -> None:
        super().__init__(f"{method}: no answer after {seconds:g}s")
        self.method = method
        self.seconds = seconds


class SessionError(LspError):
    def __init__(self, status: ToolStatus, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class CodecError(ValueError):
    """`path` names the field (`findings[3].line`), `why` what is wrong with it."""

    def __init__(self, path: str, why: str) -> None:
        super().__init__(f"{path}: {why}")
        self.path = path
        self.why = why


class EditConflict(ValueError):
    """Two edits of one text cannot both apply (their order or their result is unknown)."""


class CannotLink(Exception):
    """Hard links are not possible here (another file system, no permission)."""
