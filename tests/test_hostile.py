"""The scanned repository is hostile: nothing in it runs, nothing outside it is read, every
bound holds and is reported, and its text cannot inject Markdown into the card.

Every fixture is generated at test time in tmp_path."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from make_fixture_repo import ENV, git  # noqa: E402  (scripts/ is put on sys.path by conftest)

BIG = 50 * 1024 * 1024
CANARY_AWS = "AKIAHOSTILECANARY0000"
CANARY_ELSEWHERE = "ELSEWHERE-CANARY-7f3a"


def _sh(markers: Path, name: str) -> str:
    return f"#!/bin/sh\ntouch '{markers}/{name}'\ncat\n"


def _exe(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def _write(root: Path, rel: str | bytes, data: bytes) -> None:
    p = root / (os.fsdecode(rel) if isinstance(rel, bytes) else rel)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(data)


def _head(path: Path) -> str:
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=path, env=ENV, capture_output=True,
                          text=True, check=True).stdout.strip()


def _arm(repo: Path, markers: Path) -> None:
    """Hooks and repository-local config that would write a marker if git ever ran them."""
    hooks = repo / ".git" / "hooks"
    for name in ("post-checkout", "post-merge", "pre-commit", "post-commit", "reference-transaction",
                 "post-index-change", "pre-auto-gc", "fsmonitor-watchman", "post-rewrite",
                 "pre-push", "push-to-checkout", "update", "post-update"):
        _exe(hooks / name, _sh(markers, f"hook-{name}"))
    evil = repo / ".git" / "evil"
    for name in ("smudge", "clean", "process", "textconv", "fsmonitor", "pager", "ssh", "askpass",
                 "packhook", "hookspath-hook", "alternate"):
        _exe(evil / name, _sh(markers, f"cfg-{name}"))
    _exe(evil / "hooks" / "post-checkout", _sh(markers, "cfg-hookspath"))
    for key, value in (
        ("filter.evil.smudge", f"{evil}/smudge"), ("filter.evil.clean", f"{evil}/clean"),
        ("filter.evil.process", f"{evil}/process"), ("filter.evil.required", "true"),
        ("diff.evil.textconv", f"{evil}/textconv"), ("core.fsmonitor", f"{evil}/fsmonitor"),
        ("core.pager", f"{evil}/pager"), ("core.sshCommand", f"{evil}/ssh"),
        ("core.askPass", f"{evil}/askpass"), ("core.hooksPath", f"{evil}/hooks"),
        ("uploadpack.packObjectsHook", f"{evil}/packhook"),
        ("core.alternateRefsCommand", f"{evil}/alternate"),
    ):
        git(repo, "config", key, value)


@pytest.fixture
def hostile(tmp_path):
    markers = tmp_path / "markers"
    markers.mkdir()
    home = tmp_path / "home"
    (home / ".aws").mkdir(parents=True)
    (home / ".aws" / "credentials").write_text(
        f"[default]\naws_access_key_id = {CANARY_AWS}\naws_secret_access_key = x\n")

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    git(elsewhere, "init", "-q")
    _write(elsewhere, "secret.py", f"TOKEN = '{CANARY_ELSEWHERE}'\n".encode())
    git(elsewhere, "add", "-A")
    git(elsewhere, "commit", "-q", "-m", "elsewhere")
    _arm(elsewhere, markers)

    repo = tmp_path / "hostile"
    repo.mkdir()
    git(repo, "init", "-q")
    _write(repo, "agent/tool.py", b"import subprocess, os\n\n"
           b"def run(cmd):\n    return subprocess.run(cmd, shell=True, env=os.environ)\n")
    _write(repo, "big.txt", b"A" * BIG)  # one 50 MB line
    _write(repo, "x.py", b"\x7fELF\x02\x01\x01\x00\x00\x00" + bytes(range(256)) * 16)
    _write(repo, "latin.py", "# café, naïve\nimport os\nos.system('ls')  # \xe9\n"
           .encode("latin-1") + b"\xff\xfe tail\n")
    _write(repo, "broken.py", b"def f(:\n    return ((\nclass\n    x = [\n")
    _write(repo, "minified.py", b"x = 1;" * 6000 + b"\n")  # one 36 000-character line
    _write(repo, "deep.py", b"x = " + b"f(\n" * 40000 + b"1" + b")\n" * 40000)
    _write(repo, "new\nline.py", b"import os\nos.system('echo newline')\n")
    _write(repo, "-rf.py", b"print('leading dash')\n")
    _write(repo, "sp ace.py", b"print('space')\n")
    _write(repo, "ünï©ødé.py", b"print('unicode')\n")
    _write(repo, b"caf\xe9.py", b"print('latin-1 name')\n")
    _write(repo, ".gitattributes", b"* filter=evil diff=evil\n")
    _write(repo, ".gitmodules", f'[submodule "sub"]\n\tpath = sub\n\turl = file://{elsewhere}\n'
           .encode())
    os.symlink("/etc/passwd", repo / "passwd_link")
    os.symlink(str(home / ".aws"), repo / "aws_link")
    os.symlink(str(home / ".aws" / "credentials"), repo / "agent" / "creds.py")
    os.symlink("../../../../../../etc", repo / "up")
    git(repo, "add", "-A")
    git(repo, "update-index", "--add", "--cacheinfo", f"160000,{_head(elsewhere)},sub")
    git(repo, "commit", "-q", "-m", "hostile")
    _arm(repo, markers)
    return {"repo": repo, "markers": markers, "home": home, "elsewhere": elsewhere}


def _exported_files(cache: Path) -> list[Path]:
    return [p for p in (cache / "corpus").rglob("*")] if (cache / "corpus").exists() else []


def test_hostile_repo_scores_safely(cli, hostile, monkeypatch, tmp_path_factory):
    monkeypatch.setenv("HOME", str(hostile["home"]))
    repo = hostile["repo"]
    passwd = Path("/etc/passwd").read_text(errors="replace").splitlines()
    secrets = [CANARY_AWS, CANARY_ELSEWHERE] + [ln for ln in passwd[:3] if len(ln) > 8]

    md = cli("score", str(repo), "--no-cache")
    js = cli("score", f"file://{repo}", "--format", "json", "--no-cache")
    for proc in (md, js):
        assert "Traceback" not in proc.stderr
        for secret in secrets:
            assert secret not in proc.stdout
    assert sorted(p.name for p in hostile["markers"].iterdir()) == []

    # nothing outside the tree was read: the packed search corpus holds no link and no secret
    cache = Path(os.environ["DIDS_CACHE_DIR"])
    for p in _exported_files(cache):
        assert not p.is_symlink(), p
        if p.is_file():
            text = p.read_bytes()
            assert all(s.encode() not in text for s in secrets), p

    data = json.loads(js.stdout)
    lim = " ".join(data["limitations"])
    assert "big.txt (" not in lim  # grouped by reason, then paths
    assert re.search(r"larger than 1048576 bytes \(1\): big\.txt", lim)
    assert re.search(r"binary content \(1\): x\.py", lim)
    assert re.search(r"a line longer than 20000 characters \(1\): minified\.py", lim)
    assert re.search(r"submodule \(never fetched\) \(1\): sub", lim)
    assert "4 symbolic links were reported" in lim
    for link, target in (("passwd_link", "/etc/passwd"), ("aws_link", str(hostile["home"] / ".aws")),
                         ("agent/creds.py", "credentials"), ("up", "../../../../../../etc")):
        assert link in lim and target in lim
    assert data["repo"]["url"] == f"file://{repo}"

    card = md.stdout
    limits_md = card.split("## Limitations", 1)[1]
    for name in ("big.txt", "x.py", "minified.py", "passwd_link", "aws_link", "/etc/passwd"):
        assert name in limits_md, name
    # odd names were indexed, with readable text in place of undecodable bytes
    files = data["stats"]["files"]
    assert files >= 8
    assert data["criteria"][3]["levels"]["S"] == 0  # the shell spawn in agent/tool.py was seen


def test_no_transport_for_local_targets(hostile, monkeypatch):
    """A local target may not reach any remote its config names (e.g. a lazy fetch)."""
    from dids.acquire.safegit import run_git

    proc = run_git(["ls-remote", f"file://{hostile['elsewhere']}"], check=False)
    assert proc.returncode != 0 and b"not allowed" in proc.stderr
    proc = run_git(["ls-remote", f"file://{hostile['elsewhere']}"], protocol="https", check=False)
    assert proc.returncode != 0 and b"not allowed" in proc.stderr
    proc = run_git(["ls-remote", f"file://{hostile['elsewhere']}"], protocol="file")
    assert proc.returncode == 0
    assert sorted(p.name for p in hostile["markers"].iterdir()) == []


def test_unsupported_scheme_and_credentials(cli, sample_repo):
    proc = cli("score", "ext::sh -c touch% /tmp/dids-pwned", check_rc=2)
    assert "unsupported URL scheme" in proc.stderr and len(proc.stderr.splitlines()) == 1
    assert not Path("/tmp/dids-pwned").exists()
    from dids.acquire.source import display_url

    assert display_url("https://user:tok3n@github.com/a/b.git") == "https://github.com/a/b.git"
    assert display_url("ssh://git:pw@host/a.git") == "ssh://git@host/a.git"


def test_timeout_exits_2_with_one_line(cli, sample_repo):
    proc = cli("score", str(sample_repo), "--timeout", "0.001", "--no-cache", check_rc=2)
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "--timeout" in lines[0] and "Traceback" not in proc.stderr
    assert proc.stdout == ""


def test_bad_output_path_is_bad_input(cli, sample_repo, tmp_path):
    proc = cli("score", str(sample_repo), "-o", str(tmp_path / "no" / "such" / "dir" / "x.md"),
               check_rc=2)
    assert proc.stderr.startswith("dids: error: cannot write")


def test_limits_options_are_applied(cli, sample_repo):
    data = json.loads(cli("score", str(sample_repo), "--format", "json", "--max-file-bytes",
                          "64", "--no-cache").stdout)
    assert "larger than 64 bytes" in " ".join(data["limitations"])


# --- Markdown injection -------------------------------------------------------------------

EVIL = "[x](http://evil) <script>alert(1)</script> | \u202e www.evil.com &#x202e;"


def _unescaped_pipes(line: str) -> int:
    return len(re.findall(r"(?<!\\)\|", line))


def test_markdown_injection(cli, tmp_path):
    repo = tmp_path / "evil<script>|[x]\u202e"
    repo.mkdir()
    git(repo, "init", "-q")
    tool = (b"import subprocess, os\n\n"
            b"def run(cmd):\n    return subprocess.run(cmd, shell=True, env=os.environ)\n")
    for rel in ("agent/<script>alert(1)<b>|x|[x](http:evil)\u202e.py",
                "agent/`tick`|[y](javascript:alert(1)).py", "agent/tool.py"):
        _write(repo, rel, tool)
    _write(repo, "pyproject.toml", f'[project]\nname = "x"\ndescription = "{EVIL}"\n'.encode())
    _write(repo, "<img src=x onerror=alert(1)>.bin", b"\x00\x01binary")
    os.symlink(EVIL, repo / "link|<script>\u202e")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "inject")

    out = cli("score", str(repo), "--no-cache").stdout
    assert "<script" not in out and "<img" not in out and "<b>" not in out
    assert "\u202e" not in out and "&#x202e;" not in out
    assert not re.search(r"(?<!\\)\[x(?<!\\)\]\(", out)  # no live [x](...) link syntax
    assert not re.search(r"(?i)(?<![\\/])https?://evil|(?<!\\)www\.evil", out)  # no autolink
    assert "alert(1)" in out  # the text is shown, escaped, not dropped

    html = MarkdownIt("commonmark").enable("table").render(out)
    assert "<script" not in html and "<img" not in html
    assert "evil" not in " ".join(re.findall(r'href="([^"]*)"', html))
    assert "javascript:" not in " ".join(re.findall(r'href="([^"]*)"', html))
    assert html.count("<tr>") == 11  # the score table: header + 10 criteria, nothing injected
    rows = [ln for ln in out.splitlines() if ln.startswith("| C")]
    assert len(rows) == 10 and all(_unescaped_pipes(r) == 11 for r in rows)
    # every line that quotes repository text stays one line of the card's structure
    for line in out.splitlines():
        if "alert" in line:
            assert not line.startswith(("#", "<", "|", ">")), line
            assert not line.startswith("[") or line.startswith("[A] untrusted input:"), line


def test_internal_error_exits_3_with_one_line(sample_repo):
    """A bug surfaces as one line with a bug-report hint and exit 3, never a traceback."""
    import sys

    code = ("import sys, dids.engine as engine\n"
            "def boom(*a, **k):\n    raise RuntimeError('boom')\n"
            "engine.score_target = boom\n"
            "from dids.cli import main\n"
            "sys.argv = ['dids', 'score', sys.argv[1]]\nmain()\n")
    proc = subprocess.run([sys.executable, "-c", code, str(sample_repo)], capture_output=True,
                          text=True)
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert proc.returncode == 3 and "Traceback" not in proc.stderr
    assert len(lines) == 1 and "internal error" in lines[0] and "bug" in lines[0]
