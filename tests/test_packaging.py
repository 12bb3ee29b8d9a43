"""Release hygiene: one version source, license text, changelog, security policy, project URLs,
and README references (pre-commit `rev:`, Action `uses:`) that name the release tag."""

from __future__ import annotations

import re
import tomllib
from importlib import metadata
from pathlib import Path

import dids

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
README = (ROOT / "README.md").read_text()


def test_one_version_source():
    project = PYPROJECT["project"]
    assert "version" not in project and "version" in project["dynamic"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "dids.__version__"}
    assert metadata.version("dids") == dids.__version__  # what pip installed says the same


def test_license_text_and_metadata():
    text = (ROOT / "LICENSE").read_text()
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text  # the full text, not a pointer to it
    project = PYPROJECT["project"]
    assert project["license"] == "Apache-2.0" and project["license-files"] == ["LICENSE"]
    assert not any(c.startswith("License ::") for c in project["classifiers"])  # PEP 639


def test_classifiers_and_urls():
    project = PYPROJECT["project"]
    assert "Programming Language :: Python :: 3.11" in project["classifiers"]
    assert "Topic :: Security" in project["classifiers"]
    assert project["urls"]["Homepage"] == dids.HOMEPAGE
    assert project["urls"]["Issues"] == dids.HOMEPAGE + "/issues"


def test_changelog_and_security_policy():
    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert re.search(rf"^## \[{re.escape(dids.__version__)}\]", changelog, re.M)
    security = (ROOT / "SECURITY.md").read_text()
    assert "Reporting a vulnerability" in security


def test_readme_refs_name_the_release_tag():
    tag = f"v{dids.__version__}"
    revs = re.findall(r"^\s*rev:\s*(\S+)", README, re.M)
    uses = re.findall(r"uses:\s*OWNER/dids@(\S+)", README)
    assert revs == [tag] and uses == [tag]
    assert "pre-commit install --hook-type pre-push" in README
