"""Container commands that run one of the repository's shell scripts: the process the script
`exec`s is the entry (setup steps before it are not), and a Celery worker's app module holds
the tasks the agent runs as."""

from __future__ import annotations

import pytest

from dids.agent.entrypoints import _shell_lines, _target_of_words

from .repos import modelled

COMPOSE = '''services:
  backend:
    build: .
    command: ["/app/wait-for-it.sh", "db:5432", "-t", "60", "--", "/app/entrypoint.sh"]
  worker:
    build: .
    command: ["/app/entrypoint_worker.sh"]
'''

ENTRY = '''#!/bin/bash
# python svc/never.py
python svc/setup_tools.py

alembic upgrade head
exec uvicorn main:app --host 0.0.0.0 \\
    --port 8001
'''

WORKER_SH = '''#!/bin/bash
python svc/setup_tools.py && \\
  celery -A svc.worker worker --beat
'''

WAIT = '''#!/bin/sh
# waits for a port, then runs what follows --
exec "$@"
'''

MAIN = '''from fastapi import FastAPI

app = FastAPI()


@app.post("/run")
def run(task: str):
    return task
'''

WORKER = '''from celery import Celery

app = Celery("svc")


@app.task
def execute_agent(agent_id):
    return agent_id
'''


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    return modelled(tmp_path_factory, {
        "docker-compose.yaml": COMPOSE, "entrypoint.sh": ENTRY, "entrypoint_worker.sh": WORKER_SH,
        "wait-for-it.sh": WAIT, "main.py": MAIN, "svc/__init__.py": "", "svc/worker.py": WORKER,
        "svc/setup_tools.py": "print('tools')\n", "svc/never.py": "print('never')\n"})


def test_the_process_a_script_execs_is_the_services_entry(served):
    main = [(e.kind, e.target) for e in served.model.entries.main]
    assert ("compose", "main:app") in main
    assert served.model.entries.how == "Docker/compose commands"


def test_a_celery_worker_names_its_app_module(served):
    assert ("compose", "svc.worker") in [(e.kind, e.target) for e in served.model.entries.main]
    assert served.reach("svc/worker.py", "return agent_id") == "default"


def test_setup_steps_and_commented_commands_of_the_script_are_not_entries(served):
    targets = {e.target for e in served.model.entries.main}
    assert "svc/setup_tools.py" not in targets and "svc/never.py" not in targets


@pytest.mark.parametrize("words,target", [
    ("celery -A svc.worker worker --beat", "svc.worker"),
    ("celery --app=svc.tasks:app worker", "svc.tasks"),
    ("celery worker", None),
    ("exec uvicorn main:app", "main:app"),
])
def test_target_of_a_worker_or_server_command(words, target):
    assert _target_of_words(words.split(), {}) == target


def test_shell_lines_join_continuations_and_drop_comments():
    assert _shell_lines("# c\n\nexec a \\\n  b\nc\n") == ["exec a  b", "c"]
