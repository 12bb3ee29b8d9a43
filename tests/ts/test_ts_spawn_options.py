"""Spawn options handed in as a variable (`execFile(cmd, args, options)`, as a browser
launcher does): the object literal bound to it is read for its environment, so a spread of
`process.env` there is a full copy (cited where the options are built), an options object
without `env` inherits, and options dids cannot follow are unknown, never claimed absent."""

from __future__ import annotations

import pytest

from tests.agentmodel.repos import modelled

PKG = """{
  "name": "launcher",
  "version": "1.0.0",
  "bin": {"launcher": "dist/index.js"}
}
"""
README = "# launcher\n\n```\nnpm install -g launcher\n```\n"
INDEX = """import { execFile } from "node:child_process";

export function openFull(cmd: string, args: string[]) {
  const options: Record<string, unknown> = {
    env: {
      ...process.env,
      SHELL: undefined,
    },
    detached: true,
  };
  return execFile(cmd, args, options);
}

export function openPlain(cmd: string, args: string[]) {
  const options = { detached: true };
  return execFile(cmd, args, options);
}

export function openBuilt(cmd: string, args: string[]) {
  const options = { env: { PATH: "/usr/bin" } };
  return execFile(cmd, args, options);
}

export function openGiven(cmd: string, args: string[], opts: object) {
  return execFile(cmd, args, opts);
}

export function main() {
  const cmd = "xdg-open";
  openFull(cmd, []);
  openPlain(cmd, []);
  openBuilt(cmd, []);
  openGiven(cmd, [], {});
}

main();
"""

FILES = {"package.json": PKG, "README.md": README, "src/index.ts": INDEX}


@pytest.fixture(scope="module")
def spawns(tmp_path_factory):
    m = modelled(tmp_path_factory, FILES)
    return m, {f.data["func"]: f for f in m.findings()["exec.spawn"]}


def test_options_spreading_the_environment_are_a_full_copy(spawns):
    m, by = spawns
    f = by["openFull"]
    assert f.data["env"] == "full"
    assert f.data["env_line"] == m.line("src/index.ts", "const options: Record")
    assert "no env option" not in f.claim


def test_options_without_env_inherit(spawns):
    assert spawns[1]["openPlain"].data["env"] == "inherit"


def test_options_with_a_built_env_are_constructed(spawns):
    assert spawns[1]["openBuilt"].data["env"] == "constructed"


def test_options_from_a_parameter_are_unknown_not_absent(spawns):
    assert spawns[1]["openGiven"].data["env"] == "unknown"
