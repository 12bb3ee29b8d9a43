"""Where dids keeps its cache, and what happens when that place is not writable.

The cache holds bare clones of remote targets (`repos/`), packed search corpora (`corpus/`) and
scored reports (`results/`). Its root is `DIDS_CACHE_DIR`, else `$XDG_CACHE_HOME/dids`, else
`~/.cache/dids`. Hardened CI containers often have a read-only HOME: a root that cannot be
created or written is replaced, for this run, by a private temporary directory removed at exit,
with one warning (none under `--no-cache`, which asked for no persistent cache anyway). A cache
problem is never an internal error.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from . import notices

SUBDIRS = ("repos", "corpus", "results")  # everything dids writes under the root

_resolved: dict[Path, Path] = {}  # configured root -> the root this process uses
_persistent_wanted = True


def configured_root() -> tuple[Path, str]:
    """The cache root the environment asks for, and where that choice came from."""
    if os.environ.get("DIDS_CACHE_DIR"):
        return Path(os.environ["DIDS_CACHE_DIR"]), "from DIDS_CACHE_DIR"
    if os.environ.get("XDG_CACHE_HOME"):
        return Path(os.environ["XDG_CACHE_HOME"]) / "dids", "from XDG_CACHE_HOME"
    return Path(os.path.expanduser("~/.cache")) / "dids", "the default"


def want_persistent(flag: bool) -> None:
    """False under --no-cache: falling back to a temporary directory is then expected, silent."""
    global _persistent_wanted
    _persistent_wanted = flag


def unusable_reason(root: Path) -> str | None:
    """Why ROOT cannot hold the cache (None: it can). Creates it when missing."""
    try:
        root.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        return "it exists and is not a directory"
    except OSError as exc:
        return exc.strerror or str(exc)
    if not root.is_dir():
        return "it is not a directory"
    try:  # access(2) misses some cases (ACLs, root squash): try the real thing
        fd, probe = tempfile.mkstemp(prefix=".dids-write-test-", dir=root)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        return exc.strerror or str(exc)
    return None


def cache_root() -> Path:
    """The cache root for this run: the configured one when usable, else a temporary one."""
    root, source = configured_root()
    hit = _resolved.get(root)
    if hit is not None and (hit == root or hit.exists()):
        return hit
    why = unusable_reason(root)
    if why is None:
        _resolved[root] = root
        return root
    tmp = Path(tempfile.mkdtemp(prefix="dids-cache-"))
    atexit.register(shutil.rmtree, tmp, ignore_errors=True)
    _resolved[root] = tmp
    if _persistent_wanted:
        notices.warn(f"cannot use the cache directory {root} ({source}: {why}); using a "
                     "temporary one for this run, so nothing is cached (set DIDS_CACHE_DIR to "
                     "a writable directory)")
    return tmp


@dataclass
class Usage:
    name: str
    entries: int
    bytes: int


def _size(path: Path) -> int:
    total = 0
    for dirpath, dirnames, filenames in os.walk(path, followlinks=False):
        for name in filenames:
            try:
                total += os.lstat(os.path.join(dirpath, name)).st_size
            except OSError:
                pass
    return total


def usage(root: Path) -> list[Usage]:
    """Entries and bytes per part of the cache under ROOT (read only; nothing is created)."""
    out = []
    for name in SUBDIRS:
        d = root / name
        if name == "repos":
            entries = len(list(d.glob("*.git"))) if d.is_dir() else 0
        elif name == "corpus":
            entries = len([p for p in d.glob("*/*") if p.is_dir()]) if d.is_dir() else 0
        else:
            entries = len(list(d.rglob("*.json"))) if d.is_dir() else 0
        out.append(Usage(name, entries, _size(d) if d.is_dir() else 0))
    return out


def clear(root: Path, parts: tuple[str, ...] = SUBDIRS) -> int:
    """Remove PARTS of the cache under ROOT; returns the bytes freed. Only dids' own
    subdirectories are removed, never ROOT itself (it may be a directory the user shares)."""
    freed = 0
    for name in parts:
        if name not in SUBDIRS:
            raise ValueError(name)
        d = root / name
        if d.is_dir() and not d.is_symlink():
            freed += _size(d)
            shutil.rmtree(d, ignore_errors=True)
    return freed


def human(n: int) -> str:
    size = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"
