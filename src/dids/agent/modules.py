"""Python module names of the repository's files, and dotted names resolved to them.

A file's module name is what `import` would call it: the chain of parent directories that hold an
`__init__.py`, so `src/pkg/sub/mod.py` is `pkg.sub.mod` and `packages/x/x_lib/a.py` is `x_lib.a`.
Files outside any package are also known by their path (`scripts/tool.py` as `scripts.tool` and
`tool`), since namespace packages and script directories are imported that way too.
"""

from __future__ import annotations

import sys
from typing import Iterable

_STDLIB = frozenset(getattr(sys, "stdlib_module_names", ()))


class ModuleMap:
    def __init__(self, paths: Iterable[str], path_roots: Iterable[str] = ()):
        self.path_roots = frozenset(path_roots)  # dirs of modules that edit sys.path
        paths = sorted(p for p in paths if p.endswith((".py", ".pyi")))
        have_py = {p for p in paths if p.endswith(".py")}
        package_dirs = {p.rsplit("/", 1)[0] for p in paths if p.rsplit("/", 1)[-1] in
                        ("__init__.py", "__init__.pyi")}
        self.by_path: dict[str, str] = {}
        self.by_name: dict[str, str] = {}
        self.is_package: dict[str, bool] = {}
        self._split_memo: dict[str, tuple[str, str] | None] = {}  # split() answers (the map is fixed)
        self._tails: dict[str, set[str]] | None = None  # a name's dotted suffixes -> names
        self._root_memo: dict[tuple[str, str], str | None] = {}
        for p in paths:
            if p.endswith(".pyi") and p[:-1] in have_py:
                continue  # the stub of a module that has its source
            stem = p.rsplit(".", 1)[0]
            parts = stem.split("/")
            k = len(parts) - 1  # climb while the directory is a package
            while k > 0 and "/".join(parts[:k]) in package_dirs:
                k -= 1
            mod = parts[k:]
            package = mod[-1] == "__init__"
            if package:
                mod = mod[:-1]
            if not mod:
                continue
            name = ".".join(mod)
            self.by_path[p] = name
            self.is_package[p] = package
            self.by_name.setdefault(name, p)
            alias = ".".join(parts[:-1] if package else parts)
            self.by_name.setdefault(alias, p)  # `src.agents` where `src/` is a namespace package
            if alias.startswith("src."):  # ... and `agents` of a src layout
                self.by_name.setdefault(alias[4:], p)

    def module_of(self, path: str) -> str | None:
        return self.by_path.get(path)

    def absolute(self, origin: str, path: str, imported: bool = True) -> str:
        """ORIGIN (as imported in PATH, maybe relative: ".x.y", "..z") made absolute.

        An absolute import no module of the repository answers is looked for in the tree a
        module puts on sys.path at import time (`sys.path.insert(0, <parent>)` in a file of
        PATH's directory or one above it, PATH_ROOTS): `server.ws` in `backend/server/app.py`
        is `backend.server.ws` when that is the only module of the tree ending so, and a single
        name is the nearest module of that name from PATH's directory upwards. Only what an
        import statement names (IMPORTED), never a dotted name in code (`tool.name` on a local
        `tool`), and never the importing file itself."""
        if not origin.startswith("."):
            if imported and self.split(origin) is None:
                root = self._path_root(path)
                if root is not None:
                    return self._under_path_root(origin, path, root) or origin
            return origin
        mod = self.by_path.get(path, "")
        dots = len(origin) - len(origin.lstrip("."))
        parts = mod.split(".") if mod else []
        if not self.is_package.get(path, False):
            parts = parts[:-1]  # a module's package is its parent
        up = dots - 1
        if up:
            parts = parts[:-up] if up <= len(parts) else []
        rest = origin[dots:]
        return ".".join(parts + ([rest] if rest else []))

    def _path_root(self, path: str) -> str | None:
        """The tree a sys.path edit opens to PATH: the parent of the nearest directory at or
        above PATH's whose module edits sys.path (it inserts its own or its parent)."""
        d = path.rsplit("/", 1)[0] if "/" in path else ""
        while d:
            if d in self.path_roots:
                return d.rsplit("/", 1)[0] if "/" in d else ""
            d = d.rsplit("/", 1)[0] if "/" in d else ""
        return None

    def _under_path_root(self, origin: str, path: str, root: str) -> str | None:
        key = (origin, path.rsplit("/", 1)[0] if "/" in path else "")
        try:
            return self._root_memo[key]
        except KeyError:
            pass
        if self._tails is None:
            self._tails = {}
            for name, p in self.by_name.items():
                parts = name.split(".")
                for k in range(1, len(parts)):
                    self._tails.setdefault(".".join(parts[k:]), set()).add(name)
        got = None
        parts = origin.split(".")
        # only modules of that tree, never the importing file itself (`import slack_sdk` in
        # integrations/slack_sdk.py is the library)
        top = root + "/" if root else ""
        for k in range(len(parts), 0, -1):
            names = {n for n in self._tails.get(".".join(parts[:k]), ())
                     if self.by_name[n].startswith(top) and self.by_name[n] != path}
            if not names:
                continue
            if k >= 2 and len({self.by_name[n] for n in names}) == 1:  # one file, maybe two names
                got = min(names, key=len) + "".join("." + x for x in parts[k:])
            elif k == 1 and parts[0] not in _STDLIB:  # `import logging` is never utils/logging.py
                here = key[1]
                while got is None:  # the nearest directory, from the file's own upwards
                    for name in sorted(names):
                        p = self.by_name[name]
                        if (p.rsplit("/", 1)[0] if "/" in p else "") == here or \
                                p.rsplit("/", 2)[0] == here and p.endswith("/__init__.py"):
                            got = name + "".join("." + x for x in parts[k:])
                            break
                    if not here:
                        break
                    here = here.rsplit("/", 1)[0] if "/" in here else ""
            break
        self._root_memo[key] = got
        return got

    def split(self, dotted: str) -> tuple[str, str] | None:
        """(path of the longest module prefix of DOTTED, the rest) or None when no prefix is a
        module of the repository. The rest is "" when DOTTED names the module itself."""
        try:  # asked for every import site and name the call graph resolves, most of them often
            return self._split_memo[dotted]
        except KeyError:
            pass
        got = None
        parts = dotted.split(".")
        for k in range(len(parts), 0, -1):
            path = self.by_name.get(".".join(parts[:k]))
            if path is not None:
                got = path, ".".join(parts[k:])
                break
        self._split_memo[dotted] = got
        return got
