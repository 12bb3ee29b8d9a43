"""Acquisition failures say what happened: git's own cause (not its last advice line), a stale
cached clone names the commit it scores, and a missing --no-regress baseline says why."""

from __future__ import annotations

import subprocess

import pytest

from make_fixture_repo import ENV, git

SSH_FAILURE = (b"ssh: Could not resolve hostname example.invalid: Name or service not known\r\n"
               b"fatal: Could not read from remote repository.\n\n"
               b"Please make sure you have the correct access rights\n"
               b"and the repository exists.\n")
CORRUPT_REMOTE = (b"remote: Enumerating objects: 12, done.\n"
                  b"remote: aborting due to possible repository corruption on the remote side.\n"
                  b"error: git upload-pack: git-pack-objects died with error.\n"
                  b"fatal: fetch-pack: invalid index-pack output\n")


@pytest.mark.parametrize("stderr,expected", [
    (SSH_FAILURE, "ssh: Could not resolve hostname example.invalid: Name or service not known; "
                  "fatal: Could not read from remote repository."),
    (CORRUPT_REMOTE, "remote: aborting due to possible repository corruption on the remote "
                     "side.; fatal: fetch-pack: invalid index-pack output"),
    (b"hint: something\nfatal: repository 'https://tok3n@host/x.git/' not found\n",
     "fatal: repository 'https://host/x.git/' not found"),
    (b"just one line\n", "just one line"),
    (b"", ""),
])
def test_git_error_text_keeps_the_cause(stderr, expected):
    from dids.acquire.safegit import git_error_text

    assert git_error_text(stderr) == expected


def test_git_error_text_drops_terminal_controls():
    from dids.acquire.safegit import git_error_text

    text = git_error_text(b"\x1b[31mfatal: \x1b]8;;http://x\x07red\n")
    assert "\x1b" not in text and "\x07" not in text and text.endswith("red")


def _bare(path):
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=path, env=ENV, capture_output=True,
                          text=True, check=True).stdout.strip()


def test_stale_cached_clone_is_named(cli, repo, tmp_path):
    """A failed refresh of the cached clone still scores (offline work goes on), but says which
    commit, of which date, it scored."""
    # a tiny agent loop, so the only warning the run can give is the one under test
    old = repo.commit({"agent/tool.py": "def run(client):\n    while True:\n"
                                        "        client.chat.completions.create(messages=[])\n"})
    url = f"file://{repo.path}"
    first = cli("score", url, "--format", "json")
    assert '"commit": "' + old in first.stdout and first.stderr == ""
    from dids import cachedir

    (clone,) = (cachedir.configured_root()[0] / "repos").glob("*.git")
    subprocess.run(["git", "--git-dir", str(clone), "config", "remote.origin.url",
                    str(tmp_path / "gone.git")], check=True, env=ENV)
    repo.commit({"agent/more.py": "x = 1\n"})  # upstream moves on
    proc = cli("score", url, "--format", "json")
    assert '"commit": "' + old in proc.stdout
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, proc.stderr  # said once, though the run reads the clone twice
    assert lines[0].startswith(f"dids: warning: could not refresh the cached clone of {url} (")
    assert "does not appear to be a git repository" in lines[0]
    assert f"commit {old[:12]} of 2026-01-01" in lines[0] and "behind the remote" in lines[0]
    # a full SHA names one commit whatever the remote says: nothing to warn about
    pinned = cli("score", url, "--commit", old, "--format", "json")
    assert pinned.stderr == ""


def test_a_run_fetches_each_remote_once(repo, monkeypatch):
    from dids.acquire import source

    repo.commit({"a.py": "x = 1\n"})
    url = f"file://{repo.path}"
    source.acquire(url)  # the clone
    source._refreshed.clear()  # a new run
    calls = []
    real = source.run_git

    def counting(args, **kw):
        calls.append(args[0])
        return real(args, **kw)

    monkeypatch.setattr(source, "run_git", counting)
    source.acquire(url)
    source.acquire(url, "HEAD")
    assert calls.count("fetch") == 1


def _one_line(proc) -> str:
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = [x for x in proc.stderr.splitlines() if x.strip()]
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    return lines[0]


def test_shallow_clone_baseline_says_fetch_depth(cli, repo, tmp_path):
    repo.commit({"agent/tool.py": "import subprocess\n"})
    head = repo.commit({"agent/tool.py": "import subprocess, os\n"})
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{repo.path}", str(shallow))
    msg = _one_line(cli("gate", str(shallow), "--no-regress", check_rc=None))
    assert f"the parent of {head[:12]}" in msg and "is not in this clone" in msg
    assert "fetch-depth: 2" in msg and "first commit" not in msg


def test_unknown_base_says_unknown_revision(cli, repo):
    repo.commit({"agent/tool.py": "import subprocess\n"})
    repo.commit({"agent/tool.py": "import subprocess, os\n"})
    msg = _one_line(cli("gate", str(repo.path), "--no-regress", "--base", "origin/nope",
                        check_rc=None))
    assert "unknown revision 'origin/nope' for --base" in msg and "first commit" not in msg


def test_first_commit_baseline_says_first_commit(cli, repo):
    head = repo.commit({"agent/tool.py": "import subprocess\n"})
    msg = _one_line(cli("gate", str(repo.path), "--no-regress", check_rc=None))
    assert f"{head[:12]} is the first commit" in msg and "--baseline FILE" in msg
