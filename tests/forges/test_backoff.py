"""The one retry loop: the judge decides, the loop counts and waits."""

from __future__ import annotations

import pytest

from bot.forges.backoff import Failed, Sent, Wait, retry


class Flaky:
    """Raises the given errors in turn, then answers `value`."""

    def __init__(self, *errors: Exception, value: str = "ok") -> None:
        self.errors = list(errors)
        self.value = value
        self.calls = 0

    def __call__(self) -> str:
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)
        return self.value


def retry_timeouts(outcome: Sent[str] | Failed) -> Wait | None:
    if isinstance(outcome, Failed) and isinstance(outcome.error, TimeoutError):
        return Wait(2.0 ** outcome.attempt, f"timeout #{outcome.attempt}")
    return None


def run(send: Flaky, sleeps: list[float], retries: int = 3) -> str:
    return retry(send, retry_timeouts, retries=retries, sleep=sleeps.append,
                 exhausted=lambda last: RuntimeError(f"gave up: {last}"))


def test_waits_between_attempts_until_done() -> None:
    sleeps: list[float] = []
    send = Flaky(TimeoutError(), TimeoutError())
    assert run(send, sleeps) == "ok"
    assert (send.calls, sleeps) == (3, [1.0, 2.0])


def test_gives_up_after_the_retries_without_a_last_wait() -> None:
    sleeps: list[float] = []
    send = Flaky(*(TimeoutError() for _ in range(5)))
    with pytest.raises(RuntimeError, match="gave up: timeout #2"):
        run(send, sleeps, retries=2)
    assert (send.calls, sleeps) == (3, [1.0, 2.0])


def test_an_error_the_judge_accepts_is_raised_as_it_was() -> None:
    boom = KeyError("x")
    with pytest.raises(KeyError) as raised:
        run(Flaky(boom), [])
    assert raised.value is boom


def test_the_judge_may_retry_an_answer_and_raise_its_own_error() -> None:
    answers = iter(["busy", "busy", "fine"])

    def judge(outcome: Sent[str] | Failed) -> Wait | None:
        if isinstance(outcome, Sent) and outcome.value == "busy":
            return Wait(0.5, "busy")
        if isinstance(outcome, Failed):
            raise ValueError("refused")
        return None

    sleeps: list[float] = []
    assert retry(lambda: next(answers), judge, retries=3, sleep=sleeps.append,
                 exhausted=RuntimeError) == "fine"
    assert sleeps == [0.5, 0.5]
    with pytest.raises(ValueError, match="refused"):
        retry(Flaky(OSError()), judge, retries=3, sleep=sleeps.append, exhausted=RuntimeError)
