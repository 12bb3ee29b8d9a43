"""The report's picture of the agent: the JSON `agent` object, the Mermaid flowchart and prose."""

from dids.render.picture import mermaid, prose


def _agent(**over):
    base = {
        "scored_configuration": {"how": "README leading path", "install": "pip install x",
                                 "run": ["x run"], "shipped_defaults": [],
                                 "entry_points": [{"kind": "readme-run", "name": "x run",
                                                   "declared_at": "README.md:3", "target": "x.cli:main",
                                                   "node": "x/cli.py::main"}]},
        "loops": [{"kind": "loop", "at": "x/agent.py:10-20", "function": "Agent.run",
                   "asks_model_at": ["x/agent.py:12"], "calls_to_model": 0}],
        "tools": [{"name": "shell", "at": "x/tools.py:5", "capabilities": ["exec", "shell"],
                   "registration": "@tool", "reach": "default"},
                  {"name": "read", "at": "x/tools.py:9", "capabilities": ["read_only"],
                   "registration": "@tool", "reach": "default"}],
        "executors": [{"class": "host", "at": "x/tools.py:6", "env": "inherit", "reach": "default",
                       "model_driven": True},
                      {"class": "container", "at": "x/docker.py:3", "env": "built",
                       "reach": "opt-in:sandbox", "model_driven": True}],
        "gates": [], "sandboxes": [],
    }
    base.update(over)
    return base


def test_flowchart_draws_entry_loop_tools_and_executors():
    chart = mermaid(_agent())
    assert chart.startswith("flowchart LR")
    assert 'E0["readme run: x run"]' in chart
    assert "E0 --> L0" in chart
    assert "shell: exec,shell" in chart and "read: read only" in chart
    assert "T0 --> X0" in chart  # the host executor behind the powerful tool
    assert "-. opt-in .-> X1" in chart and "style X1 stroke-dasharray" in chart


def test_gate_on_the_path_sits_between_loop_and_tools():
    chart = mermaid(_agent(gates=[{"how": "prompt", "at": "x/agent.py:15", "reach": "default",
                                   "inside_a_tool": False}]))
    assert "L0 --> G" in chart and "G --> T0" in chart


def test_no_loop_and_no_tools_are_said_not_drawn_as_nothing():
    chart = mermaid(_agent(loops=[], tools=[], executors=[]))
    assert "no agent loop found" in chart and "no tool or executor found" in chart
    text = prose(_agent(loops=[], tools=[], executors=[]))
    assert "No agent loop was found" in text and "holds 0 tools" in text


def test_hostile_names_cannot_break_out_of_a_label_or_the_code_block():
    evil = 'x"] --> Z\n```\nclick Z href "javascript:alert(1)"\u202e'
    chart = mermaid(_agent(tools=[{"name": evil, "at": "a:1", "capabilities": ["exec"],
                                   "registration": "@tool", "reach": "default"}]))
    assert "```" not in chart and "\u202e" not in chart and '"]  -->' not in chart
    label_lines = [ln for ln in chart.splitlines() if ln.strip().startswith("T0[")]
    assert len(label_lines) == 1 and label_lines[0].count('"') == 2
    # one tool: exactly its node and edge fewer than the two-tool chart, nothing injected
    assert len(chart.splitlines()) == len(mermaid(_agent()).splitlines()) - 2


def test_prose_counts_and_plurals():
    text = prose(_agent())
    assert "The agent loop is Agent.run (x/agent.py:10-20); it asks the model directly." in text
    assert "holds 2 tools; the model's actions run in host." in text


def test_scored_sentence_joins_the_install_and_a_console_script_with_then():
    from dids.agent_view import scored_sentence

    agent = _agent(scored_configuration={
        "how": "console scripts", "install": "pip install x", "run": [], "shipped_defaults": [],
        "entry_points": [{"kind": "console-script", "name": "x", "target": "x.cli:app"}]})
    assert scored_sentence(agent, None) == ("“pip install x” then the console script “x” (x.cli:app) "
                                            "(console scripts); agent loop at x/agent.py:10-20.")
