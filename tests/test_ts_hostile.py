"""Hostile TypeScript/JavaScript input: arbitrary bytes, deep nesting, huge files and huge error
regions never fail the extraction, stay within their bounds and keep facts inside the file."""

from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dids.index import pyfacts
from dids.index.pyfacts import PyFacts
from dids.index.tsfacts import extract_ts

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

TOKENS = [
    "function ", "class ", "async ", "await ", "=>", "return ", "import ", " from ", '"m"',
    "require(", "import(", "export ", "default ", "new ", "spawn(", "exec(", "x", "y", "=", "?.",
    "!", "...", ",", ":", ".", "@dec", "(", ")", "[", "]", "{", "}", "'", '"', "`", "${", "//",
    "/*", "*/", "/**", "\n", "  ", "\t", "\r\n", "if ", "else", "for ", " of ", "<div>", "</div>",
    "<T>", "as const", "satisfies ", "process.env.", "??", "||", ".default(", "z.object(",
    "DEFAULT_X = ", "1", "0x", "é", "\u202e", "\x00", "\ufeff", ";", "#!", "\\",
]
ts_ish = st.lists(st.sampled_from(TOKENS), max_size=200).map("".join)


def _check(facts: PyFacts, src: bytes) -> None:
    assert isinstance(facts, PyFacts) and facts.lang in ("typescript", "javascript")
    n = src.count(b"\n") + 1
    assert facts.lines == n
    for c in facts.calls:
        assert 1 <= c.line <= c.end_line <= n
    for d in facts.defs:
        assert 1 <= d.line <= d.end_line <= n
    for a in facts.assigns:
        assert 1 <= a.line <= a.end_line <= n
    for d in facts.defaults:
        assert 1 <= d.line <= n
    assert all(1 <= line <= n for line in facts.prose_lines)
    assert facts.skipped == "" or not facts.calls


@SETTINGS
@given(st.binary(max_size=4000), st.sampled_from(["x.ts", "x.tsx", "x.js"]))
def test_random_bytes(src, path):
    _check(extract_ts(path, src), src)


@SETTINGS
@given(ts_ish, st.sampled_from(["x.ts", "x.tsx", "x.mjs"]))
def test_typescript_ish_text(text, path):
    src = text.encode("utf-8", "replace")
    _check(extract_ts(path, src), src)


@pytest.mark.parametrize("opener,closer", [("f(", ")"), ("[", "]"), ("{a:", "}"), ("(", ")"),
                                           ("() => ", ""), ("<div>", "</div>"), ("!", ""),
                                           ("a?.", "b"), ("`${", "}`")])
def test_deep_nesting_is_bounded(opener, closer):
    depth = 30_000
    src = (f"const x = {opener * depth}1{closer * depth};\n"
           'import { spawn } from "child_process";\nspawn("after");\n').encode()
    t0 = time.perf_counter()
    facts = extract_ts("deep.tsx", src)
    assert time.perf_counter() - t0 < 30
    _check(facts, src)
    if not facts.skipped:  # what follows the nesting is still read
        assert any(c.callee == "child_process.spawn" and c.line == 3 for c in facts.calls)


def test_a_large_file_within_the_bounds_gives_all_its_facts():
    unit = ('export async function run{i}(cmd: string) {{\n  // step {i}\n'
            '  return spawn(cmd, [], {{ shell: true, env: process.env }});\n}}\n')
    src = ('import { spawn } from "child_process";\n' +
           "".join(unit.format(i=i) for i in range(8000))).encode()
    assert 800_000 < len(src) < 1 << 20  # under the default --max-file-bytes
    t0 = time.perf_counter()
    facts = extract_ts("big.ts", src)
    assert time.perf_counter() - t0 < 30 and not facts.has_error
    assert len(facts.defs) == 8000 and len(facts.calls) == 8000
    assert all(c.callee == "child_process.spawn" and c.kw("shell") == "true" for c in facts.calls)
    assert len(facts.prose_lines) == 8000


def test_huge_syntax_error_regions_are_left_out_and_said():
    garbage = ") ] } " * 2000  # one error region far over the blanking bound
    src = (f'import {{ spawn }} from "child_process";\nspawn("before");\n{garbage}\n'
           'spawn("after");\n').encode()
    facts = extract_ts("bad.ts", src)
    _check(facts, src)
    assert facts.has_error and not facts.skipped
    assert facts.partial == "syntax-error regions over 4096 bytes not analysed"
    # the region is blanked, lines kept: what lies around it is still read, at its own lines
    assert [(c.line, c.args) for c in facts.calls] == [(2, ('"before"',)), (4, ('"after"',))]


def test_parse_time_limit(monkeypatch):
    monkeypatch.setattr(pyfacts, "PARSE_SECONDS", 1e-9)
    src = ("const a = [" + "1, " * 200_000 + "];\n").encode()
    facts = extract_ts("slow.js", src)
    assert facts.skipped == "JavaScript parse took longer than 1e-09s"
    assert facts.has_error and facts.calls == [] and facts.defs == []


@pytest.mark.parametrize("use", ["process.env.X ?? 1", 'process.env["X"]', "a.b.default(1)"])
def test_many_default_reads_under_deep_nesting_stay_fast(use):
    # each read is reached downwards from a query capture: no lookup costs the nesting depth
    src = ('import { z } from "zod";\nconst a = ' + "f(" * 20_000 +
           "[" + ",".join([use] * 2000) + "]" + ")" * 20_000 + ";\n").encode()
    t0 = time.perf_counter()
    facts = extract_ts("deep.ts", src)
    assert time.perf_counter() - t0 < 5  # (about 0.1 s; walking up from each read took 8 s)
    _check(facts, src)
