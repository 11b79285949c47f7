"""The push group, for a card that declares push notifications: a config set, read,
listed and deleted on a task of ours, and a notification delivered, with its token, to
a receiver a2a-inspect runs on loopback for the probe's length."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from ..client import JsonRpcError, ProtocolError, TransportError
from ..client.push_receiver import PushReceiver
from ..protocol import models as m
from ..session import Kind
from .context import ProbeContext, error_text
from .probe import Skipped, probe
from .task_probes import running_task

#: How long a notification may take to arrive after the task it is about has ended.
ARRIVAL_SECONDS = 10.0

CONFIG_SECTION = (
    "1.0 Create/Get/List/DeleteTaskPushNotificationConfig; 0.3 tasks/pushNotificationConfig/"
    "set, get, list, delete; 0.1 tasks/pushNotification/set, get"
)


@contextlib.asynccontextmanager
async def _receiver(ctx: ProbeContext) -> Any:
    receiver = PushReceiver(ctx.session, dialect=ctx.dialect)
    await receiver.start()
    try:
        yield receiver
    finally:
        await receiver.stop()


async def _call(ctx: ProbeContext, call: Any, what: str) -> Any:
    try:
        return await call
    except JsonRpcError as exc:
        if exc.code == -32601 and ctx.dialect == "0.1":
            raise Skipped(f"the agent does not implement {what} (-32601), which the 0.1 draft leaves to it") from None
        raise ctx.fail(
            f"{what} was answered with {error_text(exc)}, though the card declares push notifications"
        ) from None
    except (ProtocolError, TransportError) as exc:
        raise ctx.fail(f"{what} was answered with {error_text(exc)}") from None


@probe(
    "push.config",
    "push",
    "a push config is set, read, listed and deleted on a task",
    section=CONFIG_SECTION,
    rule='1.0: "Creates a push notification config for a task." "Gets a push notification config for '
    'a task." "Get a list of push notifications configured for a task." "Deletes a push '
    'notification config for a task." (list and delete from 0.2.5; the 0.1 draft has set and get)',
    needs="push_notifications",
    skips="a card without capabilities.pushNotifications; the agent answers with a message; 0.1 agents "
    "without streaming, or without the push methods (-32601)",
)
async def config(ctx: ProbeContext) -> None:
    text = ctx.options.running_text or ctx.options.text
    task_id, _state, stream = await running_task(ctx, text)
    try:
        async with _receiver(ctx) as receiver:
            url = receiver.url_for(task_id)
            wanted = m.PushNotificationConfig(
                url=url, token=receiver.issue_token(task_id), id=None if ctx.dialect == "0.1" else "a2a-inspect-check"
            )
            made = await _call(ctx, ctx.client.set_push(task_id, wanted), "setting a push config")
            got_url = made.push_notification_config.url
            if made.task_id != task_id or got_url != url:
                raise ctx.fail(
                    f"setting a push config for task {task_id} at {url} was answered with task "
                    f"{made.task_id} at {got_url}"
                )
            config_id = made.push_notification_config.id
            read = await _call(ctx, ctx.client.get_push(task_id, config_id), "reading the push config")
            if read.push_notification_config.url != url:
                raise ctx.fail(f"the push config read back names {read.push_notification_config.url}, not {url}")
            if ctx.dialect == "0.1":
                return
            listed = await _call(ctx, ctx.client.list_push(task_id), "listing the push configs")
            if url not in [c.push_notification_config.url for c in listed]:
                raise ctx.fail(f"the push configs listed for task {task_id} do not include {url}")
            if config_id is None:
                raise ctx.fail("the push config was set without an id, so it cannot be deleted")
            await _call(ctx, ctx.client.delete_push(task_id, config_id), "deleting the push config")
            left = await _call(ctx, ctx.client.list_push(task_id), "listing the push configs after the delete")
            if url in [c.push_notification_config.url for c in left]:
                raise ctx.fail(f"the push config {config_id} is still listed after it was deleted")
    finally:
        with contextlib.suppress(JsonRpcError, ProtocolError, TransportError):
            await ctx.client.cancel(task_id)  # ours, and no longer needed
        if stream is not None:
            with contextlib.suppress(JsonRpcError, ProtocolError, TransportError):
                await stream.aclose()  # type: ignore[attr-defined]


@probe(
    "push.notification",
    "push",
    "a notification reaches the config's URL with its token",
    section="1.0 PushNotificationConfig, SendMessageConfiguration.push_notification_config; "
    "0.3 PushNotificationConfig; 0.1 PushNotificationConfig",
    rule='1.0 PushNotificationConfig.token: "A token unique for this task or session." The agent posts '
    "the task's updates to the config's URL, carrying the token (a2a-sdk: X-A2A-Notification-Token).",
    needs="push_notifications",
    dialects=("0.3", "1.0"),
    skips="a card without capabilities.pushNotifications; the 0.1 draft (its send takes no push config)",
)
async def notification(ctx: ProbeContext) -> None:
    async with _receiver(ctx) as receiver:
        arrived: list[Any] = []

        def seen(event: Any) -> None:
            if event.kind is Kind.PUSH:
                arrived.append(event)

        ctx.session.subscribe(seen)
        try:
            msg = ctx.message(ctx.options.text)
            # Made before the send: the task's id is not known yet, so one URL and token for this probe.
            token = receiver.issue_token("a2a-inspect-check")
            push = m.PushNotificationConfig(url=receiver.url_for("a2a-inspect-check"), token=token)
            params = m.SendParams(
                message=msg,
                configuration=m.SendConfiguration(
                    push_notification_config=push, blocking=True if ctx.dialect == "0.3" else None
                ),
            )
            ctx.ignore("blocking-not-final")
            try:
                await ctx.client.send(params)
            except (JsonRpcError, ProtocolError, TransportError) as exc:
                raise ctx.fail(f"a send with a push config was answered with {error_text(exc)}") from None
            loop = asyncio.get_running_loop()
            deadline = loop.time() + min(ARRIVAL_SECONDS, ctx.options.probe_seconds / 2)
            while not arrived and loop.time() < deadline:
                await asyncio.sleep(0.02)
        finally:
            ctx.session.unsubscribe(seen)
    if not arrived:
        raise ctx.fail(f"no notification reached the config's URL within {ARRIVAL_SECONDS:g} s of the task's end")
    without = [e for e in arrived if token not in dict(e.data.get("headers") or {}).values()]
    if without:
        raise ctx.fail(f"{len(without)} of {len(arrived)} notifications came without the config's token")
