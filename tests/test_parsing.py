"""Parsing across worker processes and this one gives the facts a plain loop gives, in order."""

from __future__ import annotations

import pytest

from dids.index import parsing
from dids.index.parsing import Parsing, chunked
from dids.index.pyfacts import extract


def _items(n: int) -> list[tuple[str, bytes]]:
    return [(f"pkg/m{i}.py", (f"import os\n\ndef f{i}(x):\n    return os.getenv('K{i}')\n" * (1 + i % 7))
             .encode()) for i in range(n)]


def test_chunks_cover_every_item_once_largest_first():
    items = _items(50)
    chunks = chunked(items, 2)
    flat = [path for c in chunks for path, _ in c]
    assert sorted(flat) == sorted(p for p, _ in items)
    sizes = [len(d) for c in chunks for _, d in c]
    assert sizes == sorted(sizes, reverse=True)


@pytest.mark.parametrize("cpus", [1, 2, 3])
def test_parallel_facts_equal_sequential(monkeypatch, cpus):
    monkeypatch.setattr(parsing, "_PARALLEL_MIN_BYTES", 1)
    items = _items(40)
    with Parsing(items, cpus=cpus) as p:
        assert p.workers == cpus - 1
        got = p.facts()
    assert list(got) == [path for path, _ in items]
    for path, data in items:
        want = extract(path, data)
        assert got[path].calls == want.calls and got[path].defs == want.defs


def _ts_items(n: int) -> list[tuple[str, bytes]]:
    return [(f"web/m{i}.ts", (f"import {{ spawn }} from 'node:child_process';\n"
                              f"export function f{i}() {{ spawn('ls', []); }}\n" * (1 + i % 5)).encode())
            for i in range(n)]


@pytest.mark.parametrize("cpus", [1, 2])
def test_later_items_come_after_and_apart(monkeypatch, cpus):
    """facts() returns the first items' facts only; later_facts() the later ones' and ends the
    workers, which go on with the later items meanwhile."""
    monkeypatch.setattr(parsing, "_PARALLEL_MIN_BYTES", 1)
    items, later = _items(30), _ts_items(30)
    p = Parsing(items, cpus=cpus, later=later)
    first = p.facts()
    assert list(first) == [path for path, _ in items]
    assert p.pool is not None or cpus == 1
    rest = p.later_facts()
    assert list(rest) == [path for path, _ in later]
    p.close()
    assert p.pool is None
    assert [c.callee for c in rest["web/m3.ts"].calls] == ["child_process.spawn"] * 4
    assert rest["web/m3.ts"].lang == "typescript" and first["pkg/m3.py"].lang == "python"


@pytest.mark.parametrize("cpus", [1, 2])
def test_the_rest_is_parsed_when_asked_for_and_dropped_otherwise(monkeypatch, cpus):
    monkeypatch.setattr(parsing, "_PARALLEL_MIN_BYTES", 1)
    items, ts = _items(20), _ts_items(40)
    p = Parsing(items, cpus=cpus, later=ts[:10], rest=ts[10:])
    p.facts()
    assert list(p.later_facts()) == [path for path, _ in ts[:10]]
    assert list(p.rest_facts()) == [path for path, _ in ts[10:]]
    p.close()
    dropped = Parsing(items, cpus=cpus, later=ts[:10], rest=ts[10:])
    dropped.facts()
    assert list(dropped.later_facts()) == [path for path, _ in ts[:10]]
    dropped.abandon()  # nobody needs the rest: the workers stop without it
    assert dropped.pool is None


def test_abandon_never_leaves_the_pool_thread_waiting_on_a_half_sent_result(monkeypatch):
    """A worker killed while it sends a chunk's facts leaves half a message in the result pipe.
    The pool's reader thread then waits for the rest, and the interpreter's exit handler joins
    that thread: the run would hang at exit. abandon() must let it end."""
    import os
    import struct

    monkeypatch.setattr(parsing, "_PARALLEL_MIN_BYTES", 1)
    p = Parsing(_items(40), cpus=2)
    p.facts()  # every result is in: the reader thread waits for the next message
    pool = p.pool
    thread = pool._executor_manager_thread
    # what a worker killed mid-send leaves: a header announcing 1000 bytes, then 10 of them
    os.write(pool._result_queue._writer.fileno(), struct.pack("!i", 1000) + b"x" * 10)
    p.abandon()
    thread.join(10)
    assert not thread.is_alive()


def test_error_stops_the_workers(monkeypatch):
    monkeypatch.setattr(parsing, "_PARALLEL_MIN_BYTES", 1)
    p = Parsing(_items(40), cpus=2)
    with pytest.raises(KeyboardInterrupt):
        with p:
            raise KeyboardInterrupt
    assert p.pool is None


def test_facts_in_document_order_every_time():
    """tree-sitter's captures() does not keep document order; the facts must."""
    src = ("import os\n\ndef f(x):\n    return os.getenv('K')\nX = os.path.join('a', 'b')\n" * 6).encode()
    runs = [extract("a.py", src) for _ in range(8)]
    for f in runs:
        assert [c.line for c in f.calls] == sorted(c.line for c in f.calls)
        assert [a.line for a in f.assigns] == sorted(a.line for a in f.assigns)
        assert f.calls == runs[0].calls


def test_built_facts_equal_constructed_ones():
    from dids.index.pyfacts import Call, Param, _built

    kw = dict(callee="os.system", raw="os.system", line=3, end_line=3, args=("'ls'",), kwargs=(),
              func="run", cls=None)
    made, built = Call(**kw), _built(Call, **kw)
    assert made == built and hash(made) == hash(built) and built.short == "system"
    assert _built(Param, name="x", annotation=None, default="1") == Param("x", None, "1")


def test_function_lookup_by_qualname():
    facts = extract("pkg/a.py", b"class A:\n    def run(self, cmd):\n        def inner():\n"
                                b"            pass\n\ndef run(x):\n    pass\n")
    assert facts.function("A.run").line == 2 and facts.function("A.run").cls == "A"
    assert facts.function("A.run.inner").line == 3
    assert facts.function("run").line == 6
    assert facts.function("A") is None  # a class is not a function
    assert facts.function(None) is None and facts.function("missing") is None
