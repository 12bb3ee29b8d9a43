"""A README whose run step is a Makefile target (`uv sync`, then `make dev`): the scored path is
what the target's recipe runs, through `$(MAKE) -j2 server client` one level down; echo and cd
lines run nothing. A target the Makefile does not define, or whose recipe runs no program of the
repository, names no path."""

from __future__ import annotations

from dids.agent.entrypoints import make_recipe

from .repos import modelled

README = """# flow

```bash
uv sync
```

```bash
make {target}
```
"""

MAKEFILE = """.PHONY: dev
dev: ## Run both servers
\t@$(MAKE) -j2 server client

server:
\t@echo "Starting server..."
\t@uv run python server_main.py --port 6400 &

client:
\t@cd frontend && npm run dev

lint:
\truff check .
"""

SERVER = """import uvicorn
from fastapi import FastAPI

app = FastAPI()


@app.post("/run")
def run(task: str):
    return {"task": task}


if __name__ == "__main__":
    uvicorn.run(app, port=6400)
"""


def _repo(tmp_path_factory, target: str):
    return modelled(tmp_path_factory, {
        "pyproject.toml": '[project]\nname = "flow"\nversion = "0.1"\n',
        "README.md": README.replace("{target}", target), "Makefile": MAKEFILE,
        "server_main.py": SERVER})


def test_a_make_target_runs_what_its_recipe_runs(tmp_path_factory):
    m = _repo(tmp_path_factory, "dev")
    ep = m.model.entries
    assert ep.how == "README leading path"
    assert ep.readme.install.text == "uv sync"
    assert [(e.kind, e.target) for e in ep.main] == [("readme-run", "server_main.py")]
    assert make_recipe(m.index, ["-j2", "server", "client"]) == [
        ["uv", "run", "python", "server_main.py", "--port", "6400"], ["npm", "run", "dev"]]


def test_a_target_that_runs_no_program_of_the_repository_names_no_path(tmp_path_factory):
    m = _repo(tmp_path_factory, "lint")
    assert not any(e.kind == "readme-run" for e in m.model.entries.main)
    assert make_recipe(m.index, ["missing"]) == []
