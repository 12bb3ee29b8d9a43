"""Property tests: arbitrary bytes, Python-ish text and paths never make the index or the
Markdown escaping fail, and the facts stay within the file."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dids.index.inventory import LANGS, Limits, language, role, skip_reason
from dids.index.pyfacts import PyFacts, extract
from dids.render.text import clean, code_span, md, md_url

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

TOKENS = [
    "def ", "class ", "async ", "await ", "lambda", "return ", "import os", "from x import y",
    "os.system(", "subprocess.run(", "f(", "x", "y", "=", "==", "**", "*", ",", ":", ".", "@tool",
    "(", ")", "[", "]", "{", "}", "'", '"', '"""', "'''", "f'{", "}'", "#", "# dids: waive",
    "\n", "\n    ", "    ", "\t", "\\\n", "\r\n", "if ", "else", "for ", " in ", "with ", "try:",
    "except", "yield ", "1", "0x", "é", "\u202e", "\x00", "\ufeff", ";", "->", "|", "<script>",
]
python_ish = st.lists(st.sampled_from(TOKENS), max_size=200).map("".join)
encodings = st.sampled_from(["utf-8", "latin-1", "utf-16"])
paths = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=80) | \
    st.lists(st.sampled_from(["src", "tests", "docs", "examples", "node_modules", "a b", "-rf",
                              "x.py", "README.md", ".env", "Dockerfile", "conftest.py", "..",
                              "e\u0301", "\u202e", "a|b", "[x](y)", "compose.yaml", ""]),
             min_size=1, max_size=6).map("/".join)


def _check(facts: PyFacts, src: bytes) -> None:
    assert isinstance(facts, PyFacts)
    n = src.count(b"\n") + 1
    assert facts.lines == n
    for c in facts.calls:
        assert 1 <= c.line <= c.end_line <= n
    for d in facts.defs:
        assert 1 <= d.line <= d.end_line <= n
    assert all(1 <= line <= n for line in facts.prose_lines)
    assert facts.skipped == "" or not facts.calls


@SETTINGS
@given(st.binary(max_size=4000))
def test_extract_random_bytes(src):
    _check(extract("x.py", src), src)


@SETTINGS
@given(python_ish, encodings)
def test_extract_python_ish(text, encoding):
    src = text.encode(encoding, "replace")
    _check(extract("pkg/mod.py", src), src)


@SETTINGS
@given(st.integers(1, 3000), st.sampled_from(["f(", "(", "[", "**", "not ", "a.", "-", "lambda:"]))
def test_extract_deep_nesting(depth, opener):
    closer = {"f(": ")", "(": ")", "[": "]"}.get(opener, "")
    src = ("x = " + opener * depth + "1" + closer * depth + "\nimport os\nos.system('x')\n")
    facts = extract("deep.py", src.encode())
    _check(facts, src.encode())


@SETTINGS
@given(paths, st.integers(-1, 1 << 31))
def test_inventory_classification(path, size):
    lang = language(path)
    assert lang in set(LANGS.values()) | {"docker", "make", "env", "other"}
    assert role(path, lang) in ("source", "test", "docs", "example", "config", "generated")
    reason = skip_reason(path, size, Limits())
    assert reason is None or isinstance(reason, str)
    if size > Limits().max_file_bytes:
        assert reason is not None


_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")


@SETTINGS
@given(st.text(max_size=300) | python_ish)
def test_markdown_escaping(text):
    for out in (md(text), md_url(text)):
        assert "\n" not in out and "\r" not in out
        assert "<" not in out and ">" not in out
        assert not _BIDI.search(out)
        # with escaped backslashes removed, every | [ ] ` left is escaped
        assert not re.search(r"(?<!\\)[|\[\]`]", out.replace("\\\\", ""))
    assert not re.search(r"(?i)[a-z0-9]://", md(text))  # no autolink outside the repo URL
    span = code_span(text)
    assert "\n" not in span and "<" not in span and not _BIDI.search(span)
    if span.startswith("`"):
        assert span.endswith("`") and "`" not in span[1:-1] and "|" not in span
    assert not _BIDI.search(clean(text))
