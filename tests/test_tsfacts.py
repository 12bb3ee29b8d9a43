"""TypeScript/JavaScript facts: the same dataclasses as Python's, by the conventions of tsfacts."""

from __future__ import annotations

import textwrap

import pytest

from dids.index.pyfacts import Param
from dids.index.tsfacts import extract_ts, grammar_for


def facts(src: str, path: str = "src/m.ts"):
    f = extract_ts(path, textwrap.dedent(src).lstrip("\n").encode())
    assert not f.skipped
    return f


def call(f, raw: str):
    found = [c for c in f.calls if c.raw == raw]
    assert len(found) == 1, [c.raw for c in f.calls]
    return found[0]


def test_grammar_by_suffix():
    assert [grammar_for(p) for p in ("a.ts", "a.tsx", "a.mts", "a.js", "a.jsx", "a.mjs",
                                     "a.cjs", "a.py", "dir.ts/readme")] == \
        ["typescript", "tsx", "typescript", "javascript", "javascript", "javascript",
         "javascript", None, None]
    assert facts("x()", "a.ts").lang == "typescript"
    assert facts("x()", "a.tsx").lang == "typescript"
    assert facts("x()", "a.cjs").lang == "javascript"


def test_esm_imports_map_aliases_to_dotted_origins():
    f = facts('''
        import cp from "node:child_process";
        import { spawn as sp, execSync } from "child_process";
        import * as vscode from "vscode";
        import type { Tool } from "./tools/bash";
        import "./side-effect";
        import fs = require("fs");
        export { helper } from "./helpers";
    ''')
    assert f.imports["cp"] == "child_process"
    assert f.imports["sp"] == "child_process.spawn"
    assert f.imports["execSync"] == "child_process.execSync"
    assert f.imports["vscode"] == "vscode"
    assert f.imports["Tool"] == "./tools/bash.Tool"  # relative specifiers kept as written
    assert f.imports["fs"] == "fs"
    # every specifier is also a <module> key, so an origin's module part can be recovered
    assert {k for k in f.imports if k.startswith("<module>")} == {
        "<module>child_process", "<module>vscode", "<module>./tools/bash",
        "<module>./side-effect", "<module>fs", "<module>./helpers"}
    assert "helper" not in f.imports  # a re-export binds no local name


def test_require_and_dynamic_import_bindings():
    f = facts('''
        const { exec, spawn: run, fork = null } = require("child_process");
        const cp = require("node:child_process");
        const execa = require("execa").execa;
        async function load() {
          const pty = await import("node-pty");
          const { default: open } = await import("open");
        }
        require("dotenv");
        let later;
        later = require("ignored-not-a-declaration");
    ''', "src/m.js")
    assert f.imports["exec"] == "child_process.exec"
    assert f.imports["run"] == "child_process.spawn"
    assert f.imports["fork"] == "child_process.fork"
    assert f.imports["cp"] == "child_process"
    assert f.imports["execa"] == "execa.execa"
    assert f.imports["pty"] == "node-pty"
    assert f.imports["open"] == "open.default"
    assert f.imports["<module>dotenv"] == "dotenv"
    assert "later" not in f.imports
    assert f.imports["<module>ignored-not-a-declaration"] == "ignored-not-a-declaration"


def test_last_binding_of_a_name_wins_in_source_order():
    f = facts('''
        import run from "first";
        const run = require("second");
    ''')
    assert f.imports["run"] == "second"


def test_calls_resolve_through_imports_with_object_literal_kwargs():
    f = facts('''
        import { spawn } from "child_process";
        function go(cmd: string, args: string[], extra: object) {
          const env = process.env;
          spawn(cmd, args, { env, shell: true, cwd: "/tmp", ...extra, "stdio": "pipe", [k]: 1, m() {} });
        }
    ''')
    c = call(f, "spawn")
    assert c.callee == "child_process.spawn" and c.short == "spawn"
    assert (c.line, c.end_line, c.func, c.cls) == (4, 4, "go", None)
    assert c.args == ("cmd", "args", '{ env, shell: true, cwd: "/tmp", ...extra, "stdio": "pipe", '
                                     '[k]: 1, m() {} }')
    assert c.kwargs == (("env", "env"), ("shell", "true"), ("cwd", '"/tmp"'), ("**", "extra"),
                        ("stdio", '"pipe"'), ("[k]", "1"), ("m", "m() {}"))
    assert c.kw("shell") == "true" and c.kw("timeout") is None


