"""Scenario files: validation errors name the file, the line and the field; the built-ins
load; the printed JSON Schema accepts every built-in; the engine picks rules in order."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import jsonschema
import pytest

from inspector.protocol import models as m
from mock_agent import template
from mock_agent.cli import schema
from mock_agent.engine import DONE, Engine, HttpFault, RpcFault
from mock_agent.loader import ScenarioError, builtin_dir, builtins, load_builtin, load_file, load_text, resolve
from mock_agent.store import TaskStore

CARD = "card:\n  name: t\n"


def problems(text: str, name: str = "s.yaml") -> list[tuple[int | None, str, str]]:
    with pytest.raises(ScenarioError) as info:
        load_text(text, name)
    return [(p.line, p.field, p.message) for p in info.value.problems]


# ----------------------------------------------------------------- error locations


def test_bad_state_names_line_and_field() -> None:
    text = CARD + "rules:\n  - script:\n      - status: workin\n"
    assert problems(text) == [(5, "rules[0].script[0].status", problems(text)[0][2])]
    msg = problems(text)[0][2]
    assert "'working'" in msg and "got 'workin'" in msg


def test_unknown_step_suggests_the_right_one() -> None:
    text = CARD + "rules:\n  - script:\n      - status: working\n      - artefact: {text: x}\n"
    [(line, field, msg)] = problems(text)
    assert (line, field) == (6, "rules[0].script[1]")
    assert "'artefact'" in msg and "did you mean 'artifact'" in msg


def test_unknown_field_is_reported_where_it_is_written() -> None:
    text = CARD + "rules:\n  - script:\n      - artifact:\n          text: x\n          colour: red\n"
    [(line, field, msg)] = problems(text)
    assert (line, field, msg) == (7, "rules[0].script[0].artifact.colour", "unknown field 'colour'")


def test_missing_field_points_at_the_mapping_that_lacks_it() -> None:
    text = "name: x\nrules: []\n"
    [(line, field, msg)] = problems(text)
    assert (line, field, msg) == (1, "card", "missing required field 'card'")


def test_every_problem_is_reported_not_just_the_first() -> None:
    text = CARD + (
        "rules:\n"
        "  - when: {turn: 0, text: '(unclosed'}\n"  # line 4: two problems
        "    script:\n"
        "      - delay: -1\n"  # line 6
        "      - chunks: {texts: []}\n"  # line 7
    )
    found = problems(text)
    assert {(line, field) for line, field, _ in found} == {
        (4, "rules[0].when.turn"),
        (4, "rules[0].when.text"),
        (6, "rules[0].script[0].delay"),
        (7, "rules[0].script[1].chunks"),
    }
    assert any("regular expression" in msg for _, _, msg in found)


def test_unknown_template_variable_is_named_with_its_line() -> None:
    text = CARD + (
        "rules:\n"
        "  - when: {text: '^hi (?P<who>\\w+)'}\n"
        "    script:\n"
        "      - status: completed\n"
        "        message: 'hello {who}, you said {txt}'\n"
    )
    [(line, field, msg)] = problems(text)
    assert (line, field) == (7, "rules[0].script[0].message")
    assert "{txt}" in msg and "who" in msg  # the regex group is a known name


def test_unbalanced_brace_in_template() -> None:
    text = CARD + "rules:\n  - script:\n      - reply: 'a { b'\n"
    [(line, field, msg)] = problems(text)
    assert (line, field) == (5, "rules[0].script[0].reply") and "unmatched" in msg


def test_duplicate_keys_are_an_error() -> None:
    text = CARD + "rules:\n  - script:\n      - status: working\n    script:\n      - status: failed\n"
    [(line, field, msg)] = problems(text)
    assert (line, field) == (6, "script") and "twice" in msg


def test_yaml_syntax_error_has_a_line() -> None:
    [(line, field, msg)] = problems(CARD + "rules: [\n  - script: {\n")
    assert line is not None and line >= 3 and "YAML" in msg


def test_file_errors_name_the_file(tmp_path: Path) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text(CARD + "rules:\n  - script:\n      - http: {status: 99}\n")
    with pytest.raises(ScenarioError) as info:
        load_file(path)
    assert str(info.value).startswith(f"{path}:5:")
    assert "rules[0].script[0].http.status" in str(info.value)


def test_json_scenarios_are_accepted_with_lines(tmp_path: Path) -> None:
    good = {"card": {"name": "j"}, "rules": [{"script": [{"status": "completed"}]}]}
    (tmp_path / "good.json").write_text(json.dumps(good))
    assert resolve(str(tmp_path / "good.json")).card.name == "j"
    bad = '{\n  "card": {"name": "j"},\n  "rules": [\n    {"script": [{"status": "done"}]}\n  ]\n}\n'
    (tmp_path / "bad.json").write_text(bad)
    with pytest.raises(ScenarioError) as info:
        resolve(str(tmp_path / "bad.json"))
    [problem] = info.value.problems
    assert (problem.line, problem.field) == (4, "rules[0].script[0].status")


def test_unknown_builtin_lists_the_builtins() -> None:
    with pytest.raises(ScenarioError, match="did you mean echo"):
        resolve("ecko")


def test_camel_case_wire_spellings_are_accepted() -> None:
    scenario = load_text(CARD + "rules:\n  - script:\n      - artifact: {text: x, lastChunk: true, artifactId: a}\n")
    spec = scenario.rules[0].script[0].artifact
    assert (spec.last_chunk, spec.artifact_id) == (True, "a")


# ----------------------------------------------------------------- built-ins, schema


EXPECTED_BUILTINS = {
    "echo",
    "streaming",
    "input-required",
    "errors",
    "slow",
    "flaky",
    "large-artifact",
    "files-and-data",
    "demo",
}


def test_every_required_builtin_exists_with_a_description() -> None:
    listed = builtins()
    assert set(listed) >= EXPECTED_BUILTINS
    assert all(listed[name] for name in listed)


@pytest.mark.parametrize("name", sorted(builtins()))
def test_builtin_validates_against_the_printed_schema(name: str) -> None:
    import yaml

    document = yaml.safe_load((builtin_dir() / f"{name}.yaml").read_text())
    jsonschema.validate(document, schema())
    assert load_builtin(name).card.name


def test_schema_rejects_what_the_loader_rejects() -> None:
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"card": {}, "rules": [{"script": [{"status": "working", "colour": 1}]}]}, schema())


def test_demo_reaches_streaming_input_required_and_an_error_from_card_examples() -> None:
    scenario = load_builtin("demo")
    engine = Engine(scenario)
    examples = [e for skill in scenario.card.skills or () for e in skill.examples or ()]
    scripts = [
        engine.pick({"text": e, "method": "send", "dialect": "0.3", "turn": 1, "skill": ""}, {"text"})[0]
        for e in examples
    ]
    kinds = {type(op).__name__ for ops in scripts for op in ops}
    assert {"ChunksOp", "AskOp", "ErrorOp"} <= kinds
    assert len({id(ops) for ops in scripts}) == len(examples)  # each example reaches its own rule


# ----------------------------------------------------------------- templates


def test_template_rendering_is_literal_about_user_text() -> None:
    assert template.render("echo: {text}", {"text": "{task_id} {{x}}"}) == "echo: {task_id} {{x}}"
    assert template.render("{{literal}} {n}", {"n": 3}) == "{literal} 3"
    with pytest.raises(template.TemplateError):
        template.parse("{a.b}")


# ----------------------------------------------------------------- engine


RULES = (
    CARD
    + """
