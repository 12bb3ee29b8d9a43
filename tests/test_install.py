"""A non-editable install works: wheel → `pip install --target` into a temporary directory,
then `dids --version` and a real score from there. This is the layout (`--user`, `--target`,
distribution packages) where data read from `sys.prefix` or the source tree used to go missing.

The build runs offline: the test venv's setuptools, no build isolation, no dependencies; the
venv's site-packages come after the target on the path for pydantic, jinja2 and the rest."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.install


def _project_copy(dest: Path) -> Path:
    """The project's own files (what a clone holds), so the build leaves the worktree alone."""
    out = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT,
                         capture_output=True, check=True).stdout
    for rel in out.decode().split("\0"):
        if rel and (ROOT / rel).is_file() and not rel.startswith(("tests/", "fixtures/")):
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, dest / rel)
    return dest


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("install")
    src = _project_copy(tmp / "src")
    wheels, target = tmp / "wheels", tmp / "target"
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input", "-q"]
    env = {**os.environ, "PIP_NO_INDEX": "1"}  # never the network
    subprocess.run(pip + ["wheel", "--no-deps", "--no-build-isolation", "-w", str(wheels),
                          str(src)], check=True, env=env, capture_output=True)
    (wheel,) = wheels.glob("dids-*.whl")
    subprocess.run(pip + ["install", "--no-deps", "--target", str(target), str(wheel)],
                   check=True, env=env, capture_output=True)
    return wheel, target


def _run(target: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    # -S: no site processing, so the venv's editable dids (a .pth hook) is never imported;
    # the venv's plain site-packages follow the target for the third-party dependencies
    path = os.pathsep.join([str(target), sysconfig.get_paths()["purelib"],
                            sysconfig.get_paths()["platlib"]])
    env = {**os.environ, "PYTHONPATH": path}
    return subprocess.run([sys.executable, "-S", str(target / "bin" / "dids"), *args],
                          capture_output=True, text=True, env=env, cwd=cwd)


def test_wheel_ships_the_data(installed):
    import zipfile

    wheel, _ = installed
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "dids/data/rubrics/model.yaml" in names
    assert {f"dids/data/rubrics/c{i}.yaml" for i in range(1, 11)} <= names
    assert "dids/data/templates/card.md.j2" in names
    assert not any(".data/data/" in n for n in names)  # nothing installed under <prefix>/share
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)


def test_target_install_scores(installed, sample_repo, tmp_path):
    _, target = installed
    where = _run(target, "--version", cwd=tmp_path)
    assert where.returncode == 0, where.stderr
    from dids import __version__

    assert where.stdout.strip() == f"dids {__version__}"
    out = _run(target, "score", str(sample_repo), "--format", "json", "--no-cache", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["schema"] == "dids.report/1" and report["criteria"][0]["id"] == "C1"
    card = _run(target, "score", str(sample_repo), "--no-cache", cwd=tmp_path)
    assert card.returncode == 0, card.stderr
    assert card.stdout.startswith("# Defense-in-Depth Score:")
    # the code that ran is the installed copy, not this checkout
    probe = subprocess.run([sys.executable, "-S", "-c", "import dids; print(dids.__file__)"],
                           capture_output=True, text=True, cwd=tmp_path,
                           env={**os.environ, "PYTHONPATH": str(target)})
    assert Path(probe.stdout.strip()).is_relative_to(target)


def test_rg_is_found_beside_the_installed_script(installed, sample_repo, tmp_path):
    """--target and --user installs put ripgrep's `rg` beside the `dids` script, not beside
    the interpreter and maybe not on PATH: dids must look there."""
    _, target = installed
    rg = Path(sys.executable).parent / "rg"
    if not rg.is_file():
        pytest.skip("no ripgrep wheel binary in this environment")
    shutil.copy2(rg, target / "bin" / "rg")
    base = Path(getattr(sys, "_base_executable", sys.executable))
    path = os.pathsep.join([str(target), sysconfig.get_paths()["purelib"],
                            sysconfig.get_paths()["platlib"]])
    env = {**os.environ, "PYTHONPATH": path,
           "PATH": os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep)
                                   if not (Path(p) / "rg").exists())}
    proc = subprocess.run([str(base), "-S", str(target / "bin" / "dids"), "score",
                           str(sample_repo), "--no-cache", "--format", "json"],
                          capture_output=True, text=True, env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["schema"] == "dids.report/1"
