"""YAML from users' files (scenarios, themes), with what PyYAML leaves unbounded refused.

PyYAML's safe loader builds an alias as a second reference to the anchored node, so a
"billion laughs" file (each list holding nine aliases of the one before) is a few
hundred bytes of YAML and billions of nodes to anything that walks the result; an
alias inside its own anchor (``a: &a [*a]``) is a cycle, and a walk never ends. Its
composer also recurses once per nesting level, so ten thousand ``[`` end in a
RecursionError. This loader counts while it composes:

- every alias adds the size of the node it repeats; past ``MAX_ALIAS_NODES`` in all,
  loading stops at that alias;
- an alias of a node that is still open (its own ancestor) is refused;
- collections nested more than ``MAX_JSON_DEPTH`` deep are refused, aliases counted
  at the depth they are used.

Each refusal is a YAMLLimit, a ``yaml.MarkedYAMLError`` whose mark is the offending
alias or collection, so callers report file:line as for any YAML error.

Cross-cutting: no import of the rest of the package beyond safejson.
"""

from __future__ import annotations

from typing import Any

import yaml

from .safejson import MAX_JSON_DEPTH

#: The nodes aliases may add, all together, to a document. Reusing a card or a list
#: of steps a few times is far below; an alias bomb is far above.
MAX_ALIAS_NODES = 10_000


class YAMLLimit(yaml.MarkedYAMLError):
    """A document refused for its aliases or depth; ``problem`` says which."""

    def __init__(self, problem: str, mark: Any) -> None:
        super().__init__(problem=problem, problem_mark=mark)


class BoundedLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` with the bounds above; use like it (``get_single_node``,
    ``construct_document``, ``dispose``) or through ``load``."""

    def __init__(self, stream: Any) -> None:
        super().__init__(stream)
        #: id(node) -> (nodes in it, aliases expanded; levels of collections), once composed.
        self._sizes: dict[int, tuple[int, int]] = {}
        self._aliased = 0
        self._depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent):
            node = self.anchors.get(event.anchor)
            if node is not None:  # else PyYAML reports the undefined alias
                known = self._sizes.get(id(node))
                if known is None:
                    raise YAMLLimit(f"alias *{event.anchor} is used inside its own anchor (a cycle)", event.start_mark)
                size, height = known
                self._aliased += size
                if self._aliased > MAX_ALIAS_NODES:
                    raise YAMLLimit(
                        f"aliases repeat more than {MAX_ALIAS_NODES} nodes in all; refused at alias *{event.anchor}",
                        event.start_mark,
                    )
                if self._depth + height > MAX_JSON_DEPTH:
                    raise YAMLLimit(
                        f"alias *{event.anchor} nests the document more than {MAX_JSON_DEPTH} levels deep",
                        event.start_mark,
                    )
            return super().compose_node(parent, index)
        collection = isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent))
        if collection:
            self._depth += 1
            if self._depth > MAX_JSON_DEPTH:
                raise YAMLLimit(f"nested more than {MAX_JSON_DEPTH} levels deep", event.start_mark)
        try:
            node = super().compose_node(parent, index)
        finally:
            if collection:
                self._depth -= 1
        self._sizes[id(node)] = self._measure(node)
        return node

    def _measure(self, node: Any) -> tuple[int, int]:
        if isinstance(node, yaml.SequenceNode):
            children = node.value
        elif isinstance(node, yaml.MappingNode):
            children = [n for pair in node.value for n in pair]
        else:
            return 1, 0
        size, height = 1, 0
        for child in children:
            s, h = self._sizes.get(id(child), (1, 0))
            size += s
            height = max(height, h)
        return size, height + 1


def load(text: str) -> Any:
    """``yaml.safe_load`` within the bounds; raises yaml.YAMLError (YAMLLimit included)."""
    loader = BoundedLoader(text)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()
