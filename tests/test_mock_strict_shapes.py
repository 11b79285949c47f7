"""The mock's request tables (mock_agent/request_shapes.py) against the official schemas.

Every object a request carries, in every dialect, has exactly the fields the schema
gives it, and exactly the required ones: 1.0 from the normative proto's
``field_behavior = REQUIRED`` annotations, 0.3 and 0.1 from the JSON Schemas'
``required`` lists. So a field the spec adds or requires cannot be missed by strict mode.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from mock_agent.request_shapes import BOOLEAN, INTEGER, METHODS, SHAPES, STRING, Enum, ListOf, Ref, snake
from shared_paths import SCHEMAS

PROTO = SCHEMAS / "a2a-v1.0.1.proto"

_SCALARS = {"string": STRING, "int32": INTEGER, "bool": BOOLEAN}


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(word.capitalize() for word in rest)


def proto_messages() -> dict[str, dict[str, tuple[str, bool, bool]]]:
    """message name -> {lowerCamel field: (proto type, repeated, required)}."""
    text = PROTO.read_text()
    out: dict[str, dict[str, tuple[str, bool, bool]]] = {}
    for name, body in re.findall(r"^message (\w+) \{\n(.*?)^\}", text, re.S | re.M):
        fields = {}
        for line in body.splitlines():
            line = line.split("//")[0].strip()
            found = re.match(r"(optional |repeated )?([\w.]+(?:<[^>]*>)?) (\w+) = \d+( \[.*\])?;", line)
            if found:
                label, kind, field, options = found.groups()
                fields[camel(field)] = (kind, label == "repeated ", "REQUIRED" in (options or ""))
        out[name] = fields
    return out


def proto_rpcs() -> dict[str, str]:
    return dict(re.findall(r"rpc (\w+)\((\w+)\)", PROTO.read_text()))


def test_10_request_messages_match_the_proto() -> None:
    messages = proto_messages()
    rpcs = proto_rpcs()
    for method, shape in METHODS["1.0"].items():
        assert shape.params == rpcs[method], method
    for name, shape in SHAPES["1.0"].items():
        proto = messages[name]
        assert set(shape.fields) == set(proto), name
        for field, spec in shape.fields.items():
            kind, repeated, required = proto[field]
            assert spec.required == required, (name, field)
            assert (type(spec.type) is ListOf) == repeated, (name, field)
            inner = spec.type.item if type(spec.type) is ListOf else spec.type
            if kind in _SCALARS:
                assert inner is _SCALARS[kind], (name, field)
            elif kind in messages and kind != "Role":
                assert inner == Ref(kind), (name, field)
            elif kind in ("Role", "TaskState"):
                assert type(inner) is Enum, (name, field)
            # Struct, Value, Timestamp, bytes: the table's OBJECT, ANY, TIMESTAMP, BYTES.
            if spec.required and repeated:
                assert spec.non_empty, (name, field)  # a REQUIRED repeated field holds one at least


def test_every_shape_reachable_from_a_method() -> None:
    for dialect, shapes in SHAPES.items():
        seen: set[str] = set()
        todo = [s.params for s in METHODS[dialect].values() if s.params]
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            shape = shapes[name]
            todo += list(shape.variants.values())
            for spec in shape.fields.values():
                inner = spec.type.item if type(spec.type) is ListOf else spec.type
                if type(inner) is Ref:
                    todo.append(inner.shape)
        assert seen == set(shapes), (dialect, set(shapes) - seen)


def _schema(file: str) -> dict[str, Any]:
    doc = json.loads((SCHEMAS / file).read_text())
    return doc.get("definitions") or doc["$defs"]


def _ref(node: dict[str, Any]) -> str:
    return node["$ref"].rsplit("/", 1)[-1]


# Shapes of ours that stand for a union in the schema.
UNIONS = {("0.3", "File"): ("FileWithBytes", "FileWithUri")}


@pytest.mark.parametrize(("dialect", "file"), [("0.3", "a2a-v0.3.0.json"), ("0.1", "a2a-v0.1.0.json")])
def test_0x_request_objects_match_the_json_schema(dialect: str, file: str) -> None:
    defs = _schema(file)
    for name, shape in SHAPES[dialect].items():
        if shape.tag is not None:  # Part: anyOf of the tagged variants
            assert {_ref(r) for r in defs[name]["anyOf"]} == set(shape.variants.values()), name
            continue
        members = UNIONS.get((dialect, name), (name,))
        properties = {k for m in members for k in defs[m].get("properties", {})}
        assert set(shape.fields) == properties, name
        required = [set(defs[m].get("required", [])) for m in members]
        if len(members) == 1:
            assert {f for f, s in shape.fields.items() if s.required} == required[0], name
        else:  # anyOf: each member requires one of the shape's one_of keys
            assert {f for f, s in shape.fields.items() if s.required} == set()
            assert {k for r in required for k in r} == set(shape.one_of), name
        for field, spec in shape.fields.items():
            node = defs[members[0]]["properties"].get(field) or defs[members[-1]]["properties"][field]
            node = next((n for n in node.get("anyOf", [node]) if n.get("type") != "null"), node)
            if "$ref" in node:
                assert spec.type == Ref(_ref(node)) or (dialect, spec.type.shape) in UNIONS, (name, field)
            elif node.get("type") == "array":
                assert type(spec.type) is ListOf, (name, field)
            elif "enum" in node or ("const" in node and field != shape.tag):
                values = node.get("enum") or [node["const"]]
                assert (type(spec.type) is Enum and set(spec.type.values) == set(values)) or spec.type is STRING, (
                    name,
                    field,
                )


@pytest.mark.parametrize(("dialect", "file"), [("0.3", "a2a-v0.3.0.json"), ("0.1", "a2a-v0.1.0.json")])
def test_0x_methods_take_the_schema_params(dialect: str, file: str) -> None:
    defs = _schema(file)
    for definition in defs.values():
        method = definition.get("properties", {}).get("method", {}).get("const")
        if method is None or "Request" not in definition.get("title", "Request"):
            continue
        params = definition["properties"].get("params")
        shape = METHODS[dialect].get(method)
        if shape is None:  # a response or notification type that names a method
            continue
        assert ("params" in definition.get("required", [])) == shape.params_required, method
        if params is None:
            assert shape.params is None, method
            continue
        refs = [_ref(r) for r in params.get("anyOf", [params])]
        # tasks/pushNotificationConfig/get: anyOf TaskIdParams / Get...Params, both
        # requiring id; ours is the wider of the two.
        assert shape.params in refs, (method, refs)


def test_snake_names_are_the_protos() -> None:
    messages = proto_messages()
    text = PROTO.read_text()
    for name in SHAPES["1.0"]:
        for field in messages[name]:
            assert re.search(rf"\b{snake(field)} = \d+", text), (name, field)
