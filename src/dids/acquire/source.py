"""Resolve TARGET (local work tree or git URL) and REV to a commit, and read blobs at it.

Remote targets are cloned bare into the cache; local targets are read from their own object
store. Nothing is ever checked out, so no hook, filter, smudge or submodule can run. Only the
transport of the URL the user gave is allowed (none for a local work tree). Symbolic links are
listed with their target text and never followed.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import threading
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse

from ..cachedir import cache_root  # noqa: F401  (re-exported: index/ reads it from here)
from ..errors import InputError
from . import budget
from .safegit import close_git, git_error_text, open_git, run_git

_URL_RE = re.compile(r"^(https://|ssh://|git@[\w.-]+:|file://)")
_OTHER_URL = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*://|[A-Za-z][A-Za-z0-9+.-]*::)")
_HEX40 = re.compile(r"^[0-9a-f]{40}$")


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
    protocol: str | None = None  # the one transport allowed (None: local, no transport)

    def list_tree(self) -> list[TreeEntry]:
        if not self.entries:
            out = run_git(
                ["ls-tree", "-r", "-z", "-l", "--full-tree", self.commit],
                git_dir=self.git_dir,
            ).stdout
            entries = []
            for rec in out.split(b"\0"):
                meta, tab, raw_path = rec.partition(b"\t")
                fields = meta.split()
                if not tab or len(fields) != 4 or not raw_path:
                    continue  # not an ls-tree record (or an empty name in a crafted tree)
                mode, _type, sha, size = fields
                # Paths are text everywhere downstream (JSON, Markdown, the search corpus): bytes
                # that are not UTF-8 are kept visible as \xNN; repo.py skips any duplicate.
                path = raw_path.decode("utf-8", "backslashreplace")
                # size is "-" for submodules and "BAD" when the blob is absent (partial clones)
                n = int(size) if size.isdigit() else (0 if size == b"-" else -1)
                entries.append(TreeEntry(path, mode.decode("ascii", "replace"),
                                         sha.decode("ascii", "replace"), n))
            self.entries = sorted(entries, key=lambda e: e.path)
        return self.entries

    def read_blobs(self, shas: list[str]) -> dict[str, bytes]:
        """Read raw blobs (no filters, no smudge, no textconv) with one streamed
        `git cat-file --batch` at the object level: a blob is bytes, never a checked-out file."""
        wanted = [s for s in dict.fromkeys(shas) if _HEX40.match(s)]
        if not wanted:
            return {}
        proc = open_git(["cat-file", "--batch"], git_dir=self.git_dir)
        feed = threading.Thread(target=_feed, args=(proc, wanted), daemon=True)
        feed.start()
        out: dict[str, bytes] = {}
        try:
            stream = proc.stdout
            for _ in wanted:
                header = stream.readline().split()
                if not header:
                    break
                if len(header) != 3 or not header[2].isdigit():  # "<sha> missing"
                    continue
                size = int(header[2])
                data = stream.read(size)
                stream.read(1)
                if len(data) != size:
                    break
                out[header[0].decode("ascii", "replace")] = data
                budget.check()
        except BaseException:
            close_git(proc, kill=True)
            raise
        feed.join(timeout=5)
        close_git(proc)
        return out

    def commit_date(self) -> str:
        return run_git(
            ["show", "-s", "--format=%cs", self.commit], git_dir=self.git_dir
        ).stdout.decode().strip()


def _feed(proc, shas: list[str]) -> None:
    try:
        for i in range(0, len(shas), 512):
            proc.stdin.write(("\n".join(shas[i : i + 512]) + "\n").encode())
        proc.stdin.close()
    except (OSError, ValueError):  # git exited or was killed
        pass


def _is_url(target: str) -> bool:
    return bool(_URL_RE.match(target))


def protocol_of(url: str) -> str:
    """The one transport a URL target may use."""
    if url.startswith("https://"):
        return "https"
    if url.startswith("file://"):
        return "file"
    return "ssh"


def display_url(url: str) -> str:
    """URL without credentials (user:password@ or token@ of https URLs, passwords of ssh URLs)."""
    m = re.match(r"^(https?://)[^/@]*@(.*)$", url)
    if m:
        return m.group(1) + m.group(2)
    m = re.match(r"^(ssh://[^/:@]*):[^/@]*@(.*)$", url)
    if m:
        return m.group(1) + "@" + m.group(2)
    return url


# url -> why the cached clone could not be refreshed (None: refreshed) in this process: a run
# that reads the same remote twice (score then its claims, diff's two sides) fetches once
_refreshed: dict[str, str | None] = {}


def _bare_clone(url: str, protocol: str) -> tuple[Path, str | None]:
    """The cache's bare clone of URL, cloned or refreshed; and why a refresh failed (the clone
    then holds what an earlier run fetched, which may be behind the remote)."""
    from .. import notices

    key = hashlib.sha256(url.encode()).hexdigest()[:24]
    dest = cache_root() / "repos" / f"{key}.git"
    if (dest / "HEAD").exists():
        if url not in _refreshed:
            notices.stage(f"fetching {display_url(url)}")
            proc = run_git(["fetch", "--quiet", "--prune", "--no-recurse-submodules",
                            "--no-write-fetch-head", "origin", "+refs/heads/*:refs/heads/*",
                            "+refs/tags/*:refs/tags/*"],
                           git_dir=dest, protocol=protocol, check=False)
            _refreshed[url] = None if proc.returncode == 0 else (
                git_error_text(proc.stderr) or f"git fetch exited {proc.returncode}")
        return dest, _refreshed[url]
    notices.stage(f"cloning {display_url(url)}")
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_suffix(f".tmp{os.getpid()}")
    if tmp.exists():
        shutil.rmtree(tmp, ignore_errors=True)
    try:
        run_git(["clone", "--bare", "--quiet", "--no-recurse-submodules", "--", url, str(tmp)],
                protocol=protocol)
        tmp.rename(dest)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    _refreshed[url] = None
    return dest, None


def _warn_stale(url: str, why: str, snapshot: "Snapshot", rev: str | None) -> None:
    """Say which commit is scored when the remote could not be asked (a full SHA names the
    same commit whatever the remote says, so it needs no warning)."""
    from .. import notices

    if rev and _HEX40.match(rev):
        return
    notices.warn(f"could not refresh the cached clone of {display_url(url)} ({why}); scoring "
                 f"{rev or 'HEAD'} as last fetched: commit {snapshot.commit[:12]} of "
                 f"{snapshot.commit_date()}, which may be behind the remote")


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
    url = proc.stdout.decode("utf-8", "replace").strip()
    return display_url(url) if url and "\n" not in url else None


def _local_address(target: str, path: Path, git_dir: Path) -> str:
    """The address a local target is reported (and cached) under: its network `origin` when it
    has one, else the work tree's top directory. An origin that is itself a local path (a
    mirror, a sibling clone) would name the card after a folder the reader has never seen."""
    from .. import notices

    origin = _remote_url(git_dir)
    if origin and _is_url(origin) and not origin.startswith("file://"):
        return origin
    proc = run_git(["-C", str(path), "rev-parse", "--show-toplevel"], check=False)
    top = proc.stdout.decode("utf-8", "surrogateescape").strip() if proc.returncode == 0 else ""
    if top and Path(top) != path:
        notices.note(f"{target} is inside the repository {top}: dids scores the whole repository")
    return top or str(path)


def acquire(target: str, rev: str | None = None) -> Snapshot:
    """Pin TARGET at REV (default HEAD) and return a readable snapshot."""
    protocol: str | None = None
    stale: str | None = None
    if _is_url(target):
        protocol = protocol_of(target)
        if protocol == "file" and not Path(urlparse(target).path).exists():
            raise InputError(f"{target}: no such repository")
        git_dir, stale = _bare_clone(target, protocol)
        url = display_url(target)
    elif _OTHER_URL.match(target):
        raise InputError(f"{display_url(target)}: unsupported URL scheme "
                         "(use https://, ssh://, git@host:path, file:// or a local path)")
    else:
        path = Path(target).resolve()
        git_dir = _local_git_dir(path)
        url = _local_address(target, path, git_dir)
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
    snapshot = Snapshot(url=url, git_dir=git_dir, commit=commit, allow_file=protocol == "file",
                        protocol=protocol)
    if stale:
        _warn_stale(target, stale, snapshot, rev)
    return snapshot


def github_slug(url: str) -> str | None:
    """owner/name when URL points at GitHub, for permalinks."""
    m = re.match(r"^(?:https://github\.com/|git@github\.com:|ssh://git@github\.com/)([\w.-]+/[\w.-]+?)(?:\.git)?/?$", url)
    return m.group(1) if m else None
