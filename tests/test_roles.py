"""File roles by path: test folders however they are named (`integration_tests/`,
`unit-tests/`, `tests_e2e/`) are tests, never credited as mechanisms; source folders whose
names only contain the letters of "test" are source."""

from __future__ import annotations

import pytest

from dids.index.inventory import role


@pytest.mark.parametrize("path", [
    "tests/test_agent.py", "integration_tests/_contract_support.py", "unit-tests/a.py",
    "pkg/e2e_tests/run.py", "tests_e2e/x.py", "tests_integration/x.py", "test-data/x.py",
    "src/pkg/smoke_tests/helpers.py", "pkg/test_loop.py", "pkg/loop_test.py"])
def test_test_folders_and_files(path):
    assert role(path, "python") == "test"


@pytest.mark.parametrize("path", [
    "src/latest/x.py", "my_contest/x.py", "src/attestation/x.py", "src/tests_runner.py",
    "pkg/testset/x.py", "agent/contests/x.py", "app/latest_tests.py"])
def test_source_whose_names_only_contain_test(path):
    assert role(path, "python") == "source"