rules:
  - name: by-method
    when: {method: stream}
    script: [{status: working}, {reply: stream}]
  - name: by-skill
    when: {skill: translate}
    script: [reply: "skill {skill}"]
  - name: by-part
    when: {part: file}
    script: [reply: "files: {file_names}"]
  - name: second-turn
    when: {turn: 2}
    script: [reply: turn two]
  - name: by-text
    when: {text: '^say (?P<word>\\w+)'}
    script: [reply: "said {word}"]
fallback:
  - reply: nothing matched
"""
)


async def _reply(
    engine: Engine,
    store: TaskStore,
    message: m.Message,
    method: str = "send",
    metadata: dict | None = None,
    record=None,
) -> str:
    record = record or store.create("t", "c", "0.3")
    run = engine.begin_turn(record, message, method, "0.3", metadata)
    run.start()
    outcome = await run.outcome
    return outcome.parts[0].text


def _msg(*parts: m.Part, metadata: dict | None = None) -> m.Message:
    return m.Message(role=m.Role.USER, parts=list(parts), message_id="x", metadata=metadata)


async def test_rules_match_in_order_on_each_condition() -> None:
    engine = Engine(load_text(RULES))
    text = m.TextPart(text="say hello")
    file = m.FilePart(file=m.FileContent(name="a.txt", bytes="aGk="))
    assert await _reply(engine, TaskStore(), _msg(text), "stream") == "stream"
    assert await _reply(engine, TaskStore(), _msg(text), metadata={"skill_used": "translate"}) == "skill translate"
    assert await _reply(engine, TaskStore(), _msg(text, file)) == "files: a.txt"
    assert await _reply(engine, TaskStore(), _msg(text)) == "said hello"
    assert await _reply(engine, TaskStore(), _msg(m.TextPart(text="other"))) == "nothing matched"
    store = TaskStore()
    record = store.create("t", "c", "0.3")
    await _reply(engine, store, _msg(m.TextPart(text="other")), record=record)
    assert await _reply(engine, store, _msg(text), record=record) == "turn two"


async def test_one_of_is_repeatable_from_the_seed() -> None:
    scenario = load_builtin("flaky")

    async def sequence() -> list[str]:
        engine = Engine(scenario, time_scale=0)
        store = TaskStore()
        out = []
        for i in range(12):
            record = store.create(f"t{i}", "c", "0.3")
            run = engine.begin_turn(record, _msg(m.TextPart(text="x")), "send", "0.3")
            run.start()
            outcome = await run.outcome
            out.append(type(outcome).__name__ if outcome is not None else record.state.value)
        await asyncio.sleep(0)
        return out

    first, second = await sequence(), await sequence()
    assert first == second
    assert len(set(first)) >= 3  # successes and more than one kind of fault


async def test_a_run_reports_faults_and_ends_with_done() -> None:
    scenario = load_text(CARD + "rules:\n  - script: [{status: working}, {http: 502}, {status: completed}]\n")
    engine = Engine(scenario)
    record = engine.store.create("t", "c", "0.3")
    queue: asyncio.Queue = asyncio.Queue()
    record.subscribers.append(queue)
    run = engine.begin_turn(record, _msg(m.TextPart(text="x")), "stream", "0.3").start()
    assert isinstance(await run.outcome, HttpFault)
    items = [await queue.get() for _ in range(3)]
    assert [type(i).__name__ for i in items[:2]] == ["TaskStatusUpdateEvent", "HttpFault"]
    assert items[2] is DONE
    assert record.state is m.TaskState.WORKING  # the step after the fault never ran


async def test_error_step_defaults_nothing_but_the_code() -> None:
    scenario = load_text(CARD + "rules:\n  - script: [error: -32005]\n")
    engine = Engine(scenario)
    record = engine.store.create("t", "c", "0.3")
    run = engine.begin_turn(record, _msg(m.TextPart(text="x")), "send", "0.3").start()
    fault = await run.outcome
    assert isinstance(fault, RpcFault) and fault.error.code == -32005


async def test_hold_waits_for_a_release_or_its_timeout() -> None:
    scenario = load_text(
        CARD + "rules:\n  - script: [{status: working}, {hold: go},"
        " {artifact: {text: half}}, {hold: later, timeout: 0.01}, {status: completed}]\n"
    )
    engine = Engine(scenario)
    store = TaskStore()
    record = store.create("t", "c", "0.3")
    run = engine.begin_turn(record, _msg(m.TextPart(text="x")), "send", "0.3")
    run.start()
    while engine.gates.held("go") == 0:
        await asyncio.sleep(0)
    # Parked: nothing after the gate has happened, however long it waits.
    assert record.state is m.TaskState.WORKING and not record.task.artifacts
    assert engine.gates.held("later") == 0 and not run.outcome.done()
    assert engine.gates.release("go") == 1
    # Nobody releases the second gate: its timeout is the only way on.
    assert await run.outcome is None
    assert record.state is m.TaskState.COMPLETED and len(record.task.artifacts) == 1
    assert engine.gates.held("go") == engine.gates.held("later") == 0


def test_the_shipped_schema_is_the_one_a2a_mock_prints() -> None:
    # Regenerate with: .venv/bin/a2a-mock schema > mock_agent/scenario.schema.json
    shipped = json.loads((builtin_dir().parent / "scenario.schema.json").read_text(encoding="utf-8"))
    assert shipped == schema()


@pytest.mark.parametrize("name", sorted(EXPECTED_BUILTINS))
def test_builtins_name_the_schema_for_editors(name: str) -> None:
    first = (builtin_dir() / f"{name}.yaml").read_text(encoding="utf-8").splitlines()[0]
    assert first == "# yaml-language-server: $schema=../scenario.schema.json"
