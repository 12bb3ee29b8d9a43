"""Result cache: one scored Report per (repository URL, commit, dids version, rubric, probe code).

Entries live under `cache_root() / "results" / <url hash> / <commit>-<context>.json`, where the
context digest covers `dids.__version__`, the rubric digest (the packaged rubrics' *.yaml) and a hash of the
source files that decide levels (probes, criteria, index, scorer), computed once per process.
A change to any of them gives a new context, so old entries are simply never read again.
Entries hold the Report as pydantic JSON (model_dump / model_validate): loading one runs no
indexing and no probes, and nothing in it is ever executed.
"""

from __future__ import annotations

import hashlib
import json
import os
from functools import lru_cache
from pathlib import Path

from pydantic import ValidationError

from . import __version__
from .acquire.source import cache_root
from .models import Report
from .rubric import digest_of, rubric_dir

ENTRY_SCHEMA = "dids.cache/1"
_PKG = Path(__file__).resolve().parent
# the code whose change can move a level: probes and assessors first, then what feeds them
_CODE_DIRS = ("probes", "criteria", "index", "agent")
_CODE_FILES = ("scoring.py", "surface.py", "engine.py", "models.py", "rubric.py")


@lru_cache(maxsize=1)
def code_digest() -> str:
    """Hash of the Python sources under probes/, criteria/ and index/ and the scorer (per process)."""
    h = hashlib.sha256()
    files = [p for d in _CODE_DIRS for p in (_PKG / d).rglob("*.py")]
    files += [_PKG / f for f in _CODE_FILES if (_PKG / f).exists()]
    for p in sorted(files):
        h.update(p.relative_to(_PKG).as_posix().encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def rubric_digest() -> str:
    """The digest `load_rubric().digest` reports (sha256 over the rubric *.yaml, names and
    bytes), computed from the files without parsing them: a cache hit needs no YAML at all."""
    return digest_of(rubric_dir())


@lru_cache(maxsize=1)
def models_digest() -> str:
    """Hash of the packaged library models (data/models/**.yaml): like probe code, they decide
    levels. Hashed once per process; an empty digest while none ship."""
    from .resources import data_files

    h = hashlib.sha256()
    for name, f in data_files("models", ".yaml", recursive=True):
        h.update(name.encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def context_digest() -> str:
    """What, besides URL and commit, a cached result depends on."""
    text = json.dumps({"dids": __version__, "rubric": rubric_digest(), "code": code_digest(),
                       "models": models_digest()}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def results_dir() -> Path:
    return cache_root() / "results"


def repo_dir(url: str) -> Path:
    return results_dir() / hashlib.sha256(url.encode()).hexdigest()[:24]


def entry_path(url: str, commit: str) -> Path:
    return repo_dir(url) / f"{commit}-{context_digest()}.json"


def load(url: str, commit: str) -> Report | None:
    """The cached Report for URL at COMMIT under the current version/rubric/code, or None."""
    return _read(entry_path(url, commit), url, commit)


def _read(path: Path, url: str, commit: str) -> Report | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("schema") != ENTRY_SCHEMA \
            or data.get("url") != url or data.get("commit") != commit:
        return None
    try:
        return Report.model_validate(data["report"])
    except (ValidationError, KeyError, TypeError):
        return None


def store(report: Report, url: str) -> Path | None:
    """Write REPORT (without its re-audit log, which depends on history) atomically."""
    dest = entry_path(url, report.commit)
    body = report.model_copy(update={"reaudit_log": []}).model_dump(mode="json", by_alias=True)
    entry = {"schema": ENTRY_SCHEMA, "url": url, "commit": report.commit,
             "dids": __version__, "rubric": rubric_digest(), "code": code_digest(),
             "report": body}
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        tmp = dest.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(json.dumps(entry, ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, dest)
    except OSError:
        return None  # a read-only or full cache never fails a score
    return dest
