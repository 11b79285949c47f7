"""Push notifications: delivered to a loopback receiver with the client's token, and
never to an address off this machine unless the user allowed it."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from inspector.protocol import models as m
from inspector.protocol.methods import Method
from inspector.serving.runner import BackgroundServer
from mock_agent import MockAgent
from mock_agent.push import is_loopback_url
from test_mock_support import DIALECT_NAMES, Wire


class Receiver:
    """A loopback webhook that records what it is sent."""

    def __init__(self) -> None:
        self.received: list[tuple[dict[str, str], Any]] = []
        self.lock = threading.Lock()

        async def hook(request: Request) -> Response:
            body = await request.json()
            with self.lock:
                self.received.append((dict(request.headers), body))
            return Response(status_code=200)

        self.app = Starlette(routes=[Route("/hook", hook, methods=["POST"])])

    def wait_for(self, count: int, timeout: float = 5.0) -> list[tuple[dict[str, str], Any]]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if len(self.received) >= count:
                    return list(self.received)
            time.sleep(0.01)
        raise AssertionError(f"expected {count} notifications, got {len(self.received)}")


@pytest.fixture
def receiver() -> Iterator[tuple[Receiver, str]]:
    rec = Receiver()
    with BackgroundServer(rec.app) as server:
        yield rec, server.url + "/hook"


@pytest.fixture(scope="module")
def client() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=10) as c:
        yield c


def final_state(dialect: str, body: Any) -> str:
    if dialect == "1.0":
        return body["statusUpdate"]["status"]["state"] if "statusUpdate" in body else ""
    return body["status"]["state"]


@pytest.mark.parametrize("dialect", DIALECT_NAMES)
def test_push_set_then_updates_are_posted_with_the_token(
    receiver: tuple[Receiver, str], client: httpx.Client, dialect: str
) -> None:
    rec, url = receiver
    with MockAgent("input-required", dialect="all") as mock:
        w = Wire(client, mock.url, dialect)
        task = w.task_of(w.send("ask", task_id="push-1" if dialect == "0.1" else None))
        config = m.TaskPushNotificationConfig(
            task_id=task["id"],
            push_notification_config=m.PushNotificationConfig(
                url=url, token="secret-token", id="cfg-1" if dialect != "0.1" else None
            ),
        )
        stored = w.call(Method.PUSH_SET, config)["result"]
        assert stored["url" if dialect == "1.0" else "pushNotificationConfig"] is not None
        got = w.call(
            Method.PUSH_GET,
            m.PushConfigParams(id=task["id"], push_notification_config_id=None if dialect == "0.1" else "cfg-1"),
        )["result"]
        assert (got if dialect == "1.0" else got["pushNotificationConfig"])["token"] == "secret-token"
        assert rec.received == []  # nothing happened to the task yet

        w.send("the answer", task_id=task["id"], context_id=task.get("contextId") or task.get("sessionId"))
        # working, artifact, completed: one notification each
        notes = rec.wait_for(3)
        assert all(headers["x-a2a-notification-token"] == "secret-token" for headers, _ in notes)
        assert all(headers["content-type"] == "application/json" for headers, _ in notes)
        bodies = [body for _, body in notes]
        if dialect == "1.0":
            assert [next(iter(b)) for b in bodies] == ["statusUpdate", "artifactUpdate", "statusUpdate"]
            assert final_state(dialect, bodies[-1]) == "TASK_STATE_COMPLETED"
        else:
            assert {b["id"] for b in bodies} == {task["id"]}
            assert [b["status"]["state"] for b in bodies] == ["working", "working", "completed"]
            assert bodies[-1]["artifacts"][0]["parts"][0]["text"] == "echo: the answer"
        assert mock.push_log and all(status == "200" for _, status in mock.push_log)


def test_push_config_in_the_send_request_is_used(receiver: tuple[Receiver, str], client: httpx.Client) -> None:
    rec, url = receiver
    with MockAgent("echo") as mock:
        w = Wire(client, mock.url, "0.3")
        w.send("hi", configuration={"push_notification_config": m.PushNotificationConfig(url=url, token="t2")})
        notes = rec.wait_for(3)
        assert notes[-1][1]["status"]["state"] == "completed"
        assert notes[-1][0]["x-a2a-notification-token"] == "t2"


def test_push_list_and_delete(client: httpx.Client) -> None:
    with MockAgent("input-required") as mock:
        for dialect in ("0.3", "1.0"):
            w = Wire(client, mock.url, dialect)
            task = w.task_of(w.send("ask"))
            for name in ("a", "b"):
                w.call(
                    Method.PUSH_SET,
                    m.TaskPushNotificationConfig(
                        task_id=task["id"],
                        push_notification_config=m.PushNotificationConfig(id=name, url=f"http://127.0.0.1:9/{name}"),
                    ),
                )
            listed = w.call(Method.PUSH_LIST, m.PushConfigParams(id=task["id"]))["result"]
            configs = listed["configs"] if dialect == "1.0" else listed
            assert len(configs) == 2
            assert "error" not in w.call(
                Method.PUSH_DELETE, m.PushConfigParams(id=task["id"], push_notification_config_id="a")
            )
            listed = w.call(Method.PUSH_LIST, m.PushConfigParams(id=task["id"]))["result"]
            assert len(listed["configs"] if dialect == "1.0" else listed) == 1
            gone = w.call(Method.PUSH_GET, m.PushConfigParams(id=task["id"], push_notification_config_id="a"))
            assert gone["error"]["code"] == -32602


@pytest.mark.parametrize(
    "url",
    [
        "http://example.com/hook",
        "http://10.1.2.3/hook",
        "http://localhost.example.com/x",
        "ftp://127.0.0.1/x",
        "http://169.254.169.254/latest",
    ],
)
def test_push_to_a_non_loopback_url_is_refused(client: httpx.Client, url: str) -> None:
    with MockAgent("input-required") as mock:
        w = Wire(client, mock.url, "0.3")
        task = w.task_of(w.send("ask"))
        body = w.call(
            Method.PUSH_SET,
            m.TaskPushNotificationConfig(
                task_id=task["id"], push_notification_config=m.PushNotificationConfig(url=url)
            ),
        )
        assert body["error"]["code"] == -32602
        assert "loopback" in body["error"]["message"] and "--allow-remote-push" in body["error"]["message"]


def test_allow_remote_push_is_an_explicit_opt_in(client: httpx.Client) -> None:
    with MockAgent("input-required", allow_remote_push=True) as mock:
        w = Wire(client, mock.url, "0.3")
        task = w.task_of(w.send("ask"))
        # The task waits for input, so nothing is ever sent to this address.
        body = w.call(
            Method.PUSH_SET,
            m.TaskPushNotificationConfig(
                task_id=task["id"], push_notification_config=m.PushNotificationConfig(url="http://example.com/hook")
            ),
        )
        assert body["result"]["pushNotificationConfig"]["url"] == "http://example.com/hook"


def test_loopback_addresses() -> None:
    assert all(
        is_loopback_url(u)
        for u in ("http://127.0.0.1:1/x", "https://localhost/x", "http://127.9.9.9/", "http://[::1]:80/x")
    )
    assert not any(is_loopback_url(u) for u in ("http://0.0.0.0/", "http://192.168.1.1/", "http:///x", "not a url"))


def test_draft_profile_pushes_in_01(receiver: tuple[Receiver, str], client: httpx.Client) -> None:
    rec, url = receiver
    with MockAgent(profile="draft") as mock:
        w = Wire(client, mock.url, "0.1")
        first = w.task_of(w.send("request a new phone for me", task_id="phone-1"))
        assert first["status"]["state"] == "input-required"
        set_body = w.call(
            Method.PUSH_SET,
            m.TaskPushNotificationConfig(
                task_id="phone-1", push_notification_config=m.PushNotificationConfig(url=url, token="draft")
            ),
        )
        assert set_body["result"] == {"id": "phone-1", "pushNotificationConfig": {"url": url, "token": "draft"}}
        done = w.task_of(w.send("Android", task_id="phone-1"))
        assert "Android device" in w.artifact_text(done)
        notes = rec.wait_for(2)
        assert notes[-1][1]["status"]["state"] == "completed" and notes[-1][0]["x-a2a-notification-token"] == "draft"
        assert "artifacts" in notes[-1][1] and notes[-1][1]["artifacts"][0]["parts"][0]["type"] == "text"
