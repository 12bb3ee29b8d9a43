"""The search corpus: the committed text files of one snapshot packed into a few large files.

ripgrep needs files on disk. Writing one file per blob costs an open/create per file (over a
second for a few thousand files on common filesystems), and every ripgrep call then opens them
all again. Instead the files are concatenated into packs of a few MB — Python sources apart from
the rest, so `*.py` searches read only Python packs — with a manifest of where each file starts.
A hit's pack line maps back to (path, line) by bisection. Each file ends with a newline in its
pack, so no line spans two files and line numbers equal the file's own (ripgrep counts `\\n`).

Packs are plain data: nothing in them is a link, and no repository path becomes a file name.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from bisect import bisect_right
from dataclasses import dataclass, field
from pathlib import Path

from ..acquire import budget
from .search import Hit, rg_run

PACK_BYTES = 4 << 20  # ripgrep searches packs in parallel; a few MB each keeps every core busy
_MANIFEST = "manifest.json"
_VERSION = 1
# dids' own excludes, applied to hits (the scanned repo's ignore files never apply)
_EXCLUDES = ("!**/node_modules/**", "!**/.git/**", "!**/*.min.js")


@dataclass
class Pack:
    name: str
    paths: list[str]
    offsets: list[int]  # byte offset of each file in the pack
    lengths: list[int]  # the file's own length (the pack may add one newline)
    starts: list[int]  # pack line number of each file's first line (1-based)


@dataclass
class Corpus:
    root: Path
    packs: list[Pack]
    _where: dict[str, tuple[int, int]] = field(default_factory=dict)  # path -> (pack, slot)
    _ok: dict[tuple[str, ...], object] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for p, pack in enumerate(self.packs):
            for i, path in enumerate(pack.paths):
                self._where[path] = (p, i)

    def __contains__(self, path: str) -> bool:
        return path in self._where

    def read(self, path: str) -> bytes | None:
        """The file's bytes at the commit, or None when it is not in the corpus."""
        where = self._where.get(path)
        if where is None:
            return None
        pack = self.packs[where[0]]
        with open(self.root / pack.name, "rb") as f:
            f.seek(pack.offsets[where[1]])
            return f.read(pack.lengths[where[1]])

    def search(self, patterns: list[str], *, globs: tuple[str, ...] = (), ignore_case: bool = False,
               select: list[str] | None = None) -> list[Hit]:
        """Every line of a file passing GLOBS (ripgrep glob syntax) that matches a pattern, sorted
        by path and line; with SELECT, only lines that also match one of those patterns (checked
        with Python's re), whose indexes then fill Hit.pattern(s)."""
        keep = self._path_filter(_EXCLUDES + tuple(globs))
        names = [pack.name for pack in self.packs if any(map(keep, pack.paths))]
        if not names or not patterns:
            return []
        by_name = {pack.name: pack for pack in self.packs}
        hits = []
        for name, line, text, matched in rg_run(self.root, names, patterns,
                                                ignore_case=ignore_case, select=select):
            pack = by_name[name]
            slot = bisect_right(pack.starts, line) - 1
            if slot < 0:
                continue
            path = pack.paths[slot]
            if not keep(path):
                continue
            hits.append(Hit(path, line - pack.starts[slot] + 1, text, matched[0], matched))
        hits.sort(key=lambda h: (h.path, h.line, h.pattern))
        return hits

    def _path_filter(self, globs: tuple[str, ...]):
        """A path predicate for ripgrep-style globs, memoised per glob set and path."""
        cached = self._ok.get(globs)
        if cached is None:
            cached = self._ok[globs] = _GlobFilter(globs)
        return cached  # type: ignore[return-value]


class _GlobFilter:
    """ripgrep/gitignore glob semantics for the forms dids uses: a pattern without `/` matches
    the file name at any depth, one with `/` matches from the root (`**` spans directories);
    `!` excludes; when any positive glob is given, a path must match one of them."""

    def __init__(self, globs: tuple[str, ...]):
        self.pos = [_glob_regex(g) for g in globs if not g.startswith("!")]
        self.neg = [_glob_regex(g[1:]) for g in globs if g.startswith("!")]
        self.memo: dict[str, bool] = {}

    def __call__(self, path: str) -> bool:
        ok = self.memo.get(path)
        if ok is None:
            ok = (not self.pos or any(r.match(path) for r in self.pos)) and \
                not any(r.match(path) for r in self.neg)
            self.memo[path] = ok
        return ok


def _glob_regex(glob: str) -> re.Pattern[str]:
    anchored = "/" in glob.rstrip("/")
    g = glob.lstrip("/")
    out, i = [], 0
    while i < len(g):
        if g.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif g.startswith("/**", i) and i + 3 == len(g):
            out.append("/.*")
            i += 3
        elif g.startswith("**", i):
            out.append(".*")
            i += 2
        elif g[i] == "*":
            out.append("[^/]*")
            i += 1
        elif g[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(g[i]))
            i += 1
    body = "".join(out)
    return re.compile(("" if anchored else "(?:.*/)?") + body + r"\Z", re.S)


def load(root: Path) -> Corpus | None:
    """The corpus already built at ROOT, or None (absent, incomplete or from another version)."""
    try:
        data = json.loads((root / _MANIFEST).read_text())
        if data.get("version") != _VERSION:
            return None
        packs = [Pack(**p) for p in data["packs"]]
    except (OSError, ValueError, TypeError, KeyError):
        return None
    if not all((root / p.name).is_file() for p in packs):
        return None
    return Corpus(root, packs)


def build(root: Path, items: list[tuple[str, bool, bytes]]) -> Corpus:
    """Pack ITEMS (path, is_python, bytes) under ROOT. Built beside ROOT and renamed into place,
    so a reader never sees half a corpus and two concurrent runs do not mix their packs."""
    tmp = root.with_name(f"{root.name}.tmp{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    packs: list[Pack] = []
    for group, want in (("py", True), ("text", False)):
        members = sorted((p, d) for p, py, d in items if py is want)
        chunk: list[bytes] = []
        pack = None
        size = line = 0
        for path, data in members:
            if pack is None:
                pack = Pack(f"{group}-{len(packs):03d}.txt", [], [], [], [])
                chunk, size, line = [], 0, 1
            budget.check()
            pack.paths.append(path)
            pack.offsets.append(size)
            pack.lengths.append(len(data))
            pack.starts.append(line)
            if data and not data.endswith(b"\n"):
                data += b"\n"
            chunk.append(data)
            size += len(data)
            line += data.count(b"\n")
            if size >= PACK_BYTES:
                _write(tmp / pack.name, chunk)
                packs.append(pack)
                pack = None
        if pack is not None:
            _write(tmp / pack.name, chunk)
            packs.append(pack)
    (tmp / _MANIFEST).write_text(json.dumps(
        {"version": _VERSION, "packs": [p.__dict__ for p in packs]}))
    try:
        if root.exists():
            shutil.rmtree(root)
        os.rename(tmp, root)
    except OSError:  # another run put its corpus there first: the same content, use it
        shutil.rmtree(tmp, ignore_errors=True)
        found = load(root)
        if found is not None:
            return found
        raise
    return Corpus(root, packs)


def _write(dest: Path, chunk: list[bytes]) -> None:
    fd = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
    with os.fdopen(fd, "wb") as f:
        f.writelines(chunk)