def test_new_await_optional_chaining_and_non_null_are_normalised():
    f = facts('''
        import * as sdk from "@anthropic-ai/sdk";
        async function main(client?: Client) {
          const c = new sdk.Anthropic({ apiKey: key });
          await client?.messages.create({ model: "m" });
          client!.close();
          (await connect()).run("x");
          new Date;
          this.terminal?.sendText?.("ls");
        }
    ''')
    new = call(f, "new sdk.Anthropic")
    assert new.callee == "@anthropic-ai/sdk.Anthropic" and new.kwargs == (("apiKey", "key"),)
    assert call(f, "client.messages.create").line == 4
    assert call(f, "client.close").callee == "client.close"
    assert call(f, "connect().run").args == ('"x"',)
    assert call(f, "new Date").args == ()
    assert call(f, "this.terminal.sendText").args == ('"ls"',)


def test_chained_calls_are_outer_first_every_time():
    src = 'z.number().int().default(3).describe("n");\n' * 5
    runs = [facts(src).calls for _ in range(6)]
    assert [c.raw for c in runs[0][:4]] == ["z.number().int().default(3).describe",
                                           "z.number().int().default", "z.number().int",
                                           "z.number"]
    assert all(r == runs[0] for r in runs)


def test_tagged_template_is_a_call_with_the_template_as_argument():
    f = facts('import { $ } from "zx";\nawait $`rm -rf ${dir}`;\n', "a.mjs")
    c = call(f, "$")
    assert c.callee == "zx.$" and c.args == ("`rm -rf ${dir}`",)


def test_functions_methods_and_bound_arrows_with_qualnames():
    f = facts('''
        export async function activate(context: vscode.ExtensionContext, flag = false) {
          function inner(...rest: string[]) {}
          const helper = async (x) => x;
        }
        export const handlers = {
          run(cmd) { exec(cmd); },
          stop: () => kill(),
          nested: { deep() {} },
        };
        exports.handler = async function (event) {};
        export default () => start();
        class Tool {
          private static async create() {}
          public async stop(): Promise<void> {}
          protected override async reset() {}
          run = async (input: Input): Promise<void> => { spawn(input.cmd); };
          #secret() {}
        }
    ''')
    by = {d.qualname: d for d in f.defs}
    assert set(by) == {"activate", "activate.inner", "activate.helper", "handlers.run",
                       "handlers.stop", "handlers.nested.deep", "handler", "default",
                       "Tool.create", "Tool.stop", "Tool.reset", "Tool.run", "Tool.#secret"}
    a = by["activate"]
    assert (a.line, a.end_line, a.is_async, a.cls) == (1, 4, True, None)
    assert a.params == (Param("context", "vscode.ExtensionContext", None),
                        Param("flag", None, "false"))
    assert by["activate.inner"].params == (Param("...rest", "string[]", None),)
    assert by["activate.helper"].is_async and by["activate.helper"].params == (Param("x", None, None),)
    assert by["Tool.create"].is_async and by["Tool.create"].cls == "Tool"
    assert by["Tool.stop"].is_async and by["Tool.reset"].is_async
    assert by["Tool.run"].cls == "Tool" and by["Tool.run"].params == (Param("input", "Input", None),)
    assert by["handlers.run"].cls is None
    assert call(f, "exec").func == "handlers.run"
    assert call(f, "kill").func == "handlers.stop"
    assert call(f, "start").func == "default"
    s = call(f, "spawn")
    assert (s.func, s.cls) == ("Tool.run", "Tool")


