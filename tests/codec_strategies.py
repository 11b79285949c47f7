"""Hypothesis strategies for normalised A2A objects, shared by the codec tests.

``strict=True`` fills every field some schema requires (context ids, artifact ids,
``final``) and adds no unknown keys, so what a codec emits can be checked against the
official schemas (1.0 forbids unknown keys). The default adds unknown keys in the
places where every dialect carries them through unchanged.

Every strategy factory is cached by its arguments: a composite strategy that built its
parts anew on each draw had Hypothesis check each new strategy again on every example,
most of the codec tests' time (40 ms an example).
"""

from __future__ import annotations

import base64
import functools

from hypothesis import strategies as st

from inspector.protocol import models as m

EXTRA_KEY = "x-extra"

ids = st.text("abcdefghijklmnopqrstuvwxyz0123456789-", min_size=1, max_size=12)
texts = st.text(max_size=20)
small_ints = st.integers(min_value=0, max_value=1000)
json_scalars = st.none() | st.booleans() | st.integers(-(2**31), 2**31 - 1) | texts
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=6,
)
# Non-null values only: the model drops None (exclude_none), extras included.
extra_values = st.recursive(
    st.booleans() | st.integers(-100, 100) | texts,
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(texts, inner, max_size=2),
    max_leaves=4,
)
metadata = st.none() | st.dictionaries(texts, json_values, max_size=3)
timestamps = st.none() | st.datetimes(timezones=st.just(__import__("datetime").timezone.utc)).map(
    lambda d: d.isoformat().replace("+00:00", "Z")
)
b64 = st.binary(max_size=16).map(lambda b: base64.b64encode(b).decode())
# Built once here, not inside the composites below: sampled_from over a list is not
# cached by Hypothesis, so each draw made (and validated) a new strategy, and opt()'s
# cache kept every one of them.
roles = st.sampled_from(list(m.Role))
states = st.sampled_from(list(m.TaskState))
file_mime_types = st.sampled_from(["text/plain", "image/png"])
output_modes = st.lists(st.sampled_from(["text/plain", "application/json"]), max_size=2)
auth_schemes = st.lists(st.sampled_from(["Bearer", "Basic"]), max_size=2)
extension_uris = st.lists(st.just("https://example.invalid/ext"), max_size=1)
data_objects = st.dictionaries(texts, json_values, max_size=3)
reference_ids = st.lists(ids, max_size=2)
page_sizes = st.integers(1, 100)


@functools.cache
def _extras(strict: bool):
    if strict:
        return st.just({})
    return st.dictionaries(st.just(EXTRA_KEY), extra_values, max_size=1)


@functools.cache
def opt(strategy, strict_value: bool = False):
    """``None`` or a value; never None when ``strict_value`` (a schema requires it)."""
    return strategy if strict_value else st.none() | strategy


@functools.cache
@st.composite
def text_parts(draw, strict=False):
    return m.TextPart(text=draw(texts), metadata=draw(metadata), **draw(_extras(strict)))


@functools.cache
@st.composite
def file_parts(draw, strict=False):
    content = {"bytes": draw(b64)} if draw(st.booleans()) else {"uri": "https://example.invalid/" + draw(ids)}
    file = m.FileContent(name=draw(opt(texts)), mime_type=draw(opt(file_mime_types)), **content)
    return m.FilePart(file=file, metadata=draw(metadata), **draw(_extras(strict)))


@functools.cache
@st.composite
def data_parts(draw, strict=False):
    # An object: 0.1 and 0.3 require one (1.0 takes any JSON value).
    data = draw(data_objects)
    return m.DataPart(data=data, metadata=draw(metadata), **draw(_extras(strict)))


@functools.cache
def parts(strict=False):
    return st.one_of(text_parts(strict), file_parts(strict), data_parts(strict))


@functools.cache
def part_lists(strict=False):
    return st.lists(parts(strict), min_size=1, max_size=3)


@functools.cache
@st.composite
def messages(draw, strict=False, role=None):
    return m.Message(
        role=role or draw(roles),
        parts=draw(part_lists(strict)),
        message_id=draw(ids),
        task_id=draw(opt(ids)),
        context_id=draw(opt(ids)),
        reference_task_ids=draw(opt(reference_ids)),
        extensions=draw(opt(extension_uris)),
        metadata=draw(metadata),
        **draw(_extras(strict)),
    )


@functools.cache
@st.composite
def statuses(draw, strict=False):
    return m.TaskStatus(
        state=draw(states),
        message=draw(opt(messages(strict, role=m.Role.AGENT))),
        timestamp=draw(timestamps),
    )


@functools.cache
@st.composite
def artifacts(draw, strict=False):
    return m.Artifact(
        artifact_id=draw(opt(ids, strict)),
        index=draw(opt(small_ints)),
        name=draw(opt(texts)),
        description=draw(opt(texts)),
        parts=draw(part_lists(strict)),
        metadata=draw(metadata),
        extensions=draw(opt(extension_uris)),
        append=draw(opt(st.booleans())),
        last_chunk=draw(opt(st.booleans())),
        **draw(_extras(strict)),
    )


@functools.cache
def message_lists(strict=False):
    return st.lists(messages(strict), max_size=3)


@functools.cache
def artifact_lists(strict=False):
    return st.lists(artifacts(strict), max_size=2)


