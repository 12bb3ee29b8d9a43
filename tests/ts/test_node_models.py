"""Every Node library model row (data/models/node/*.yaml) fires on a call written the way a
TypeScript agent writes it, and the same call where no agent runs it does not: in a comment,
in a test file, in built output (`dist/`) and in documentation."""

from __future__ import annotations

import re

import pytest
import yaml

from dids.acquire import acquire
from dids.agent import ts_semantics
from dids.agent.ts_view import ts_view
from dids.index.repo import build_index
from dids.resources import data_files


def _rows():
    out = []
    for name, f in data_files("models", ".yaml", recursive=True):
        if name.startswith("node/"):
            data = yaml.safe_load(f.read_text(encoding="utf-8"))
            for i, raw in enumerate(data.get("rows", ())):
                out.append((f"{name}#{i}", data["kind"], raw))
    return sorted(out, key=lambda r: r[0])


ROWS = _rows()


def _slug(ident: str) -> str:
    return re.sub(r"\W+", "_", ident)


def _args(raw) -> str:
    args = ["input"] if raw.get("code_arg") is not None else ['"x"']
    when = raw.get("when_kw")
    if isinstance(when, dict):
        args.append("{ " + ", ".join(f"{k}: {v}" for k, v in when.items()) + " }")
    return ", ".join(args)


def snippet(raw) -> tuple[str, str]:
    """(source, the line that calls the row's export) for ROW."""
    args = _args(raw)
    if raw.get("global"):
        g = raw["global"]
        call = f"  return {g}({args});" if g != "Function" else f"  return new Function({args});"
        head = ""
    elif raw.get("suffix"):
        head = f'import * as lib from "{raw["imports"][0]}";\ndeclare const client: any;\n' \
            if raw.get("imports") else "declare const client: any;\n"
        call = f"  return client.{raw['suffix']}({args});"
    else:
        mod, name = raw["module"], raw.get("call") or ""
        if not name:
            head = f'import lib from "{mod}";\n'
            call = f"  return lib({args});"
        else:
            head = f'import * as lib from "{mod}";\n'
            new = "new " if name[:1].isupper() and "." not in name else ""
            call = f"  return {new}lib.{name}({args});"
    src = (head + "export function run(input: string): unknown {\n" + call + "\n}\n")
    return src, call.strip()


@pytest.fixture(scope="module")
def view(tmp_path_factory):
    from conftest import RepoBuilder

    files = {"package.json": '{"name": "agent", "version": "1.0.0"}\n'}
    for ident, _kind, raw in ROWS:
        src, call = snippet(raw)
        slug = _slug(ident)
        files[f"src/{slug}.ts"] = src
        commented = "\n".join(("// " + ln if ln.strip().startswith("return") else ln)
                              for ln in src.splitlines()) + "\n"
        files[f"src/miss_comment_{slug}.ts"] = commented
        files[f"src/{slug}.test.ts"] = src
        files[f"dist/{slug}.js"] = src
        files[f"docs/{slug}.md"] = "Usage:\n\n```ts\n" + src + "```\n"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DIDS_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "dids-cache"))
        repo = RepoBuilder(tmp_path_factory.mktemp("nodemodels") / "repo")
        repo.commit(files)
        index = build_index(acquire(str(repo.path)))
    return ts_view(index)


@pytest.mark.parametrize("ident,kind,raw", ROWS, ids=[r[0] for r in ROWS])
def test_row_fires_on_a_call(view, ident, kind, raw):
    path = f"src/{_slug(ident)}.ts"
    facts = view.py[path]
    src, call_text = snippet(raw)
    line = src.splitlines().index("  " + call_text) + 1
    rows = [r for c in facts.calls if c.line == line for r in ts_semantics.match(facts, c)]
    want = raw.get("global") or (raw.get("suffix") or f"{raw.get('module')}:{raw.get('call') or ''}")
    assert any(r.kind == kind and r.id.endswith(str(want)) for r in rows), (path, rows)


def test_near_misses_do_not_fire(view):
    hits = ts_semantics.matches(view)
    where = {facts.path for kind in hits for facts, _c, _r in hits[kind]}
    assert where, "the rows fire somewhere"
    assert not [p for p in where if "miss_comment" in p or p.endswith(".test.ts")
                or p.startswith(("dist/", "docs/"))]


def test_a_gemini_call_through_the_clients_own_generator_interface(tmp_path, monkeypatch):
    """Clients hold the SDK's `models` behind an interface of their own (a content generator):
    the call is a model call wherever the file uses the SDK, and a same-named method of a file
    that never imports it is not."""
    from conftest import RepoBuilder

    chat = ('import type { GenerateContentParameters } from "@google/genai";\n'
            "export class Chat {\n"
            "  constructor(private readonly generator: { generateContentStream(r: unknown): unknown }) {}\n"
            "  send(req: GenerateContentParameters) {\n"
            "    return this.generator.generateContentStream(req);\n"
            "  }\n"
            "}\n")
    other = ("export class Report {\n"
             "  send(doc: { generateContent(): string }) {\n"
             "    return doc.generateContent();\n"
             "  }\n"
             "}\n")
    repo = RepoBuilder(tmp_path / "repo")
    repo.commit({"package.json": '{"name": "agent", "version": "1.0.0"}\n',
                 "src/chat.ts": chat, "src/report.ts": other})
    monkeypatch.setenv("DIDS_CACHE_DIR", str(tmp_path / "cache"))
    view = ts_view(build_index(acquire(str(repo.path))))
    llm = [(facts.path, c.line) for facts, c, _r in ts_semantics.matches(view).get("llm", ())]
    assert llm == [("src/chat.ts", 5)]
