"""Exit codes a script can trust, by the state a command leaves the task in: ``cancel``
exits 0 only on ``canceled`` (any other state is 1, with a line saying the agent did not
cancel), a ``send`` answered early says the task is still running and how to follow it,
and ``unknown`` is not success. Against the a2a-sdk Echo Agent (a task held at a gate:
no race with the clock) and a small Starlette agent that answers a cancel without
canceling, in the same outcome for text, ``-o json`` and ``-o ndjson``."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from cli_helpers import Cli, assert_one_error_line, cli  # noqa: F401 - cli is a fixture
from hostile import TASK_ID, json_response, ok, task
from inspector.protocol.enums import TaskState
from inspector.serving.runner import BackgroundServer
from peers.sdk_agent import CANCELED_TEXT, release, wait_parked

README = Path(__file__).resolve().parents[1] / "README.md"


def _answer(method: str, state: str) -> Any:
    """A 0.3 JSON-RPC agent that answers ``method`` with its task in ``state``."""

    async def route(request: Request) -> Response:
        body = await request.json()
        assert body["method"] == method, body
        return json_response(ok(body["id"], task(state)))

    return route


@pytest.fixture(scope="module")
def peer() -> Iterator[str]:
    app = Starlette(
        routes=[
            # The agent takes the cancel in and cancels later (or never): the task is still working.
            Route("/cancel-later", _answer("tasks/cancel", "working"), methods=["POST"]),
            # The task finished before the cancel reached it, and the agent says so with the task.
            Route("/cancel-too-late", _answer("tasks/cancel", "completed"), methods=["POST"]),
            Route("/unknown", _answer("message/send", "unknown"), methods=["POST"]),
        ]
    )
    with BackgroundServer(app) as srv:
        yield srv.url


def cancel(cli: Cli, url: str, *args: str) -> Any:
    return cli("cancel", url, TASK_ID, "--dialect", "0.3", *args)


# ------------------------------------------------------------- cancel not done


@pytest.mark.parametrize(("route", "state"), [("cancel-later", "working"), ("cancel-too-late", "completed")])
def test_a_cancel_the_agent_did_not_carry_out_exits_1_and_says_so(cli: Cli, peer: str, route: str, state: str) -> None:
    url = f"{peer}/{route}"
    line = f"not canceled: the agent did not cancel the task, which is {state}"
    if state == "working":  # it may still: how to look again
        line += f"; it may still end it: a2a-inspect get {url} {TASK_ID} --dialect 0.3"
    r = cancel(cli, url)
    assert r.code == 1, r
    assert r.out.splitlines()[-1] == line, r
    assert r.err == ""

    doc = cancel(cli, url, "-o", "json")
    assert doc.code == 1, doc
    out = doc.json()
    assert (out["exitCode"], out["task"]["state"], out["notice"]) == (1, state, line)
    assert out["violations"] == [] and out["error"] is None

    records = cancel(cli, url, "-o", "ndjson")
    assert records.code == 1, records
    head, *rest = records.ndjson()
    assert head["kind"] == "task" and head["status"]["state"] == state
    assert rest == [{"kind": "notice", "message": line}, {"kind": "exit", "exitCode": 1}]

    # --lenient is about violations: the agent broke no rule here, so it changes nothing.
    assert cancel(cli, url, "--lenient").code == 1


def test_a_task_in_no_known_state_is_not_success(cli: Cli, peer: str) -> None:
    r = cli("send", f"{peer}/unknown", "hi", "--dialect", "0.3", "-o", "json")
    assert r.code == 1, r
    assert r.json()["task"]["state"] == "unknown" and r.json()["notice"] is None


# ------------------------------------------------------- the a2a-sdk Echo Agent


def test_cancel_of_a_running_task_exits_0_and_of_a_finished_one_is_the_agents_error(
    cli: Cli, sdk_agent_v10: str
) -> None:
    url = sdk_agent_v10
    started = cli("send", url, "hold these words", "--return-immediately")
    assert started.code == 0, started
    task_id = next(x.split()[1] for x in started.out.splitlines() if x.startswith("task "))
    state = next(x.split()[1] for x in started.out.splitlines() if x.startswith("state "))
    assert state in ("submitted", "working")
    notice = started.out.splitlines()[-1]
    assert notice == (
        f"still running: the task is {state}; follow it with a2a-inspect resubscribe {url} {task_id} "
        f"(or a2a-inspect get {url} {task_id})"
    ), started
    wait_parked(url, task_id)
    # The line says how to follow the task, and it does.
    follow = shlex.split(re.search(r"\(or (a2a-inspect get .*)\)$", notice).group(1))  # type: ignore[union-attr]
    got = cli(*follow[1:], "-o", "json")
    assert got.code == 0 and got.json()["task"]["state"] == "working", got
    assert got.json()["notice"] is None  # a get asked for nothing more than the state

    r = cli("cancel", url, task_id, "-o", "json")
    assert r.code == 0, r
    doc = r.json()
    assert (doc["task"]["state"], doc["exitCode"], doc["notice"]) == ("canceled", 0, None)
    assert doc["task"]["statusMessage"]["parts"][0]["text"] == CANCELED_TEXT

    done = cli("send", url, "hello there", "-o", "json")
    assert done.code == 0 and done.json()["task"]["state"] == "completed", done
    again = cli("cancel", url, done.json()["task"]["id"])
    # The agent refuses with TaskNotCancelableError: an agent's error, exit 3 as for any.
    assert_one_error_line(again, 3, "agent returned JSON-RPC error -32002")


def test_a_held_task_released_after_the_early_answer_completes(cli: Cli, sdk_agent_v10: str) -> None:
    # --no-wait is the old spelling of --return-immediately.
    started = cli("send", sdk_agent_v10, "hold on", "--no-wait", "-o", "ndjson")
    assert started.code == 0, started
    head, notice, end = started.ndjson()
    assert head["kind"] == "task" and notice["kind"] == "notice" and end == {"kind": "exit", "exitCode": 0}
    assert notice["message"].startswith(f"still running: the task is {head['status']['state']}; ")
    wait_parked(sdk_agent_v10, head["id"])
    release(sdk_agent_v10, head["id"])


# --------------------------------------------------------------------- README


def test_the_readme_exit_code_table_lists_every_state() -> None:
    text = README.read_text(encoding="utf-8")
    table = text[text.index("| the task ends | ") :]
    table = table[: table.index("\n\n")]
    header, _rule, *rows = table.splitlines()
    assert [c.strip() for c in header.strip("|").split("|")][1:] == [
        "`send`",
        "`send --stream`, `resubscribe`",
        "`get`",
        "`cancel`",
    ]
    listed = [s for row in rows for s in re.findall(r"`([a-z-]+)`", row.split("|")[1])]
    assert sorted(listed) == sorted(s.value for s in TaskState)
