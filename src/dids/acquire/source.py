"""Resolve TARGET (local work tree or git URL) and REV to a commit, and read blobs at it.

Remote targets are cloned bare into the cache; local targets are read from their own object
store. Nothing is ever checked out, so no hook, filter, smudge or submodule can run.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse

from ..errors import InputError
from .safegit import run_git

_URL_RE = re.compile(r"^(https://|ssh://|git@[\w.-]+:|file://)")
_HEX40 = re.compile(r"^[0-9a-f]{40}$")


def cache_root() -> Path:
    base = os.environ.get("DIDS_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "dids"
    )
    return Path(base)


@dataclass(frozen=True)
class TreeEntry:
    path: str
    mode: str
    sha: str
    size: int

    @property
    def is_symlink(self) -> bool:
        return self.mode == "120000"

    @property
    def is_submodule(self) -> bool:
        return self.mode == "160000"


@dataclass
class Snapshot:
    """One repository at one commit, readable blob by blob."""

    url: str
    git_dir: Path
    commit: str
    allow_file: bool
    entries: list[TreeEntry] = field(default_factory=list)

    def list_tree(self) -> list[TreeEntry]:
        if not self.entries:
            out = run_git(
                ["ls-tree", "-r", "-z", "-l", "--full-tree", self.commit],
                git_dir=self.git_dir,
            ).stdout
            entries = []
            for rec in out.split(b"\0"):
                if not rec:
                    continue
                meta, _, raw_path = rec.partition(b"\t")
                mode, _type, sha, size = meta.split()
                path = raw_path.decode("utf-8", "surrogateescape")
                # size is "-" for submodules and "BAD" when the blob is absent (partial clones)
                n = int(size) if size.isdigit() else (0 if size == b"-" else -1)
                entries.append(TreeEntry(path, mode.decode(), sha.decode(), n))
            self.entries = sorted(entries, key=lambda e: e.path)
        return self.entries

    def read_blobs(self, shas: list[str]) -> dict[str, bytes]:
        """Read raw blobs (no filters, no smudge) with one `git cat-file --batch` call."""
        if not shas:
            return {}
        proc = run_git(
            ["cat-file", "--batch"],
            git_dir=self.git_dir,
            input_bytes=("\n".join(shas) + "\n").encode(),
        )
        data = proc.stdout
        out: dict[str, bytes] = {}
        pos = 0
        while pos < len(data):
            nl = data.index(b"\n", pos)
            header = data[pos:nl].split()
            pos = nl + 1
            if len(header) < 3:  # "<sha> missing"
                continue
            size = int(header[2])
            out[header[0].decode()] = data[pos : pos + size]
            pos += size + 1
        return out

    def commit_date(self) -> str:
        return run_git(
            ["show", "-s", "--format=%cs", self.commit], git_dir=self.git_dir
        ).stdout.decode().strip()


def _is_url(target: str) -> bool:
    return bool(_URL_RE.match(target))


def _bare_clone(url: str, allow_file: bool) -> Path:
    key = hashlib.sha256(url.encode()).hexdigest()[:24]
    dest = cache_root() / "repos" / f"{key}.git"
    if (dest / "HEAD").exists():
        run_git(["fetch", "--quiet", "--prune", "--no-recurse-submodules", "origin",
                 "+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"],
                git_dir=dest, allow_file=allow_file, check=False)
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_suffix(f".tmp{os.getpid()}")
    run_git(["clone", "--bare", "--quiet", "--no-recurse-submodules", "--", url, str(tmp)],
            allow_file=allow_file)
    tmp.rename(dest)
    return dest


def _local_git_dir(path: Path) -> Path:
    if not path.exists():
        raise InputError(f"{path}: no such file or directory")
    if not path.is_dir():
        raise InputError(f"{path}: not a directory")
    proc = run_git(["-C", str(path), "rev-parse", "--absolute-git-dir"], check=False)
    if proc.returncode != 0:
        raise InputError(f"{path}: not a git repository")
    return Path(proc.stdout.decode().strip())


def _remote_url(git_dir: Path) -> str | None:
    proc = run_git(["config", "--get", "remote.origin.url"], git_dir=git_dir, check=False)
    url = proc.stdout.decode().strip()
    return url or None


def acquire(target: str, rev: str | None = None) -> Snapshot:
    """Pin TARGET at REV (default HEAD) and return a readable snapshot."""
    if _is_url(target):
        allow_file = target.startswith("file://")
        if allow_file and not Path(urlparse(target).path).exists():
            raise InputError(f"{target}: no such repository")
        git_dir = _bare_clone(target, allow_file)
        url = target
    else:
        allow_file = False
        git_dir = _local_git_dir(Path(target).resolve())
        url = _remote_url(git_dir) or str(Path(target).resolve())
    spec = rev or "HEAD"
    if spec.startswith("-"):
        raise InputError(f"invalid revision: {spec!r}")
    proc = run_git(["rev-parse", "--verify", "--quiet", f"{spec}^{{commit}}"],
                   git_dir=git_dir, check=False)
    commit = proc.stdout.decode().strip()
    if proc.returncode != 0 or not _HEX40.match(commit):
        if spec == "HEAD":
            raise InputError(f"{target}: repository has no commits")
        raise InputError(f"{target}: unknown commit {spec!r}")
    return Snapshot(url=url, git_dir=git_dir, commit=commit, allow_file=allow_file)


def github_slug(url: str) -> str | None:
    """owner/name when URL points at GitHub, for permalinks."""
    m = re.match(r"^(?:https://github\.com/|git@github\.com:|ssh://git@github\.com/)([\w.-]+/[\w.-]+?)(?:\.git)?/?$", url)
    return m.group(1) if m else None
