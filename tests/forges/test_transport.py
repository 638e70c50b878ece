"""`transport.py`: the shared request path's retries and errors, its paging, and the
recording dry run, over `httpx.MockTransport` handlers that count what reaches them."""

from __future__ import annotations

import json
from collections.abc import Callable

import httpx
import pytest

from bot.errors import BotError, NotFound, ReadOnly, Refused, Uncertain
from bot.forges.transport import Recording, Request, Transport, judge, pages

Handler = Callable[[httpx.Request], httpx.Response]


class Server:
    """Answers from a script, one per request; counts what arrived."""

    def __init__(self, *answers: httpx.Response | Exception) -> None:
        self.answers = list(answers)
        self.seen: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.seen.append(request)
        answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        if isinstance(answer, Exception):
            raise answer
        return answer


def client(server: Server, sleeps: list[float], now: float = 1000.0) -> Transport:
    return Transport("https://forge.test/api/v1/", {"Authorization": "token t"},
                     lambda r, o, n: judge(r, o, n, forge="Forge", token_hint="check the token"),
                     forge="Forge", sleep=sleeps.append, clock=lambda: now,
                     transport=httpx.MockTransport(server))


def ok(data: object = None, status: int = 200, **headers: str) -> httpx.Response:
    return httpx.Response(status, json=data, headers=headers)


def test_a_read_is_sent_again_after_a_5xx_or_a_timeout() -> None:
    sleeps: list[float] = []
    timeout = httpx.ReadTimeout("slow")
    server = Server(ok({"message": "bad gateway"}, 502), timeout, ok({"id": 1}))
    answer = client(server, sleeps).send(Request("GET", "/x", {"a": 1, "b": True}))
    assert answer.json() == {"id": 1} and sleeps == [1.0, 2.0] and len(server.seen) == 3
    assert str(server.seen[0].url) == "https://forge.test/api/v1/x?a=1&b=true"
    assert server.seen[0].headers["authorization"] == "token t"


def test_a_write_that_may_have_happened_is_uncertain_and_sent_once() -> None:
    for failure in (ok({"message": "oops"}, 500), httpx.ReadTimeout("slow")):
        server = Server(failure, ok({"id": 1}, 201))
        with pytest.raises(Uncertain):
            client(server, []).send(Request("POST", "/x", body={"b": 1}))
        assert len(server.seen) == 1


def test_an_idempotent_write_is_sent_again() -> None:
    sleeps: list[float] = []
    server = Server(ok({"message": "oops"}, 503), ok({"id": 1}))
    client(server, sleeps).send(Request("PATCH", "/x", body={"b": 1}, idempotent=True))
    assert len(server.seen) == 2 and json.loads(server.seen[1].content) == {"b": 1}


def test_a_rate_limited_write_waits_as_told_and_is_sent_again() -> None:
    sleeps: list[float] = []
    server = Server(ok({"message": "slow down"}, 429, **{"Retry-After": "7"}),
                    ok({"message": "limit"}, 403, **{"X-RateLimit-Remaining": "0",
                                                      "X-RateLimit-Reset": "1010"}),
                    ok({"id": 1}, 201))
    assert client(server, sleeps).send(Request("POST", "/x", body={})).status == 201
    assert sleeps == [7.0, 11.0]


def test_a_rate_limit_too_long_to_wait_fails_the_run() -> None:
    server = Server(ok({}, 429, **{"Retry-After": "9999"}))
    with pytest.raises(BotError, match="longer than reviewbot waits"):
        client(server, []).send(Request("GET", "/x"))


def test_answers_no_retry_fixes() -> None:
    cases: list[tuple[Request, httpx.Response, type[Exception], str]] = [
        (Request("POST", "/x", body={}), ok({"message": "no"}, 403), ReadOnly, "may not write"),
        (Request("GET", "/x"), ok({"message": "private"}, 403), BotError, "403 private"),
        (Request("GET", "/x"), ok({"message": "gone"}, 404), NotFound, "gone"),
        (Request("POST", "/x", body={}), ok({"message": "bad line"}, 422), Refused, "bad line"),
        (Request("GET", "/x"), ok({"message": "bad token"}, 401), BotError, "check the token"),
    ]
    for request, answer, error, text in cases:
        server = Server(answer)
        with pytest.raises(error, match=text):
            client(server, []).send(request)
        assert len(server.seen) == 1


def test_retries_run_out_with_the_last_reason() -> None:
    sleeps: list[float] = []
    with pytest.raises(BotError, match=r"after 5 attempts.*500 down"):
        client(Server(ok({"message": "down"}, 500)), sleeps).send(Request("GET", "/x"))
    assert sleeps == [1.0, 2.0, 4.0, 8.0]


def test_pages_follow_the_link_header_or_the_total_count() -> None:
    def linked(request: httpx.Request) -> httpx.Response:
        page = int(request.url.params["page"])
        more = {"Link": '<https://forge.test/next>; rel="next"'} if page < 3 else {}
        return ok([page] * 2, **more)

    sender = Transport("https://forge.test", {}, lambda r, o, n: None, forge="F",
                       transport=httpx.MockTransport(linked))
    assert pages(sender, Request("GET", "/l"), size=2) == [1, 1, 2, 2, 3, 3]

    def counted(request: httpx.Request) -> httpx.Response:
        page, limit = int(request.url.params["page"]), int(request.url.params["limit"])
        items = list(range(5))[(page - 1) * limit: page * limit]
        return ok(items, **{"X-Total-Count": "5"})

    sender = Transport("https://forge.test", {}, lambda r, o, n: None, forge="F",
                       transport=httpx.MockTransport(counted))
    assert pages(sender, Request("GET", "/l"), size=2) == [0, 1, 2, 3, 4]
    assert pages(sender, Request("GET", "/l"), size=2, max_pages=1) == [0, 1]


def test_a_recording_sends_no_write_and_answers_plausibly() -> None:
    server = Server(ok({"id": 3, "body": "there"}))
    recording = Recording(lambda r: {"id": 0} if r.method == "POST" else None,
                          client(server, []))
    assert recording.send(Request("GET", "/c/3")).json() == {"id": 3, "body": "there"}
    made = recording.send(Request("POST", "/c", body={"body": "hi"}))
    gone = recording.send(Request("DELETE", "/c/3", idempotent=True))
    assert (made.status, made.json(), gone.status) == (201, {"id": 0}, 204)
    assert recording.requests == [{"method": "POST", "path": "/c", "body": {"body": "hi"}},
                                  {"method": "DELETE", "path": "/c/3", "body": {}}]
    assert [r.method for r in server.seen] == ["GET"]
    offline = Recording(lambda r: [] if r.method == "GET" else None)
    assert offline.send(Request("GET", "/l")).json() == []
