"""Parse every Python, TypeScript and JavaScript source once, across all cores: worker
processes and this one.

Sources are cut into chunks of similar size, largest files first. Workers take chunks from the
front; this process, once its own work (reading and packing the rest of the tree) is done,
takes the smallest chunks from the back instead of waiting. So no core idles, and the facts of
this process's share are never pickled. With one core, or little source, everything is parsed
here.

Further groups of sources can follow the first (build_index defers the TypeScript/JavaScript
ones, those that hold settings before the rest): workers take each once the one before is handed
out, and this process, given the first group's facts, does other work (the Python call graph)
before it helps with the rest, or drops the last group when nobody needs it.
"""

from __future__ import annotations

import gc
import os
import threading
from collections import deque
from concurrent.futures import Future, ProcessPoolExecutor

from ..acquire import budget
from . import tsfacts
from .pyfacts import PyFacts, extract

_PARALLEL_MIN_BYTES = 1 << 20  # below this much source, starting workers costs more than it saves
_QUEUED_PER_WORKER = 1  # a chunk waiting per worker (the next is handed out as one completes)

Item = tuple[str, bytes]


def parse_many(items: list[Item]) -> list[PyFacts]:
    # Extraction allocates millions of small objects and makes no reference cycles: with the
    # cyclic collector paused it runs about a fifth faster (no rescans of what is already built,
    # nor of the heap a forked worker inherits).
    enabled = gc.isenabled()
    gc.disable()
    try:
        return [_extract(*item) for item in items]
    finally:
        if enabled:
            gc.enable()


def _extract(path: str, data: bytes) -> PyFacts:
    if tsfacts.is_ts_path(path):
        return tsfacts.extract_ts(path, data)
    return extract(path, data)


def chunked(items: list[Item], parts: int) -> list[list[Item]]:
    """ITEMS, largest first, in about 32 chunks per part of similar total size."""
    total = sum(len(d) for _, d in items)
    target = max(32 << 10, total // (parts * 32))
    chunks: list[list[Item]] = []
    chunk: list[Item] = []
    size = 0
    for item in sorted(items, key=lambda x: -len(x[1])):
        chunk.append(item)
        size += len(item[1])
        if size >= target:
            chunks.append(chunk)
            chunk, size = [], 0
    if chunk:
        chunks.append(chunk)
    return chunks


class Parsing:
    """Parsing of ITEMS, then of LATER, then of REST, started by the constructor. `facts()`
    finishes ITEMS here and returns their facts in ITEMS order; `later_facts()` and
    `rest_facts()` do the same for LATER and REST. Between them this process is free (build_index
    hands it the Python call graph) while the workers go on. `close()` ends the workers once
    their work is done; `abandon()` (on an error, a timeout, or when REST is not needed) stops
    them at once. Use as a context manager, or call one of the two."""

    def __init__(self, items: list[Item], cpus: int | None = None, later: list[Item] | None = None,
                 rest: list[Item] | None = None):
        self.items, self.later, self.rest = items, later or [], rest or []
        # compile the TypeScript/JavaScript queries here, before the workers fork, so each one
        # inherits them instead of compiling its own
        every = items + self.later + self.rest
        for name in {tsfacts.grammar_for(path) for path, _ in every} - {None}:
            tsfacts.grammar(name)
        cpus = cpus or os.cpu_count() or 1
        total = sum(len(d) for _, d in every)
        self.workers = cpus - 1 if total >= _PARALLEL_MIN_BYTES and len(every) >= 2 * cpus else 0
        self.queues = tuple(deque(chunked(group, cpus)) for group in (items, self.later, self.rest))
        self.jobs: list[tuple[int, Future]] = []  # (0: ITEMS, 1: LATER, 2: REST; the job)
        self.lock = threading.Lock()  # workers' completions hand out chunks from another thread
        self.pool = ProcessPoolExecutor(max_workers=self.workers) if self.workers else None
        try:
            for _ in range(_QUEUED_PER_WORKER * self.workers):
                self._hand_out()
        except BaseException:
            self.abandon()
            raise

    def _hand_out(self, _done: Future | None = None) -> None:
        """Give a worker the largest chunk left of the first group with any left (also called
        as each worker chunk completes)."""
        with self.lock:
            if self.pool is None:
                return
            group = next((g for g, q in enumerate(self.queues) if q), None)
            if group is None:
                return
            chunk = self.queues[group].popleft()
            try:
                job = self.pool.submit(parse_many, chunk)
            except RuntimeError:  # shut down meanwhile (an error or timeout)
                return
            self.jobs.append((group, job))
        job.add_done_callback(self._hand_out)

    def _take_smallest(self, group: int) -> list[Item] | None:
        with self.lock:
            return self.queues[group].pop() if self.queues[group] else None

    def facts(self) -> dict[str, PyFacts]:
        return self._collect(0, self.items)

    def later_facts(self) -> dict[str, PyFacts]:
        return self._collect_or_stop(1, self.later)

    def rest_facts(self) -> dict[str, PyFacts]:
        return self._collect_or_stop(2, self.rest)

    def _collect_or_stop(self, group: int, items: list[Item]) -> dict[str, PyFacts]:
        try:
            return self._collect(group, items)
        except BaseException:
            self.abandon()
            raise

    def _collect(self, group: int, items: list[Item]) -> dict[str, PyFacts]:
        got: dict[str, PyFacts] = {}
        while (chunk := self._take_smallest(group)) is not None:
            budget.check()
            for f in parse_many(chunk):
                got[f.path] = f
        with self.lock:  # every chunk of GROUP is handed out: its job list is final
            jobs = [job for g, job in self.jobs if g == group]
        # The cyclic GC is paused while a million small objects are unpickled (facts hold no
        # cycles); it would otherwise rescan them repeatedly.
        enabled = gc.isenabled()
        gc.disable()
        try:
            for job in jobs:
                for f in job.result():
                    got[f.path] = f
        finally:
            if enabled:
                gc.enable()
        return {path: got[path] for path, _ in items}

    def close(self) -> None:
        """End the workers once their work is done (the normal end)."""
        with self.lock:
            pool, self.pool = self.pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)

    def abandon(self) -> None:
        """Stop now (timeout or error): drop queued chunks and end the workers, so the run does
        not wait for them on exit."""
        with self.lock:
            pool, self.pool = self.pool, None
        if pool is None:
            return
        procs = list((getattr(pool, "_processes", None) or {}).values())
        # (read before shutdown(), which drops the pool's reference to it)
        writer = getattr(getattr(pool, "_result_queue", None), "_writer", None)
        pool.shutdown(wait=False, cancel_futures=True)
        for proc in procs:
            try:
                proc.terminate()
            except OSError:
                pass
        # A worker killed while sending a chunk's facts leaves the pool's reader thread waiting,
        # forever, for the rest of that message: the exit handler that joins it would then hang
        # the run. Once the workers are gone, this process holds the only writer end left;
        # closing it gives the reader an end of file, and the pool ends as broken.
        for proc in procs:
            proc.join(1.0)
        if writer is not None:
            try:
                writer.close()
            except OSError:
                pass

    def __enter__(self) -> "Parsing":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is not None:
            self.abandon()
            return
        self.close()
