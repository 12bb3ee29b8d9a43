"""TypeScript/JavaScript module specifiers resolved to the repository's files.

- relative specifiers (`./tools/bash.js`, `../x`) by Node/TypeScript rules: the file as
  written, its `.js`/`.mjs`/`.cjs`/`.jsx` suffix read as the TypeScript source it is compiled
  from, then the source suffixes and `/index.*`;
- workspace packages by their package.json name (`@scope/core`, `@scope/core/hub`): the subpath
  through `exports` (development/source conditions first) or `main`/`module`, then the
  directory itself; a target under a build folder (`dist/`, `out/`, `build/`, `lib/`) is read as
  the source it is built from (`src/` beside it, same relative path, a source suffix);
- tsconfig `paths` aliases (`@/*` -> `src/*`) of the tsconfig nearest the importing file.

Anything else is a third-party module (None): its calls are the library models' business.
"""

from __future__ import annotations

import posixpath
import re

from ..index.jsonlines import JsonArray, JsonObject, loads

SOURCE_EXTS = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")
_JS_EXT = re.compile(r"\.(m|c)?jsx?$")
_BUILD_DIR = re.compile(r"^(dist|out|build|lib|esm|cjs|dist-\w+)/")
# conditions a monorepo's own tooling reads first (the source, not the build)
_CONDITIONS = ("development", "source", "bun", "import", "node", "module", "require", "default",
               "types")


class TsModules:
    def __init__(self, files, packages):
        """FILES: the parsed TypeScript/JavaScript paths; PACKAGES: index.node_packages.
        tsconfig aliases are added with add_tsconfig."""
        self.files = set(files)
        self.packages = {}  # name -> NodePackage
        for pkg in packages:
            if pkg.name is not None and pkg.name.value:
                self.packages.setdefault(pkg.name.value, pkg)
        self._names = sorted(self.packages, key=len, reverse=True)
        self.pkg_dirs = sorted(((p.dir, p) for p in packages), key=lambda x: -len(x[0]))
        self._memo: dict[tuple[str, str], str | None] = {}
        self._aliases: list[tuple[str, str, list[str]]] = []  # (dir, pattern, targets)

    # -- packages ------------------------------------------------------------------------------
    def package_of(self, path: str):
        """The NodePackage whose directory holds PATH (the innermost), or None."""
        for d, pkg in self.pkg_dirs:
            if not d or path.startswith(d + "/"):
                return pkg
        return None

    def package_entry(self, pkg, subpath: str = ".") -> str | None:
        """The source file a package's SUBPATH ("." or "./hub") resolves to."""
        targets = [e.value for e in pkg.exports if e.value and
                   (e.name == subpath or e.name.startswith(subpath + ":"))]
        targets.sort(key=lambda t: _condition_rank(t, pkg, subpath))
        if subpath == ".":
            for e in (pkg.main, pkg.browser):
                if e is not None and e.value:
                    targets.append(e.value)
        for t in targets:
            hit = self.source_of(pkg.dir, t)
            if hit:
                return hit
        base = pkg.dir + "/" if pkg.dir else ""
        rest = "" if subpath == "." else subpath[2:]
        for cand in ([f"src/{rest}", rest] if rest else ["src/index", "index", "src/main", "main"]):
            hit = self._file(posixpath.normpath(base + cand) if cand else base.rstrip("/"))
            if hit:
                return hit
        return None

    def source_of(self, pkg_dir: str, target: str) -> str | None:
        """A manifest's file target (`./dist/index.js`, `src/cli.ts`) as a source file."""
        t = target.strip()
        if t.startswith("./"):
            t = t[2:]
        base = pkg_dir + "/" if pkg_dir else ""
        hit = self._file(posixpath.normpath(base + t))
        if hit:
            return hit
        m = _BUILD_DIR.match(t)
        if m:
            rest = t[m.end():]
            for src_dir in ("src/", "lib/", ""):
                hit = self._file(posixpath.normpath(base + src_dir + rest))
                if hit:
                    return hit
        return None

    # -- specifiers ----------------------------------------------------------------------------
    def resolve(self, from_path: str, spec: str) -> str | None:
        key = (from_path, spec)
        if key in self._memo:
            return self._memo[key]
        out = self._resolve(from_path, spec)
        self._memo[key] = out
        return out

    def _resolve(self, from_path: str, spec: str) -> str | None:
        if not spec:
            return None
        if spec.startswith("."):
            d = posixpath.dirname(from_path)
            return self._file(posixpath.normpath(posixpath.join(d, spec)))
        if spec.startswith("/"):
            return None
        for d, pattern, targets in self._aliases:
            if d and not from_path.startswith(d + "/"):
                continue
            got = _alias(spec, pattern)
            if got is None:
                continue
            for t in targets:
                hit = self._file(posixpath.normpath(posixpath.join(d, t.replace("*", got))))
                if hit:
                    return hit
        for name in self._names:
            if spec == name or spec.startswith(name + "/"):
                pkg = self.packages[name]
                sub = "." if spec == name else "./" + spec[len(name) + 1:]
                return self.package_entry(pkg, sub)
        return None

    def _file(self, p: str) -> str | None:
        """P (no suffix, a JavaScript suffix or a source suffix) as a parsed file."""
        if p.startswith("../") or p == "..":
            return None
        if p == ".":
            p = ""
        if p in self.files:
            return p
        stem = _JS_EXT.sub("", p)
        if stem != p:
            for ext in (".ts", ".tsx", ".mts", ".cts"):
                if stem + ext in self.files:
                    return stem + ext
        for ext in SOURCE_EXTS:
            if p + ext in self.files:
                return p + ext
        pre = p + "/" if p else ""
        for ext in SOURCE_EXTS:
            if pre + "index" + ext in self.files:
                return pre + "index" + ext
        return None

    # -- tsconfig ------------------------------------------------------------------------------
    def add_tsconfig(self, path: str, text: str) -> None:
        doc = loads(text)
        if not isinstance(doc, JsonObject):
            return
        opts = doc.get("compilerOptions")
        if not isinstance(opts, JsonObject):
            return
        paths = opts.get("paths")
        if not isinstance(paths, JsonObject):
            return
        d = posixpath.dirname(path)
        base = opts.get("baseUrl") if isinstance(opts.get("baseUrl"), str) else "."
        root = posixpath.normpath(posixpath.join(d, base)) if d or base != "." else ""
        if root == ".":
            root = ""
        for pattern, targets in paths.items():
            if not isinstance(targets, JsonArray):
                continue
            ts_ = [t for t in targets if isinstance(t, str)][:8]
            self._aliases.append((root, pattern, ts_))
        self._aliases.sort(key=lambda a: -len(a[0]))


def _alias(spec: str, pattern: str) -> str | None:
    """What `*` stands for when SPEC matches PATTERN ("" for an exact match), else None."""
    if "*" not in pattern:
        return "" if spec == pattern else None
    pre, _, post = pattern.partition("*")
    if spec.startswith(pre) and spec.endswith(post) and len(spec) >= len(pre) + len(post):
        return spec[len(pre):len(spec) - len(post)] if post else spec[len(pre):]
    return None


def _condition_rank(target: str, pkg, subpath: str) -> int:
    for e in pkg.exports:
        if e.value == target and (e.name == subpath or e.name.startswith(subpath + ":")):
            conds = e.name[len(subpath) + 1:].split(":") if ":" in e.name[len(subpath):] else []
            ranks = [_CONDITIONS.index(c) if c in _CONDITIONS else len(_CONDITIONS) for c in conds]
            return min(ranks) if ranks else len(_CONDITIONS)
    return len(_CONDITIONS) + 1