def test_anonymous_callback_is_a_scope_named_after_its_call():
    f = facts('''
        function activate(context) {
          context.subscriptions.push(
            vscode.commands.registerCommand("x.run", async () => {
              await run();
            }),
          );
          items.forEach(function (item) { use(item); });
          const later = [() => ignored()];
        }
    ''', "a.js")
    names = [d.qualname for d in f.defs]
    assert names == ["activate", "activate.<vscode.commands.registerCommand>", "activate.<items.forEach>"]
    assert call(f, "run").func == "activate.<vscode.commands.registerCommand>"
    assert call(f, "use").func == "activate.<items.forEach>"
    assert call(f, "ignored").func == "activate"  # an arrow in an array is no scope


def test_classes_resolve_extends_and_implements_through_imports():
    f = facts('''
        import * as vscode from "vscode";
        import { Base } from "./base";
        @Injectable({ scope: "x" })
        export class Provider extends Base<string> implements vscode.TreeDataProvider<Item>, Other {
          @Inject() private svc!: Service;
          @Command("x")
          async refresh(): Promise<void> {}
        }
        export abstract class Shape {}
        const Anon = class extends vscode.Disposable {};
        const Bound = class Inner {};
    ''')
    by = {c.qualname: c for c in f.classes}
    p = by["Provider"]
    assert (p.line, p.end_line) == (4, 8)
    assert p.bases == ("./base.Base",)
    assert p.implements == ("vscode.TreeDataProvider", "Other")
    assert p.decorators == ('Injectable({ scope: "x" })',)
    assert by["Shape"].bases == ()
    assert by["Anon"].bases == ("vscode.Disposable",)
    assert "Bound" in by and "Inner" not in by  # a class expression is named by its binding
    refresh = next(d for d in f.defs if d.name == "refresh")
    assert refresh.decorators == ('Command("x")',) and refresh.qualname == "Provider.refresh"


def test_javascript_classes_and_decorators():
    f = facts('''
        const base = require("./base");
        class Agent extends base.Loop {
          steps = 10;
          @trace run(task) { this.step(task); }
        }
    ''', "a.js")
    (cls,) = f.classes
    assert cls.bases == ("./base.Loop",) and cls.implements == ()
    run = next(d for d in f.defs if d.name == "run")
    assert run.decorators == ("trace",) and run.qualname == "Agent.run"


def test_assigns_module_class_fields_constructor_and_default_export():
    f = facts('''
        export const MAX_STEPS: number = 25;
        let a = 1, b = "two";
        module.exports.x = 3;
        export default { name: "agent" };
        class Loop {
          private limit = 5;
          constructor(private readonly llm: Llm) {
            this.history = [];
            const local = 1;
            if (x) { const notDirect = 2; }
          }
        }
        function f() {
          return 1;
        }
    ''')
    got = [(a.target, a.annotation, a.value, a.line, a.scope, a.scope_kind) for a in f.assigns]
    assert got == [
        ("MAX_STEPS", "number", "25", 1, "module", "module"),
        ("a", None, "1", 2, "module", "module"),
        ("b", None, '"two"', 2, "module", "module"),
        ("module.exports.x", None, "3", 3, "module", "module"),
        ("default", None, '{ name: "agent" }', 4, "module", "module"),
        ("limit", None, "5", 6, "Loop", "class"),
        ("this.history", None, "[]", 8, "Loop.constructor", "function"),
        ("local", None, "1", 9, "Loop.constructor", "function"),
    ]


def test_prose_lines_are_whole_line_comments_and_calls_in_comments_are_not_calls():
    f = facts('''
        /**
         * spawn("rm -rf /") in JSDoc
         */
        // exec("ls")
        run(); // trailing exec("x")
        /* block */ go();
        const s = "spawn('in a string')";
    ''')
    assert f.prose_lines == frozenset({1, 2, 3, 4})
    assert [c.raw for c in f.calls] == ["run", "go"]
    assert f.is_code_line(5) and f.is_code_line(6) and not f.is_code_line(2)


def test_identifiers_are_not_counted():
    """Identifier counts are a Python dead-code fact; TypeScript liveness comes from reach."""
    f = facts('const x = { helperFn };\nhelperFn(x.helperFn);\n')
    assert not f.idents and [c.raw for c in f.calls] == ["helperFn"]