@functools.cache
@st.composite
def tasks(draw, strict=False):
    return m.Task(
        id=draw(ids),
        context_id=draw(opt(ids, strict)),
        status=draw(statuses(strict)),
        history=draw(opt(message_lists(strict))),
        artifacts=draw(opt(artifact_lists(strict))),
        metadata=draw(metadata),
        **draw(_extras(strict)),
    )


@functools.cache
@st.composite
def status_events(draw, strict=False):
    return m.TaskStatusUpdateEvent(
        task_id=draw(ids),
        context_id=draw(opt(ids, strict)),
        status=draw(statuses(strict)),
        final=draw(opt(st.booleans(), strict)),
        metadata=draw(metadata),
        **draw(_extras(strict)),
    )


@functools.cache
@st.composite
def artifact_events(draw, strict=False):
    return m.TaskArtifactUpdateEvent(
        task_id=draw(ids),
        context_id=draw(opt(ids, strict)),
        artifact=draw(artifacts(strict)),
        append=draw(opt(st.booleans())),
        last_chunk=draw(opt(st.booleans())),
        metadata=draw(metadata),
        **draw(_extras(strict)),
    )


@functools.cache
def stream_events(strict=False):
    return st.one_of(tasks(strict), messages(strict, role=m.Role.AGENT), status_events(strict), artifact_events(strict))


push_authentications = opt(st.builds(m.PushAuthentication, schemes=auth_schemes, credentials=opt(texts)))


@functools.cache
@st.composite
def push_configs(draw, strict=False):
    auth = draw(push_authentications)
    return m.PushNotificationConfig(
        id=draw(opt(ids)), url="https://example.invalid/" + draw(ids), token=draw(opt(texts)), authentication=auth
    )


@functools.cache
@st.composite
def task_push_configs(draw, strict=False):
    return m.TaskPushNotificationConfig(task_id=draw(ids), push_notification_config=draw(push_configs(strict)))


@functools.cache
def send_configurations(strict=False):
    return opt(
        st.builds(
            m.SendConfiguration,
            accepted_output_modes=opt(output_modes),
            history_length=opt(small_ints),
            push_notification_config=opt(push_configs(strict)),
            blocking=opt(st.booleans()),
        )
    )


@functools.cache
@st.composite
def send_params(draw, strict=False):
    conf = draw(send_configurations(strict))
    return m.SendParams(
        message=draw(messages(strict, role=m.Role.USER)),
        configuration=conf,
        metadata=draw(metadata),
        **draw(_extras(strict)),
    )


@functools.cache
@st.composite
def list_params(draw, strict=False):
    return m.ListTasksParams(
        context_id=draw(opt(ids)),
        status=draw(opt(states)),
        page_size=draw(opt(page_sizes)),
        page_token=draw(opt(ids)),
        history_length=draw(opt(small_ints)),
        include_artifacts=draw(opt(st.booleans())),
        metadata=draw(metadata),
    )


@functools.cache
def task_lists(strict=False):
    return st.lists(tasks(strict), max_size=2)


@functools.cache
@st.composite
def list_results(draw, strict=False):
    return m.ListTasksResult(
        tasks=draw(task_lists(strict)),
        next_page_token=draw(opt(ids, strict)),
        page_size=draw(opt(small_ints, strict)),
        total_size=draw(opt(small_ints, strict)),
    )


@functools.cache
def params_for(method, strict=False):
    """A strategy for the normalised params of ``method``."""
    from inspector.protocol.methods import Method

    return {
        Method.SEND: send_params(strict),
        Method.STREAM: send_params(strict),
        Method.GET: st.builds(m.TaskQueryParams, id=ids, history_length=opt(small_ints), metadata=metadata),
        Method.CANCEL: st.builds(m.TaskIdParams, id=ids, metadata=metadata),
        Method.RESUBSCRIBE: st.builds(m.TaskIdParams, id=ids, metadata=metadata),
        Method.PUSH_SET: task_push_configs(strict),
        Method.PUSH_GET: st.builds(m.PushConfigParams, id=ids, push_notification_config_id=opt(ids), metadata=metadata),
        Method.PUSH_LIST: st.builds(m.PushConfigParams, id=ids, metadata=metadata),
        Method.PUSH_DELETE: st.builds(m.PushConfigParams, id=ids, push_notification_config_id=ids, metadata=metadata),
        Method.LIST: list_params(strict),
        Method.EXTENDED_CARD: st.builds(m.ExtendedCardParams, metadata=metadata),
    }[method]


@functools.cache
def results_for(method, strict=False):
    """A strategy for the normalised result of ``method`` (not the card)."""
    from inspector.protocol.methods import Method

    return {
        Method.SEND: st.one_of(tasks(strict), messages(strict, role=m.Role.AGENT)),
        Method.STREAM: stream_events(strict),
        Method.GET: tasks(strict),
        Method.CANCEL: tasks(strict),
        Method.RESUBSCRIBE: stream_events(strict),
        Method.PUSH_SET: task_push_configs(strict),
        Method.PUSH_GET: task_push_configs(strict),
        Method.PUSH_LIST: st.lists(task_push_configs(strict), max_size=2),
        Method.PUSH_DELETE: st.none(),
        Method.LIST: list_results(strict),
    }[method]
