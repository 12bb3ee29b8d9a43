"""Run git with everything that could execute repository-controlled code switched off."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from ..errors import InputError, ToolMissingError

# -c options applied to every git call: no hooks, no fsmonitor, no filters via attributes,
# no submodule recursion, no credential prompts.
_SAFE_CONFIG = (
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    "core.sshCommand=ssh -o BatchMode=yes",
    "submodule.recurse=false",
    "protocol.allow=never",
    "protocol.https.allow=always",
    "protocol.ssh.allow=always",
    "credential.helper=",
    "core.askPass=",
    "safe.directory=*",
)


def safe_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_TERMINAL_PROMPT="0",
        GIT_LFS_SKIP_SMUDGE="1",
        GIT_ASKPASS="/bin/true",
        SSH_ASKPASS="/bin/true",
        GIT_ALLOW_PROTOCOL="https:ssh" + (":file" if env.get("DIDS_ALLOW_FILE") else ""),
        LC_ALL="C",
    )
    return env


def git_binary() -> str:
    git = shutil.which("git")
    if not git:
        raise ToolMissingError("git is not installed or not on PATH")
    return git


def run_git(
    args: list[str],
    *,
    git_dir: Path | None = None,
    allow_file: bool = False,
    input_bytes: bytes | None = None,
    timeout: float = 600,
    check: bool = True,
) -> subprocess.CompletedProcess[bytes]:
    cmd = [git_binary()]
    for opt in _SAFE_CONFIG:
        cmd += ["-c", opt]
    if allow_file:
        cmd += ["-c", "protocol.file.allow=always"]
    if git_dir is not None:
        cmd += ["--git-dir", str(git_dir)]
    cmd += args
    env = safe_env()
    if allow_file:
        env["GIT_ALLOW_PROTOCOL"] = "https:ssh:file"
    try:
        proc = subprocess.run(
            cmd, input=input_bytes, capture_output=True, env=env, timeout=timeout, cwd="/"
        )
    except subprocess.TimeoutExpired as exc:
        raise InputError(f"git {args[0]} timed out after {timeout:.0f}s") from exc
    if check and proc.returncode != 0:
        msg = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise InputError(f"git {args[0]} failed: {msg[-1] if msg else 'exit ' + str(proc.returncode)}")
    return proc
