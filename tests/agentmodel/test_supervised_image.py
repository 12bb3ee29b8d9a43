"""A README that runs a published image (`docker run org/agent`): the image's Dockerfile copies a
folder of the tree to `/` and starts a script that hands over to supervisord, whose programs
run the product (`/exe/run_A0.sh` → `exec python /a0/run_ui.py`). The entry is that Python
file of the tree; daemons supervisord also starts (sshd, cron) are not, and a program whose
script names no file of the tree gives nothing."""

from __future__ import annotations

import pytest

from .repos import modelled

README = """# Agent

```bash
docker pull example/agent
docker run -p 50001:80 example/agent
```
"""

DOCKERFILE = """FROM example/agent-base:latest
COPY ./fs/ /
RUN bash /ins/install.sh
CMD ["/exe/initialize.sh", "$BRANCH"]
"""

INIT = """#!/bin/bash
echo "Running initialization script..."
cp -r /per/* /
# exec python /a0/never.py
exec /usr/bin/supervisord -c /etc/supervisor/conf.d/supervisord.conf
"""

SUPERVISORD = """[supervisord]
nodaemon=true

[program:run_sshd]
command=/usr/sbin/sshd -D
autorestart=true

[program:run_search]
command=/exe/run_search.sh

[program:run_ui]
command=/exe/run_ui.sh
autorestart=true
"""

RUN_SEARCH = """#!/bin/bash
exec python /usr/local/searxng/webapp.py
"""

RUN_UI = """#!/bin/bash
python /a0/prepare.py --dockerized=true
echo "Starting..."
exec python /a0/run_ui.py \\
    --port=80 \\
    --host="0.0.0.0"
"""

RUN_UI_PY = """from agent import Agent


def main():
    Agent().loop()


if __name__ == "__main__":
    main()
"""

AGENT = """from openai import OpenAI


class Agent:
    def loop(self):
        client = OpenAI()
        while True:
            reply = client.chat.completions.create(model="m", messages=[])
            if reply:
                break
"""

FILES = {
    "README.md": README, "docker/run/Dockerfile": DOCKERFILE,
    "docker/run/fs/exe/initialize.sh": INIT, "docker/run/fs/exe/run_ui.sh": RUN_UI,
    "docker/run/fs/exe/run_search.sh": RUN_SEARCH,
    "docker/run/fs/etc/supervisor/conf.d/supervisord.conf": SUPERVISORD,
    "run_ui.py": RUN_UI_PY, "prepare.py": "print('prepare')\n", "agent.py": AGENT,
    "never.py": "print('never')\n",
}


@pytest.fixture(scope="module")
def image(tmp_path_factory):
    return modelled(tmp_path_factory, FILES)


def test_the_program_supervisord_runs_is_the_entry_of_the_published_image(image):
    docker = [(e.kind, e.target) for e in image.model.entries.main if e.kind == "docker"]
    assert docker == [("docker", "run_ui.py")]
    assert "run_ui.py::<module>" in image.model.entries.roots


def test_the_agent_loop_behind_the_image_is_on_the_default_path(image):
    assert image.reach("agent.py", "while True") == "default"
    assert [lp.path for lp in image.model.session.loops][:1] == ["agent.py"]


def test_setup_steps_comments_and_daemons_are_not_entries(image):
    targets = {e.target for e in image.model.entries.main}
    assert not targets & {"prepare.py", "never.py", "/usr/local/searxng/webapp.py"}


def test_without_the_supervisord_handover_the_image_names_no_entry(tmp_path_factory):
    files = dict(FILES)
    files["docker/run/fs/exe/initialize.sh"] = INIT.replace("exec /usr/bin/supervisord",
                                                            "exec /usr/bin/sleep")
    m = modelled(tmp_path_factory, files)
    assert not [e for e in m.model.entries.main if e.kind == "docker"]
