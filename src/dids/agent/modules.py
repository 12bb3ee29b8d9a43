"""Python module names of the repository's files, and dotted names resolved to them.

A file's module name is what `import` would call it: the chain of parent directories that hold an
`__init__.py`, so `src/pkg/sub/mod.py` is `pkg.sub.mod` and `packages/x/x_lib/a.py` is `x_lib.a`.
Files outside any package are also known by their path (`scripts/tool.py` as `scripts.tool` and
`tool`), since namespace packages and script directories are imported that way too.
"""

from __future__ import annotations

from typing import Iterable


class ModuleMap:
    def __init__(self, paths: Iterable[str]):
        paths = sorted(p for p in paths if p.endswith((".py", ".pyi")))
        have_py = {p for p in paths if p.endswith(".py")}
        package_dirs = {p.rsplit("/", 1)[0] for p in paths if p.rsplit("/", 1)[-1] in
                        ("__init__.py", "__init__.pyi")}
        self.by_path: dict[str, str] = {}
        self.by_name: dict[str, str] = {}
        self.is_package: dict[str, bool] = {}
        self._split_memo: dict[str, tuple[str, str] | None] = {}  # split() answers (the map is fixed)
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
            if alias.startswith("src."):
                alias = alias[4:]
            self.by_name.setdefault(alias, p)

    def module_of(self, path: str) -> str | None:
        return self.by_path.get(path)

    def absolute(self, origin: str, path: str) -> str:
        """ORIGIN (as imported in PATH, maybe relative: ".x.y", "..z") made absolute."""
        if not origin.startswith("."):
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
