"""Reach over a repository whose scored path starts in a Node package.

The walk is Reach's own (one graph, both languages). What differs is the place nobody reaches:
a file is `library` only when it belongs to the scored package or to a workspace package it
depends on (their public API), and `off-path` otherwise (another app of the monorepo, a second
extension, a build helper, a Python bot that maintains the repository). Branches are judged by
ts_defaults.
"""

from __future__ import annotations

from .callgraph import MODULE
from .reach import Reach, offpath_place


class MixedReach(Reach):
    product: frozenset = frozenset()  # package dirs of the scored product

    def of(self, path: str, line: int | None) -> str:
        got = super().of(path, line)
        if got != "library":
            return got
        if offpath_place(path) or not self._in_product(path):
            return "off-path"
        return "library"

    def _in_product(self, path: str) -> bool:
        for d in self.product:
            if not d or path.startswith(d + "/"):
                return True
        return False


def product_dirs(index, info, pkg) -> frozenset:
    """The chosen package's directory and those of the workspace packages it depends on,
    transitively."""
    by_name = {p.name.value: p for p in index.node_packages if p.name and p.name.value}
    out, stack = set(), [pkg]
    while stack:
        p = stack.pop()
        if p.dir in out:
            continue
        out.add(p.dir)
        for dep in p.dependencies:
            q = by_name.get(dep.name)
            if q is not None and q.dir not in out:
                stack.append(q)
    # a root package that only lists workspaces is the monorepo, not a product directory
    if "" in out and pkg.dir != "":
        out.discard("")
    return frozenset(out)


def compute(graph, entries, index, info, choice) -> MixedReach:
    from .defaults import Defaults
    from .ts_defaults import MixedDefaults

    overrides = {}
    roots = set()
    for nid in entries.roots:
        node = graph.nodes.get(nid)
        if node is not None and node.kind == "function":
            roots.add((node.path, node.qualname))
    py_defaults = Defaults({p: index.py[p] for p in index.py}, index.settings, overrides, roots)
    product = product_dirs(index, info, choice.pkg)
    defaults = MixedDefaults(py_defaults, index, roots, product)
    r = MixedReach(graph, entries, defaults, index=index)
    r.product = product
    return r.compute()


__all__ = ["MixedReach", "compute", "product_dirs", "MODULE"]
