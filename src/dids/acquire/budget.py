"""The run's time budget (`--timeout`): one deadline every long step honours, and a hard stop.

A scanned repository is hostile input: a pathological file can make a parser or a regex engine
slow, and a server can stall a clone. `time_budget(seconds)` bounds the whole run:

* cooperative: git and ripgrep calls get the time that is left as their subprocess timeout, and
  the index loops call `check()`;
* preemptive: SIGALRM at the deadline raises `TimeLimitExceeded` wherever the main thread is;
* last resort: if the main thread is stuck in C code for `GRACE_S` more seconds, a watchdog
  thread writes the one-line error, kills the git process groups still running and exits 2.

On timeout the run stops with exit 2 and one line on stderr; no partial report is printed.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from contextlib import contextmanager
from typing import Iterator

from ..errors import InputError

GRACE_S = 10.0

_deadline: float | None = None
_seconds: float = 0.0
_children: set[int] = set()  # process groups of running git commands (killed on hard stop)


class TimeLimitExceeded(InputError):
    """The run went past --timeout (exit 2)."""


def message() -> str:
    return (f"time limit of {_seconds:g}s (--timeout) reached before the report was complete; "
            "nothing was scored (raise --timeout, or score a smaller repository or commit)")


def remaining() -> float | None:
    """Seconds left in the budget, or None when the run is unbounded."""
    if _deadline is None:
        return None
    return _deadline - time.monotonic()


def expired() -> bool:
    left = remaining()
    return left is not None and left <= 0


def check() -> None:
    """Raise TimeLimitExceeded once the deadline has passed."""
    if expired():
        raise TimeLimitExceeded(message())


def timeout_for(cap: float) -> float:
    """A subprocess timeout: CAP seconds, or less when the budget ends sooner (never <= 0)."""
    left = remaining()
    if left is None:
        return cap
    return max(0.05, min(cap, left))


def register_child(pgid: int) -> None:
    _children.add(pgid)


def unregister_child(pgid: int) -> None:
    _children.discard(pgid)


def _kill_children() -> None:
    for pgid in list(_children):
        try:
            os.killpg(pgid, signal.SIGKILL)
        except OSError:
            pass


def _on_alarm(signum, frame) -> None:  # noqa: ARG001
    raise TimeLimitExceeded(message())


def _hard_stop() -> None:
    _kill_children()
    try:
        os.write(2, f"dids: error: {message()}\n".encode())
    finally:
        os._exit(2)


@contextmanager
def time_budget(seconds: float | None) -> Iterator[None]:
    """Bound everything inside the block to SECONDS (None or 0: no bound)."""
    global _deadline, _seconds
    if not seconds or seconds <= 0:
        yield
        return
    if _deadline is not None:  # nested: the outer budget already applies
        yield
        return
    _seconds = float(seconds)
    _deadline = time.monotonic() + seconds
    main = threading.current_thread() is threading.main_thread()
    old_handler = None
    if main:
        old_handler = signal.signal(signal.SIGALRM, _on_alarm)
        signal.setitimer(signal.ITIMER_REAL, seconds)
    watchdog = threading.Timer(seconds + GRACE_S, _hard_stop)
    watchdog.daemon = True
    watchdog.start()
    try:
        yield
    finally:
        watchdog.cancel()
        if main:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old_handler or signal.SIG_DFL)
        _deadline = None
