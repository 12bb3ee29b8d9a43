"""package.json and JSON schemas: the line-keeping JSON reader, manifests and their defaults."""

from __future__ import annotations

import json

import pytest

from dids.index.jsonlines import JsonArray, JsonObject, loads, scalar_text
from dids.index.node_manifest import pnpm_workspaces, read_package
from dids.index.node_settings import js_value, schema_settings


def test_reader_keeps_the_line_of_every_key_and_item():
    doc = loads('{\n  "a": 1,\n  "b": [\n    "x",\n\n    {"c": null}\n  ],\n  "d": "e\\nf"\n}\n')
    assert isinstance(doc, JsonObject) and doc == {"a": 1, "b": ["x", {"c": None}], "d": "e\nf"}
    assert doc.lines == {"a": 2, "b": 3, "d": 8} and doc.line == 1
    assert isinstance(doc["b"], JsonArray) and doc["b"].lines == [4, 6]
    assert doc["b"][1].line_of("c") == 6 and doc.line_of("missing") == 1


@pytest.mark.parametrize("text", [
    '{"a": 1, "b": [true, false], "c": {"d": -1.5e3}, "e": ""}',
    '[1, 2, [3, [4, {}]], "\\u00e9\\"", null]',
    '"just a string"',
])
def test_reader_agrees_with_json(text):
    assert loads(text) == json.loads(text)


def test_reader_takes_jsonc_comments_and_trailing_commas():
    doc = loads('// settings\n{\n  /* block\n  comment */ "a": [1, 2,],\n  "b": 2, // why\n}\n')
    assert doc == {"a": [1, 2], "b": 2} and doc.lines == {"a": 4, "b": 5}


@pytest.mark.parametrize("text", [
    "", "{", '{"a" 1}', '{"a": 1,, "b": 2}', "[1 2]", '{"a": 1}}', "{'a': 1}", '{"a": 01}',
    '{"a": 1} trailing', '{"a": "unterminated}', "/* never closed", '{"a": [}', "[,]",
])
def test_reader_rejects_what_is_not_json(text):
    assert loads(text) is None


def test_reader_bounds_depth_items_and_size():
    assert loads("[" * 100 + "]" * 100) is None  # deeper than MAX_DEPTH
    assert loads("[" * 50 + "]" * 50) is not None
    assert loads("[" + ",".join(["1"] * 1000) + "]", max_items=500) is None
    assert loads(" " * (3 << 20) + "1") is None


def test_scalar_text():
    assert [scalar_text(v) for v in ("s", True, False, 3, 2.5, None, [1, "a"], {"k": 1})] == \
        ["s", "true", "false", "3", "2.5", None, '[1,"a"]', '{"k":1}']
    assert js_value('"quoted"') == "quoted" and js_value("`t${x}`") == "`t${x}`"
    assert js_value("`plain`") == "plain" and js_value("42") == "42" and js_value(None) is None


def test_package_with_string_bin_and_exports_and_yarn_workspaces():
    pkg = read_package("tools/cli/package.json", json.dumps({
        "name": "@scope/tool", "bin": "./bin/run.js", "exports": "./index.js",
        "browser": "./web.js", "workspaces": {"packages": ["a/*", "b"], "nohoist": ["x"]},
        "optionalDependencies": {"keytar": "^7"}, "peerDependencies": {"react": "*"},
        "scripts": {"start": "node .", "bad": 3}}, indent=1))
    assert pkg.dir == "tools/cli"
    assert [(b.name, b.value, b.line) for b in pkg.bin] == [("tool", "./bin/run.js", 3)]
    assert [(e.name, e.value) for e in pkg.exports] == [(".", "./index.js")]
    assert pkg.browser.value == "./web.js" and pkg.vscode is None
    assert [w.name for w in pkg.workspaces] == ["a/*", "b"]
    assert [d.name for d in pkg.dependencies] == ["keytar", "react"]
    assert [s.name for s in pkg.scripts] == ["start"]  # a non-string script is no command


def test_exports_conditions_only_and_blocked_subpaths():
    pkg = read_package("package.json", '{"exports": {"import": "./a.mjs", "require": "./a.cjs"}}')
    assert [(e.name, e.value) for e in pkg.exports] == [(".:import", "./a.mjs"),
                                                        (".:require", "./a.cjs")]
    pkg = read_package("package.json", '{"exports": {"./internal/*": null, "./x": {"node": '
                                       '{"import": "./x.mjs"}}}}')
    assert sorted((e.name, e.value) for e in pkg.exports) == [("./internal/*", None),
                                                              ("./x:node:import", "./x.mjs")]


def test_vscode_configuration_as_a_list_of_sections():
    pkg = read_package("package.json", json.dumps({
        "engines": {"vscode": "^1.90.0"}, "browser": "./dist/web.js",
        "contributes": {"configuration": [
            {"title": "A", "properties": {"a.one": {"type": ["string", "null"], "default": None}}},
            {"title": "B", "properties": {"b.two": {"type": "object", "default": {"x": 1}}}},
            "not a section",
        ], "commands": [{"title": "no id"}, {"command": "b.run"}]}}, indent=2))
    ext = pkg.vscode
    assert [(s.name, s.value, s.detail) for s in ext.configuration] == [
        ("a.one", None, "string|null"), ("b.two", '{"x":1}', "object")]
    assert [(c.name, c.value) for c in ext.commands] == [("b.run", None)]
    assert ext.browser.value == "./dist/web.js" and ext.activation_events == ()


def test_not_a_vscode_extension_without_engines_vscode():
    assert read_package("package.json", '{"engines": {"node": ">=20"}, "contributes": {}}').vscode is None


@pytest.mark.parametrize("text", ["", "[]", '"x"', "{" * 5000, '{"name": '])
def test_unreadable_manifests_are_empty_with_a_problem(text):
    pkg = read_package("package.json", text)
    assert pkg.name is None and pkg.bin == () and pkg.problems


def test_pnpm_workspace_globs_with_lines():
    globs = pnpm_workspaces("pnpm-workspace.yaml", "# repo\npackages:\n  - 'apps/*'\n  - packages/*\n")
    assert [(g.name, g.line) for g in globs] == [("apps/*", 3), ("packages/*", 4)]
    assert pnpm_workspaces("pnpm-workspace.yaml", "packages: nope\n") == ()
    assert pnpm_workspaces("pnpm-workspace.yaml", "{{{") == ()


def test_schema_defaults_walk_definitions_and_nested_properties():
    text = json.dumps({
        "definitions": {"Limits": {"properties": {"maxTurns": {"type": "integer", "default": 10}}}},
        "properties": {
            "mode": {"default": "ask"},
            "sandbox": {"properties": {"image": {"default": "node:20"}, "net": {"type": "boolean"}}},
            "list": {"type": "array", "items": {"properties": {"flag": {"default": False}}}},
        }}, indent=2)
    got = [(s.key, s.value, s.line, s.var, s.source) for s in schema_settings("a.schema.json", text)]
    assert got == [
        ("maxTurns", "10", 7, None, "manifest"),
        ("mode", "ask", 14, None, "manifest"),
        ("sandbox.image", "node:20", 19, "image", "manifest"),
        ("list.flag", "false", 31, "flag", "manifest"),
    ]
    assert schema_settings("a.schema.json", "not json") == []
