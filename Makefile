PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/python scripts/make_fixture_repo.py fixtures/sample-agent .dids-work/sample-agent
	$(BIN)/dids score .dids-work/sample-agent

test: $(STAMP)
	$(BIN)/python -m pytest

clean:
	rm -rf $(VENV) .dids-work
