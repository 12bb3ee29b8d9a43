"""What dids says on stderr besides the report: warnings, notes and progress stages.

Layers below the CLI (acquisition, the cache, the engine) call `warn`, `note` and `stage`
without knowing how they are shown. The CLI installs a sink that prints above its progress
display and honours `--quiet` and `--verbose`; without one (library use, tests) a warning or
note is one plain line on stderr and stages are silent. The same message is said once per run.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from typing import Callable


@dataclass
class _State:
    quiet: bool = False
    verbose: bool = False
    sink: Callable[[str], None] | None = None  # prints one finished line
    on_stage: Callable[[str], None] | None = None  # updates the progress display
    said: set[str] = field(default_factory=set)
    started: float = field(default_factory=time.monotonic)
    last_stage: tuple[str, float] | None = None


_state = _State()


def configure(*, quiet: bool = False, verbose: bool = False,
              sink: Callable[[str], None] | None = None,
              on_stage: Callable[[str], None] | None = None) -> None:
    """Start a run: the CLI calls this once per command."""
    global _state
    _state = _State(quiet=quiet, verbose=verbose and not quiet, sink=sink, on_stage=on_stage)


def _say(line: str) -> None:
    if _state.sink is not None:
        _state.sink(line)
    else:
        sys.stderr.write(line + "\n")


def _once(kind: str, message: str) -> None:
    line = f"dids: {kind}: {message}"
    if _state.quiet or line in _state.said:
        return
    _state.said.add(line)
    _say(line)


def warn(message: str) -> None:
    """Something the user must know to trust the result (a stale clone, a cache fallback)."""
    _once("warning", message)


def note(message: str) -> None:
    """Something worth knowing that changes nothing (the policy file is uncommitted)."""
    _once("note", message)


def detail(message: str) -> None:
    """Only with --verbose."""
    if _state.verbose:
        _say(f"dids: {message}")


def stage(name: str) -> None:
    """A new step of the run (clone, index and parse, probes, render): shown in the progress
    display; with --verbose also as a line with the time the previous step took."""
    now = time.monotonic()
    if _state.verbose and _state.last_stage is not None:
        prev, t0 = _state.last_stage
        _say(f"dids: {prev} done in {now - t0:.2f} s")
    _state.last_stage = (name, now)
    if _state.on_stage is not None and not _state.quiet:
        _state.on_stage(name)


def finish() -> None:
    """End of the run: with --verbose, the last stage's time and the total."""
    if _state.verbose:
        now = time.monotonic()
        if _state.last_stage is not None:
            prev, t0 = _state.last_stage
            _say(f"dids: {prev} done in {now - t0:.2f} s")
        _say(f"dids: finished in {now - _state.started:.2f} s")
    _state.last_stage = None
