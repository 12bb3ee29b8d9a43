"""Probe findings of a synthetic repository with its agent model built, as the engine runs them.

family.py indexes without the agent model, so probes that read the session (records, loop caps,
agent.*) or the call graph (approval gates, command filters) see nothing there. This builds one
repository per module fixture with `index.agent = build_model(index)` first.
"""

from __future__ import annotations

import pytest

from agentmodel.repos import at, modelled  # noqa: F401  (re-exported for the probe tests)


def modelled_fixtures(live_files, decoy_files):
    """Module-scoped `live` and `decoys` fixtures: Modelled repositories (findings built)."""

    @pytest.fixture(scope="module")
    def live(tmp_path_factory):
        return modelled(tmp_path_factory, live_files)

    @pytest.fixture(scope="module")
    def decoys(tmp_path_factory):
        return modelled(tmp_path_factory, decoy_files)

    return live, decoys


def with_data(found, *keys):
    return [(f.location.path, f.location.start_line, *(f.data.get(k) for k in keys)) for f in found]
