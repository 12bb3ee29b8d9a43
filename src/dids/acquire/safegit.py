"""Run git with everything that could execute repository-controlled code switched off.

Every call gets: no hooks, no fsmonitor, no system or global configuration, no credential
prompts, no replace refs, no automatic gc/maintenance (which would outlive the run), LFS smudge
skipped, and only the one transport protocol the user asked for (none at all when the target
is a local work tree, so a partial clone cannot lazily fetch from a remote its config names).
Nothing is ever checked out, so filters, smudge/clean drivers and submodules never run either.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
from pathlib import Path

from ..errors import InputError, ToolMissingError
from . import budget

# -c options applied to every git call (command-line config wins over the repository's own).
_SAFE_CONFIG = (
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    "core.sshCommand=ssh -o BatchMode=yes",
    "core.useReplaceRefs=false",
    "core.pager=cat",
    "submodule.recurse=false",
    "fetch.recurseSubmodules=false",
    "fetch.writeCommitGraph=false",
    "gc.auto=0",
    "maintenance.auto=false",
    "protocol.allow=never",
    "credential.helper=",
    "core.askPass=",
    "safe.directory=*",
)
# GIT_ALLOW_PROTOCOL for calls that must not touch any transport (no real protocol has this name)
_NO_PROTOCOL = "dids-none"
PROTOCOLS = ("https", "ssh", "file")
_CONTROL = re.compile(r"[\x00-\x1f\x7f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")


def safe_env(protocol: str | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_ATTR_NOSYSTEM="1",
        GIT_TERMINAL_PROMPT="0",
        GIT_LFS_SKIP_SMUDGE="1",
        GIT_NO_REPLACE_OBJECTS="1",
        GIT_NO_LAZY_FETCH="1",
        GIT_ASKPASS="/bin/true",
        SSH_ASKPASS="/bin/true",
        GIT_ALLOW_PROTOCOL=protocol if protocol in PROTOCOLS else _NO_PROTOCOL,
        LC_ALL="C",
    )
    return env


def git_binary() -> str:
    git = shutil.which("git")
    if not git:
        raise ToolMissingError("git is not installed or not on PATH")
    return git


_CREDENTIALS = re.compile(r"(\b[a-z][a-z0-9+.-]*://)[^/@\s'\"]+@", re.I)
_KEY_LINE = re.compile(r"^(fatal|error|remote):", re.I)
# progress and advice, never the cause
_NOISE = re.compile(r"^(hint:|warning:|Cloning into|remote: (Enumerating|Counting|Compressing|"
                    r"Total|Finding sources))", re.I)


def git_error_text(stderr: bytes) -> str:
    """What git said, whole enough to act on, as one line: its first `fatal:`, `error:` or
    `remote:` line, with what a helper (ssh, the server) printed just before it, and the first
    `fatal:` after a `remote:` or `error:` line. Git's closing advice ("Please make sure you
    have the correct access rights / and the repository exists.") is dropped: its last line
    alone says nothing. Terminal control characters are removed (a server writes there)."""
    lines = [_CONTROL.sub("", ln).strip() for ln in stderr.decode("utf-8", "replace").splitlines()]
    lines = [ln for ln in lines if ln and not _NOISE.match(ln)]
    if not lines:
        return ""
    key = next((i for i, ln in enumerate(lines) if _KEY_LINE.match(ln)), None)
    if key is None:
        picked = lines[:1]
    else:
        picked = lines[max(0, key - 2):key + 1]
        if not lines[key].lower().startswith("fatal:"):
            fatal = next((ln for ln in lines[key + 1:] if ln.lower().startswith("fatal:")), None)
            if fatal:
                picked.append(fatal)
    text = _CREDENTIALS.sub(r"\1", "; ".join(picked))  # a URL git quotes keeps no secret
    return text if len(text) <= 500 else text[:497] + "..."


def run_git(
    args: list[str],
    *,
    git_dir: Path | None = None,
    protocol: str | None = None,
    allow_file: bool = False,
    input_bytes: bytes | None = None,
    timeout: float = 600,
    check: bool = True,
) -> subprocess.CompletedProcess[bytes]:
    """Run git ARGS. PROTOCOL (https, ssh or file) is the only transport allowed; by default none.

    The command runs in its own process group, killed whole on timeout or interruption, and its
    timeout never extends past the run's --timeout budget."""
    if allow_file:
        protocol = "file"
    cmd = [git_binary()]
    for opt in _SAFE_CONFIG:
        cmd += ["-c", opt]
    if protocol in PROTOCOLS:
        cmd += ["-c", f"protocol.{protocol}.allow=always"]
    if git_dir is not None:
        cmd += ["--git-dir", str(git_dir)]
    cmd += args
    budget.check()
    limit = budget.timeout_for(timeout)
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE if input_bytes is not None else
                            subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=safe_env(protocol), cwd="/", start_new_session=True)
    budget.register_child(proc.pid)
    try:
        out, err = proc.communicate(input_bytes, timeout=limit)
    except subprocess.TimeoutExpired as exc:
        _kill(proc)
        if budget.expired():
            raise budget.TimeLimitExceeded(budget.message()) from exc
        raise InputError(f"git {args[0]} timed out after {limit:.0f}s") from exc
    except BaseException:
        _kill(proc)
        raise
    finally:
        budget.unregister_child(proc.pid)
    done = subprocess.CompletedProcess(cmd, proc.returncode, out, err)
    if check and proc.returncode != 0:
        raise InputError(f"git {args[0]} failed: "
                         f"{git_error_text(err) or 'exit ' + str(proc.returncode)}")
    return done


def _kill(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass
    try:
        proc.communicate(timeout=5)
    except (subprocess.TimeoutExpired, OSError, ValueError):
        pass


def open_git(args: list[str], *, git_dir: Path) -> subprocess.Popen:
    """Start a long-running git command (e.g. `cat-file --batch`) with the same safety settings
    and no transport; the caller streams stdin/stdout and must call `close_git`."""
    cmd = [git_binary()]
    for opt in _SAFE_CONFIG:
        cmd += ["-c", opt]
    cmd += ["--git-dir", str(git_dir), *args]
    budget.check()
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=safe_env(None), cwd="/",
                            start_new_session=True)
    budget.register_child(proc.pid)
    return proc


def close_git(proc: subprocess.Popen, *, kill: bool = False) -> None:
    if kill:
        _kill(proc)
    else:
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            try:
                if stream:
                    stream.close()
            except OSError:
                pass
        try:
            proc.wait(timeout=budget.timeout_for(30))
        except subprocess.TimeoutExpired:
            _kill(proc)
    budget.unregister_child(proc.pid)
