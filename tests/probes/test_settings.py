"""Settings and their shipped defaults: dataclass fields and Helm values join code and compose."""

from __future__ import annotations

from dids.acquire import acquire
from dids.index.repo import build_index
from dids.index.settings import defaults_for


def _settings(repo, files):
    repo.commit(files)
    return build_index(acquire(str(repo.path))).settings


def test_dataclass_defaults_and_helm_values(repo):
    settings = _settings(repo, {
        "agent/config.py": "from dataclasses import dataclass\n\n\n@dataclass\nclass AgentOptions:\n"
                           "    max_steps: int = 25\n    sandbox: str = 'none'\n",
        "charts/agent/values.yaml": "agent:\n  sandbox:\n    enabled: false\n  replicas: 2\n",
    })
    code = {s.key: (s.value, s.line) for s in settings if s.source == "code"}
    assert code["max_steps"] == ("25", 6) and code["sandbox"] == ("none", 7)
    helm = {s.key: (s.value, s.line) for s in settings if s.source == "helm"}
    assert helm["agent.sandbox.enabled"] == ("false", 3)
    assert helm["agent.replicas"] == ("2", 4)
    assert defaults_for(settings, "agent.sandbox.enabled")[0].source == "helm"


def test_values_files_under_docs_or_examples_do_not_count(repo):
    settings = _settings(repo, {
        "docs/values.yaml": "agent:\n  sandbox:\n    enabled: true\n",
        "examples/docker-compose.yml": "services:\n  a:\n    environment:\n      X_SANDBOX: nsjail\n",
    })
    assert [s for s in settings if s.source in ("helm", "compose")] == []
