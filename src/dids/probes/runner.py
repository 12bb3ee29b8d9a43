"""Run every registered probe over one index, on two cores when the repository is large.

Probes are pure functions of the index, so half of them can run in a forked copy of this
process (which shares the index without copying or pickling it) while this process runs the
other half; the child sends back its findings through a pipe. Fork is used only on Linux, with
at least two cores and enough code to be worth it (and not so much that the child's copied
pages would matter); when the child fails in any way its probes simply run here, so the findings
never depend on how they were computed.
"""

from __future__ import annotations

import gc
import os
import pickle
import signal
import sys
from typing import Callable

from ..acquire import budget
from ..index.repo import RepoIndex
from ..models import Finding
from .base import PROBES, Findings

FORK_MIN_CALLS = 20_000  # below this many calls the probes take well under a second
# Above this, the child's copy-on-write pages (every object it touches gets its reference count
# written) could add hundreds of MB to a run that is already large; run in one process.
FORK_MAX_CALLS = 300_000


def run_probes(index: RepoIndex, *, fork: bool | None = None) -> Findings:
    """Findings of every probe, dead code filtered out, each probe's sorted by location.
    FORK: split across two processes (None: decide from the machine and the repository)."""
    # Probes allocate many short-lived objects (matches, findings) and make no reference cycles
    # worth collecting: with the cyclic collector paused they run about a tenth faster.
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _run_probes(index, fork)
    finally:
        if enabled:
            gc.enable()


def _run_probes(index: RepoIndex, fork: bool | None) -> Findings:
    from . import (agent, approval, audit, config_defaults, exec_paths, extensions,  # noqa: F401
                   identity, limits, memory, records, scope, secrets, semantic, subagents, tool_calls,
                   tool_defs, tools, untrusted)  # the families register

    def python_unit(pid: str) -> Callable[[], list[Finding]]:
        def run() -> list[Finding]:
            found = [_with_reach(index, f) for f in PROBES[pid].func(index) if f.location is None
                     or not index.is_dead(f.location.path, f.location.start_line)]
            found.sort(key=_rank)
            return found
        return run

    ids = sorted(PROBES)
    # units of work in a fixed order: every probe over Python, then the TypeScript side's
    # probes when a Node package is the scored path; each process runs every other unit
    units = [(pid, python_unit(pid)) for pid in ids]
    if getattr(index.agent, "ts", None) is not None:
        from .ts_probes import ts_units

        units += ts_units(index, _with_reach)

    def run(which: list[int]) -> dict[int, list[Finding]]:
        return {i: units[i][1]() for i in which}

    if fork is None:
        fork = _fork_worthwhile(index)
    every = list(range(len(units)))
    done = _split(every, run) if fork else run(every)
    by_probe = {pid: done[i] for i, pid in enumerate(ids)}
    for i in every[len(ids):]:  # merged in unit order, so a split never reorders ties
        pid = units[i][0]
        if pid in by_probe and done[i]:
            by_probe[pid] = sorted(by_probe[pid] + done[i], key=_rank)
    return Findings(by_probe)


_REACH_RANK = {"default": 0, "library": 1, "opt-in": 2, "off-path": 3}


def _with_reach(index: RepoIndex, f: Finding) -> Finding:
    """F tagged with its reach (default, opt-in:<setting>, library, off-path) and its call
    distance from the scored entry points, from the agent model when there is one."""
    model = index.agent
    if model is None or f.location is None:
        return f
    # a finding run through a callback (an approval prompt the loop is handed) has the reach
    # of the call that runs it
    path, line = f.location.path, f.location.start_line
    if f.data.get("reach_at"):
        path, _, at = str(f.data["reach_at"]).rpartition(":")
        line = int(at)
    reach = model.reach.of(path, line)
    if f.data.get("reach_as") and reach.split(":")[0] in ("default", "library"):
        reach = str(f.data["reach_as"])  # a probe that knows the branch is one a user picks
    dist = model.reach.distance(path, line)
    return f.model_copy(update={"data": {**f.data, "reach": reach,
                                         "dist": -1 if dist is None else dist}})


def _rank(f: Finding):
    """Decisive first: what the scored path runs, in the probe's own `order` where it has one
    (the session's loops), nearest the entry points, then the rest in path order (stable
    across runs)."""
    reach = str(f.data.get("reach", "default")).split(":")[0]
    dist = f.data.get("dist", -1)
    order = f.data.get("order", 0)
    return (_REACH_RANK.get(reach, 1), order if isinstance(order, int) else 0,
            dist if isinstance(dist, int) and dist >= 0 else 999,
            f.location.path if f.location else "", f.location.start_line if f.location else 0,
            f.claim)


def _fork_worthwhile(index: RepoIndex) -> bool:
    if not sys.platform.startswith("linux") or (os.cpu_count() or 1) < 2:
        return False
    calls = sum(len(f.calls) for f in index.py.values())
    if getattr(index.agent, "ts", None) is not None:  # the TypeScript side is probed too
        calls += sum(len(f.calls) for f in index.ts.values())
    return FORK_MIN_CALLS <= calls <= FORK_MAX_CALLS


def _split(ids: list[str], run: Callable[[list[str]], dict]) -> dict:
    """RUN(ids) with every other id run by a forked child; its part is run here if it fails."""
    theirs, mine = ids[1::2], ids[0::2]
    try:
        read_fd, write_fd = os.pipe()
        pid = os.fork()
    except OSError:
        return run(ids)
    if pid == 0:  # the child: compute, send, and leave without running any exit handlers
        code = 0
        try:
            os.close(read_fd)
            os.setpgid(0, 0)
            data = pickle.dumps(run(theirs), protocol=pickle.HIGHEST_PROTOCOL)
            with os.fdopen(write_fd, "wb") as out:
                out.write(data)
        except BaseException:  # noqa: BLE001 - the parent runs these probes itself
            code = 1
        finally:
            os._exit(code)
    os.close(write_fd)
    budget.register_child(pid)
    done = False
    try:
        with os.fdopen(read_fd, "rb") as inp:
            result = run(mine)
            data = inp.read()
        _, status = os.waitpid(pid, 0)
        done = True
        if os.waitstatus_to_exitcode(status) == 0 and data:
            result.update(pickle.loads(data))
        else:
            result.update(run(theirs))
        return result
    finally:
        if not done:  # an error or the time limit here: the child's work is not wanted
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except OSError:
                pass
        budget.unregister_child(pid)
