"""Print the shape of the import graph: cycles and imports that go the wrong way.

Run from the repository root: `python scripts/import_graph.py [-v]`. It reads the source with
grimp (import-linter's graph builder), so it counts every import, a function-local one too, as
import-linter does. The layers it measures against are the ones the contracts in pyproject.toml
enforce (bottom first); the figures say how far the tree is from them, not whether it passes:
`lint-imports` is the verdict.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

import grimp

# Bottom first. Modules at the top of inspector/ that no layer owns are "cross-cutting": each
# is its own unit, and may import only the layers listed for it (nothing, by default).
LAYERS = [
    "inspector.protocol",
    "inspector.session",
    "inspector.client",
    "inspector.hub",
    "inspector.proxy",
    "inspector.headless",
    "inspector.ui",
    "inspector.cli",
]
SIBLINGS = {"inspector.hub": "inspector.proxy", "inspector.proxy": "inspector.hub"}
# Beside the client: may use protocol and session only (of the layers).
MOCK = "mock_agent"
MOCK_MAY_USE = {"inspector.protocol", "inspector.session"}
NO_TEXTUAL = ["inspector.protocol", "inspector.session", "inspector.client", MOCK]
WIDGETS, SCREENS = "inspector.ui.widgets", "inspector.ui.screens"


def unit_of(module: str) -> str:
    for layer in [*LAYERS, MOCK]:
        if module == layer or module.startswith(layer + "."):
            return layer
    return module  # a cross-cutting top-level module, or the package root


def rank(unit: str) -> int | None:
    return LAYERS.index(unit) if unit in LAYERS else None


def sccs(nodes: list[str], edges: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components, iterative (the graph is small, recursion is not
    the risk; clarity is)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = 0
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    comp.append(top)
                    if top == node:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def wrong_way(importer: str, imported: str) -> str | None:
    """Why the edge breaks the layering, or None when it is fine."""
    a, b = unit_of(importer), unit_of(imported)
    if b == "textual" or imported.startswith("textual."):
        return "textual" if any(a == u for u in NO_TEXTUAL) else None
    if a == b:
        if importer.startswith(WIDGETS) and imported.startswith(SCREENS):
            return "widget imports screen"
        return None
    ra, rb = rank(a), rank(b)
    if a == MOCK:
        return None if b in MOCK_MAY_USE or rb is None else "mock imports " + b
    if b == MOCK:
        # Beside the client: only what sits above the client may drive the mock.
        return None if ra is not None and ra > rank("inspector.client") else "imports the mock"
    if ra is None:  # a cross-cutting module may lean on protocol only
        return None if b == "inspector.protocol" or rb is None else "cross-cutting imports " + b
    if rb is None:
        return None
    if SIBLINGS.get(a) == b:
        return "sibling imports sibling"
    return "upward" if rb > ra else None


def private_names(graph: grimp.ImportGraph) -> list[str]:
    """`from other.package import _name` across units: a private name crossing a boundary."""
    import ast
    import importlib.util

    found = []
    for module in sorted(graph.modules):
        spec = importlib.util.find_spec(module)
        if spec is None or not spec.origin or not spec.origin.endswith(".py"):
            continue
        tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
        package = module if spec.submodule_search_locations else module.rpartition(".")[0]
        for node in ast.walk(tree):
            if not isinstance(node, ast.ImportFrom):
                continue
            target = node.module or ""
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([target] if target else []))
            if unit_of(target) == unit_of(module):
                continue
            if not (target.startswith("inspector") or target.startswith(MOCK)):
                continue
            for alias in node.names:
                if alias.name.startswith("_") and not alias.name.startswith("__"):
                    found.append(f"{module} -> {target}.{alias.name}")
    return found


def main() -> int:
    verbose = "-v" in sys.argv
    # As the contracts see it (pyproject: exclude_type_checking_imports); --typing counts
    # imports under `if TYPE_CHECKING:` too.
    typing_too = "--typing" in sys.argv
    graph = grimp.build_graph(
        "inspector", "mock_agent", include_external_packages=True, exclude_type_checking_imports=not typing_too
    )
    print("imports under TYPE_CHECKING:", "counted" if typing_too else "not counted (as the contracts)")
    ours = sorted(m for m in graph.modules if m.startswith(("inspector", MOCK)))
    edges: dict[str, set[str]] = defaultdict(set)
    for m in ours:
        for imported in graph.find_modules_directly_imported_by(m):
            edges[m].add(imported)

    module_cycles = sccs(ours, {m: {i for i in edges[m] if i in ours} for m in ours})
    unit_edges: dict[str, set[str]] = defaultdict(set)
    for m in ours:
        for i in edges[m]:
            if i in ours and unit_of(i) != unit_of(m):
                unit_edges[unit_of(m)].add(unit_of(i))
    units = sorted({unit_of(m) for m in ours})
    unit_cycles = sccs(units, unit_edges)
    sibling_cycles = []
    for package in sorted(m for m in ours if any(o.startswith(m + ".") for o in ours)):
        # Each module below ``package`` stands for the child of ``package`` it is in.
        def child(module: str, package: str = package) -> str | None:
            if not module.startswith(package + "."):
                return None
            return package + "." + module[len(package) + 1 :].split(".")[0]

        kids: dict[str, set[str]] = defaultdict(set)
        for m in ours:
            a = child(m)
            if a is None:
                continue
            for i in edges[m]:
                b = child(i)
                if b is not None and b != a:
                    kids[a].add(b)
        names = sorted({c for m in ours if (c := child(m)) is not None})
        sibling_cycles += sccs(names, kids)
    bad = sorted((why, m, i) for m in ours for i in edges[m] if (why := wrong_way(m, i)) is not None)
    privates = private_names(graph)

    print(f"modules: {len(ours)}  import edges: {sum(len(v) for v in edges.values())}")
    print(
        f"module cycles (strongly connected groups): {len(module_cycles)}, "
        f"modules caught in one: {sum(map(len, module_cycles))}"
    )
    for c in module_cycles:
        print(f"  [{len(c)}] " + " ".join(c))
    print(f"package cycles (between layers/units): {len(unit_cycles)}")
    for c in unit_cycles:
        print(f"  [{len(c)}] " + " ".join(c))
    print(f"sibling cycles (children of one package, as import-linter's acyclic_siblings): {len(sibling_cycles)}")
    for c in sibling_cycles:
        print(f"  [{len(c)}] " + " ".join(c))
    print(f"wrong-way imports: {len(bad)}")
    by_kind: dict[str, int] = defaultdict(int)
    for why, _, _ in bad:
        by_kind[why] += 1
    for why, n in sorted(by_kind.items()):
        print(f"  {n:3d}  {why}")
    if verbose:
        for why, m, i in bad:
            print(f"      {why}: {m} -> {i}")
    print(f"private names imported across packages: {len(privates)}")
    if verbose:
        for p in privates:
            print(f"      {p}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
