"""A TypeScript/JavaScript view of the index: the same index with its `py` facts replaced by the
TypeScript/JavaScript ones, so the layers written over parse facts (the session builder, the
semantic matches, the probes) read the other language unchanged.

The view shares the real index's files, texts, settings, corpus and agent model; it has its own
memo (`_search_cache`, call groups), its `lang` is "ts" (semantics.matches then applies the
Node models), and a search for Python files (`*.py`) searches TypeScript/JavaScript ones.
"""

from __future__ import annotations

import copy

TS_GLOBS = ("*.ts", "*.tsx", "*.mts", "*.cts", "*.js", "*.jsx", "*.mjs", "*.cjs")


def ts_view(index):
    """The TypeScript view of INDEX (built once per index)."""
    key = ("_ts_view",)
    got = index._search_cache.get(key)
    if got is not None:
        got.agent = index.agent  # the model is built after the session first asks for the view
        return got
    view = copy.copy(index)
    view.py = {p: f for p, f in index.ts.items() if index.role(p) == "source"}
    view._py_keys = None
    view._by_callee = None
    view._by_short = None
    view._all_calls = None  # built with the call groups: the Python ones must not carry over
    view._search_cache = {}
    view._refs = None
    view._defs = None
    view._imported = None
    view.lang = "ts"
    search = index.search

    def ts_search(patterns, *, globs=(), ignore_case=False):
        globs = tuple(x for g in globs for x in (TS_GLOBS if g == "*.py" else (g,)))
        return search(patterns, globs=globs, ignore_case=ignore_case)

    view.search = ts_search
    view.is_dead = lambda path, line: False  # reach decides what is off the path
    index._search_cache[key] = view
    return view


def is_view(index) -> bool:
    return getattr(index, "lang", "python") != "python"
