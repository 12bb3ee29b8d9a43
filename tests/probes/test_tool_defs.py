"""tools.yaml_command: templated command lines of YAML tool sets that a live loader reads."""

from __future__ import annotations

from .family import line_of
from .helpers import probe_findings

LOADER = '''import os

import yaml

THIS_DIR = os.path.dirname(__file__)


def load_builtin_toolsets():
    found = []
    for name in os.listdir(THIS_DIR):
        if name.endswith(".yaml"):
            with open(os.path.join(THIS_DIR, name)) as f:
                found.append(yaml.safe_load(f))
    return found
'''

K8S = '''toolsets:
  k8s/core:
    tools:
      - name: kubectl_find
        command: "kubectl get -A {{ kind }} | grep {{ keyword }}"
      - name: kubectl_get
        command: "kubectl get {{ kind }} {{ name }}"
      - name: kubectl_version
        command: "kubectl version --client"
'''

FILES = {"agent/__init__.py": "", "agent/toolsets/__init__.py": LOADER,
         "agent/toolsets/k8s.yaml": K8S, "agent/toolsets/argo.yaml": K8S.replace("k8s", "argo"),
         "agent/settings.py": 'ENABLED_BY_DEFAULT_TOOLSETS = "k8s/core"\n',
         "agent/main.py": "from agent.toolsets import load_builtin_toolsets\n\nload_builtin_toolsets()\n",
         "deploy/tools.yaml": K8S, "docs/toolsets/k8s.yaml": K8S}


def test_templated_commands_of_yaml_tool_sets_a_loader_reads(repo):
    found = probe_findings(repo, FILES, "tools.yaml_command")
    got = sorted((f.location.path, f.location.start_line, f.data["default_on"], f.data["shell"])
                 for f in found)
    find, get = line_of(K8S, "grep {{ keyword }}"), line_of(K8S, "{{ kind }} {{ name }}")
    assert got == [("agent/toolsets/argo.yaml", find, False, True),
                   ("agent/toolsets/argo.yaml", get, False, False),
                   ("agent/toolsets/k8s.yaml", find, True, True),
                   ("agent/toolsets/k8s.yaml", get, True, False)]
    # kubectl version fills nothing in; deploy/ has no loader; docs are not shipped
    one = next(f for f in found if f.location.path == "agent/toolsets/k8s.yaml"
               and f.location.start_line == find)
    assert one.claim == ("A tool defined in k8s.yaml runs `kubectl get -A {{ kind }} | grep "
                         "{{ keyword }}` as a shell line, with {{ kind }}, {{ keyword }} filled in "
                         "when it runs.")


def test_no_loader_no_tools(repo):
    files = {k: v for k, v in FILES.items() if k != "agent/toolsets/__init__.py"}
    files["agent/toolsets/__init__.py"] = "THIS_DIR = None\n"
    assert probe_findings(repo, files, "tools.yaml_command") == []
