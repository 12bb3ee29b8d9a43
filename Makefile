PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test clean bench

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

# cold/warm `dids score` vs a parse-once baseline (and Bandit when installed) on a synthetic
# agent repository: make bench ARGS="--files 20000" or on a real one: ARGS="--repo /path"
bench: $(STAMP)
	$(BIN)/python scripts/bench.py $(ARGS)

clean:
	rm -rf $(VENV) .dids-work
