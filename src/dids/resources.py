"""Data that ships inside the package: rubrics, card templates and library models.

They live in `src/dids/data/<kind>/` and are read with `importlib.resources`, never from a path
computed from `sys.prefix` or the source tree, so every install layout finds them: editable,
wheel, `pip install --user`, `--target`, pipx, pre-commit and distribution packages. Callers get
`Traversable` objects (a plain `Path` for an unpacked install) and use only its portable API.

An environment variable per kind points at a directory to use instead (calibration runs, tests).
"""

from __future__ import annotations

import os
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path

KINDS = ("rubrics", "templates", "models")
OVERRIDES = {"rubrics": "DIDS_RUBRIC_DIR", "templates": "DIDS_TEMPLATE_DIR",
             "models": "DIDS_MODEL_DIR"}


def data_dir(kind: str) -> Traversable:
    """The directory of one kind of packaged data (or its override)."""
    if kind not in KINDS:
        raise ValueError(f"unknown data kind {kind!r} (one of {', '.join(KINDS)})")
    override = os.environ.get(OVERRIDES[kind])
    if override:
        return Path(override)
    return files("dids").joinpath("data", kind)


def data_files(kind: str, suffix: str, *, recursive: bool = False) -> list[tuple[str, Traversable]]:
    """(relative name, file) for every file ending in SUFFIX, sorted by name. RECURSIVE walks
    subdirectories too (models may be grouped by library); names then use '/'."""
    out: list[tuple[str, Traversable]] = []

    def walk(d: Traversable, prefix: str) -> None:
        if not d.is_dir():
            return
        for entry in d.iterdir():
            if entry.is_file() and entry.name.endswith(suffix):
                out.append((prefix + entry.name, entry))
            elif recursive and entry.is_dir() and not entry.name.startswith((".", "__")):
                walk(entry, f"{prefix}{entry.name}/")

    walk(data_dir(kind), "")
    return sorted(out, key=lambda t: t[0])


def read_text(kind: str, name: str) -> str:
    """One file of KIND by its relative name ('c4.yaml', 'card.md.j2', 'lib/x.yaml')."""
    node = data_dir(kind)
    for part in name.split("/"):
        node = node.joinpath(part)
    return node.read_text(encoding="utf-8")