def test_env_defaults():
    f = facts('''
        const TIMEOUT = Number(process.env.AGENT_TIMEOUT ?? 30);
        const url = process.env["API_URL"] ||
          "http://localhost:8080";
        const { SANDBOX = "docker", TOKEN } = process.env;
        if (process.env.DEBUG) {}
        const name = process.env[key];
        // process.env.IN_COMMENT ?? 1
        const s = "process.env.IN_STRING";
    ''')
    got = [(d.key, d.value, d.line, d.form) for d in f.defaults]
    assert got == [("AGENT_TIMEOUT", "30", 1, "env"), ("API_URL", '"http://localhost:8080"', 3, "env"),
                   ("SANDBOX", '"docker"', 4, "env"), ("TOKEN", None, 4, "env"),
                   ("DEBUG", None, 5, "env")]


def test_zod_defaults_on_object_properties_only():
    f = facts('''
        import { z } from "zod";
        export const Config = z.object({
          mode: z.enum(["ask", "auto"]).default("ask"),
          timeout: z.number()
            .default(30)
            .describe("seconds"),
          other: lib.default(1),
        });
        const Alone = z.string().default("x");
    ''')
    assert [(d.key, d.value, d.line, d.form) for d in f.defaults] == [
        ("mode", '"ask"', 3, "zod"), ("timeout", "30", 5, "zod")]


def test_zod_defaults_need_zod():
    f = facts('const S = y.object({ mode: y.string().default("ask") });')
    assert f.defaults == ()


def test_default_object_literals_give_dotted_keys_with_their_lines():
    f = facts('''
        export const DEFAULT_SETTINGS = {
          autoApprove: false,
          limits: {
            maxRequests: 20,
          },
        } as const;
        const defaultBrowserSettings: Settings = { headless: true };
        const notDefaults = { a: 1 };
        function f() { const DEFAULT_LOCAL = { b: 2 }; }
    ''')
    assert [(d.key, d.value, d.line, d.var) for d in f.defaults] == [
        ("autoApprove", "false", 2, "DEFAULT_SETTINGS.autoApprove"),
        ("limits.maxRequests", "20", 4, "DEFAULT_SETTINGS.limits.maxRequests"),
        ("headless", "true", 7, "defaultBrowserSettings.headless")]


@pytest.mark.parametrize("path", ["a.ts", "a.tsx", "a.js"])
def test_syntax_errors_are_flagged_not_fatal(path):
    f = extract_ts(path, b"function (( {\nrun(1);\n")
    assert f.has_error and not f.skipped
    assert f.lines == 3


def test_facts_in_document_order_every_time():
    src = ('import { spawn } from "child_process";\nexport function f(x) {\n  spawn(x);\n'
           '  const y = 1;\n}\nconst Z = spawn("a");\n' * 6).encode()
    runs = [extract_ts("a.ts", src) for _ in range(8)]
    for f in runs:
        assert [c.line for c in f.calls] == sorted(c.line for c in f.calls)
        assert [a.line for a in f.assigns] == sorted(a.line for a in f.assigns)
        assert [d.line for d in f.defs] == sorted(d.line for d in f.defs)
        assert f.calls == runs[0].calls and f.assigns == runs[0].assigns


def test_an_if_after_an_else_if_stays_an_if():
    # the "elif" of an `else if` once leaked into every later `if` of the file, in whatever
    # order the query cursor returned them (so a run's blocks and guards could differ)
    f = facts("""
        function f(a, b, c) {
          if (a) { run(1); } else if (b) { run(2); }
          if (c) { run(3); }
          if (a && c) { run(4); }
        }
        """)
    assert [b.kind for b in f.blocks if b.kind in ("if", "elif")] == ["if", "elif", "if", "if"]


def test_env_defaults_in_source_order_every_time():
    src = b"export const r = process.env.AWS_REGION || process.env.AWS_DEFAULT_REGION;\n" * 4
    runs = [extract_ts("a.ts", src) for _ in range(8)]
    assert [d.key for d in runs[0].defaults][:2] == ["AWS_REGION", "AWS_DEFAULT_REGION"]
    assert all(f.defaults == runs[0].defaults for f in runs)
