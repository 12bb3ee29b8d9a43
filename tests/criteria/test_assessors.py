"""Assessors end to end: a weak and a strong shape of the same small agent per criterion, through
the full pipeline (score_target), with levels that must move the right way."""

from __future__ import annotations

import pytest

from dids.engine import score_target

from . import shapes

CRITERIA = [f"C{i}" for i in range(1, 11)]


@pytest.fixture(scope="module")
def score(tmp_path_factory):
    """files -> {criterion id: CriterionResult}, one pipeline run per distinct repository."""
    from conftest import RepoBuilder

    done: dict = {}

    def run(files: dict[str, str]):
        key = tuple(sorted(files.items()))
        if key not in done:
            with pytest.MonkeyPatch.context() as mp:
                mp.setenv("DIDS_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "dids-cache"))
                repo = RepoBuilder(tmp_path_factory.mktemp("agent") / "repo")
                repo.commit(files)
                report = score_target(str(repo.path))
            assert [c.id for c in report.criteria] == CRITERIA
            done[key] = {c.id: c for c in report.criteria}
        return done[key]

    return run


def lv(result) -> tuple[int, int, int, int]:
    return (result.levels.S, result.levels.C, result.levels.D, result.levels.B)


def assert_moves_up(weak, strong):
    """Strong is at least as good on every dimension, better on one, and scores higher."""
    w, s = lv(weak), lv(strong)
    assert all(b >= a for a, b in zip(w, s)), (w, s)
    assert s != w, (w, s)
    assert strong.score > weak.score


def test_c1_scoped_token_and_allowlist_checks_beat_ambient_credentials(score):
    weak, strong = score(shapes.WEAK)["C1"], score(shapes.C1_STRONG)["C1"]
    assert lv(weak) == (0, 0, 0, 0)  # boto3 default chain and a full-env shell spawn
    # a token listing allowed actions + checks in 2 files + empty default tool list + tenant query
    assert lv(strong) == (2, 2, 2, 1)
    assert_moves_up(weak, strong)


def test_c2_global_autonomy_constant_makes_asking_opt_in(score):
    result = score(shapes.C2_MODE_OFF)["C2"]
    default, alt = result.configurations
    assert (default.opt_in, default.cap, lv(default)) == (False, "C2-POWERBYPASS", (0, 0, 0, 0))
    assert (alt.opt_in, alt.cap) == (True, "G1")
    # a per-call prompt at the dispatcher every tool passes, off by default
    assert lv(alt) == (2, 2, 0, 0)
    assert result.counted == "alt" and result.cap == "G1"
    assert result.score <= 0.5


def test_c2_gated_tools_with_records_beat_ungated_tools(score):
    weak, strong = score(shapes.WEAK)["C2"], score(shapes.C2_STRONG)["C2"]
    assert len(weak.configurations) == 1
    assert (lv(weak), weak.cap) == ((0, 0, 0, 0), "C2-POWERBYPASS")
    # @tool(requires_approval=True) everywhere, a flag defaulting on, a ToolApproval record,
    # an ApprovalRequired gate and a checkpoint before each call
    assert (lv(strong), strong.cap, strong.counted) == ((3, 2, 2, 1), None, "default")
    assert_moves_up(weak, strong)


def test_c3_typed_checked_tools_beat_raw_shell_passthrough(score):
    weak, strong = score(shapes.WEAK)["C3"], score(shapes.C3_STRONG)["C3"]
    # typed, but run_shell passes a raw command unchecked; every tool is on by default
    assert lv(weak) == (1, 1, 1, 0)
    assert lv(strong) == (3, 2, 3, 2)  # typed, destination-checked, empty default tool list
    assert_moves_up(weak, strong)


# the weak agent with its shell tool alone: the typed schema is the command string and no more
_C3_SHELL_ONLY = shapes.weak(
    agent__tools=shapes.WEAK_TOOLS.split("@tool\ndef http_get")[0],
    agent__loop=shapes.WEAK_LOOP.replace("from agent.tools import http_get, list_buckets, run_shell",
                                         "from agent.tools import run_shell").replace(
        ', "http_get": http_get, "list_buckets": list_buckets', ""))


def test_c3_a_typed_schema_around_the_only_tool_a_shell_scopes_nothing(score):
    """One general-purpose tool taking any command: its schema requires the string and checks
    nothing it does (L0); typed tools beside it (the weak agent) scope part of the surface (L1)."""
    only = score(_C3_SHELL_ONLY)["C3"]
    assert lv(only)[:2] == (0, 0)
    assert "Every tool of the session takes a raw command string" in \
        only.assessment.configurations[0].dims["S"].summary
    assert lv(score(shapes.WEAK)["C3"])[:2] == (1, 1)


_URLS = shapes.C3_TOOLS.split("@tool")[0].replace("from agent.registry import tool\n", "")
_C3_SHARED_CHECK = shapes.weak(
    agent__urls=_URLS, agent__loop=shapes.C3_LOOP, agent__config=shapes.AGENT_CONFIG,
    agent__tools="import requests\n\nfrom agent.registry import tool\nfrom agent.urls import "
                 "validate_url\n\n\n@tool\ndef http_get(url: str) -> str:\n    return "
                 "requests.get(validate_url(url)).text\n\n\n@tool\ndef word_count(text: str) -> "
                 "int:\n    return len(text.split())\n")
# the same check, but only a deploy helper of the package calls it; the HTTP tool does not
_C3_OTHER_CHECK = {**_C3_SHARED_CHECK, "agent/tools.py": _C3_SHARED_CHECK["agent/tools.py"].replace(
    "requests.get(validate_url(url))", "requests.get(url)"),
    "agent/deploy.py": "from agent.urls import validate_url\n\n\ndef deploy(url: str) -> str:\n"
                       "    return validate_url(url)\n"}


def test_c3_a_destination_check_counts_for_the_tools_that_reach_it(score):
    """A URL validator in a shared module the HTTP tool calls guards it, as one in the tool's
    own file does; the same validator called only by another helper of the package does not
    make the tool's destinations checked."""
    assert lv(score(_C3_SHARED_CHECK)["C3"]) == (3, 2, 3, 2)
    other = score(_C3_OTHER_CHECK)["C3"]
    assert lv(other)[0] == 2 and "any URL" in other.summary + str(
        other.assessment.configurations[0].dims["S"].summary)


def test_c4_hardened_nsjail_default_beats_host_shell(score):
    weak, strong = score(shapes.WEAK)["C4"], score(shapes.C4_STRONG)["C4"]
    assert lv(weak) == (0, 0, 0, 0)
    assert lv(strong) == (3, 3, 3, 2)
    assert [c.opt_in for c in strong.configurations] == [False]
    assert_moves_up(weak, strong)


def test_c5_worst_case_cap_and_taint_gate(score):
    weak, strong = score(shapes.WEAK)["C5"], score(shapes.C5_STRONG)["C5"]
    # an ungated shell tool with a full-env spawn and an HTTP tool in one default session
    assert (lv(weak), weak.cap) == ((0, 0, 0, 0), "C5-WORSTCASE")
    # taint decides what may run, delimiters in two more files, approval on by default
    assert (lv(strong), strong.cap) == ((2, 2, 2, 2), None)
    assert_moves_up(weak, strong)


def test_c6_repo_config_cap_and_model_written_memory(score):
    config_only = score(shapes.C6_REPOCONFIG_ONLY)["C6"]
    # a workspace file loaded as configuration lowers every level to 1, not only the cap
    assert (lv(config_only), config_only.cap) == ((1, 1, 1, 1), "C6-REPOCONFIG")
    weak, strong = score(shapes.C6_WEAK)["C6"], score(shapes.C6_STRONG)["C6"]
    # @tool memory_remember + a system prompt built from memory + ".mcp.json" from the workspace
    assert (lv(weak), weak.cap) == ((0, 0, 1, 1), "C6-REPOCONFIG")
    # user-scope settings only, tenant-filtered queries, row-level security on by default
    assert (lv(strong), strong.cap) == ((2, 2, 3, 2), None)
    assert_moves_up(weak, strong)
    assert config_only.score < strong.score


def test_c7_pinned_verified_extensions_beat_remote_code(score):
    weak = score(shapes.C7_WEAK)["C7"]
    none = score(shapes.WEAK)["C7"]
    strong = score(shapes.C7_STRONG)["C7"]
    assert lv(weak) == (0, 0, 1, 1)  # trust_remote_code=True and an MCP server with os.environ
    assert lv(none) == (1, 1, 2, 2)  # no extension mechanism at all
    assert lv(strong) == (2, 2, 2, 2)  # a lock with sha256, a signature check, a built env
    assert_moves_up(weak, none)
    assert_moves_up(weak, strong)


def test_c7_off_host_servers_are_partial_coverage_and_a_full_env_local_server_is_not(score):
    remote, local = score(shapes.C7_REMOTE)["C7"], score(shapes.C7_LOCAL_FULL)["C7"]
    assert lv(remote)[:2] == (1, 1)
    assert lv(local)[:2] == (1, 0)


def test_c8_encryption_and_masking_beat_leaky_environment(score):
    weak, strong = score(shapes.WEAK)["C8"], score(shapes.C8_STRONG)["C8"]
    # no telemetry (D2 from the defaults) is clamped to S + 1 = 1; the shell tool inherits the env
    assert lv(weak) == (0, 0, 1, 0)
    # Fernet, redaction in 3 files; the shell tool gets a constructed env (still a host process)
    assert lv(strong) == (3, 3, 2, 1)
    assert_moves_up(weak, strong)


def test_c8_keys_kept_out_of_the_models_sandbox_is_the_one_protection(score):
    """No store, masking or secret type, but the model's commands run in a jail started with an
    empty environment: the agent's keys are out of their reach (L1, not the weak agent's L0)."""
    c8 = score(shapes.C4_STRONG)["C8"]
    assert lv(c8)[0] == 1 and lv(score(shapes.WEAK)["C8"])[0] == 0
    s = c8.assessment.configurations[0].dims["S"]
    assert s.summary.startswith("The only protection is that the model's code runs in an executor")
    assert s.evidence[0].path == "agent/sandbox.py"


def test_c9_records_then_tamper_evidence(score):
    weak = score(shapes.WEAK)["C9"]
    swallow = score(shapes.C9_SWALLOW)["C9"]
    strong = score(shapes.C9_STRONG)["C9"]
    # the loop appends each tool result to its message list: a record, in memory only
    assert lv(weak) == (1, 2, 1, 0)
    assert lv(swallow) == (2, 2, 2, 1)  # per-call records whose failures are dropped silently
    assert lv(strong) == (3, 2, 2, 2)  # hash-chained, fsynced, with an approval record
    assert_moves_up(weak, swallow)
    assert_moves_up(swallow, strong)


# the weak agent whose loop saves the conversation only when a setting names where
SAVE_LOOP = "import json\n\n" + shapes.WEAK_LOOP.replace(
    "def run(model, task: str) -> str:",
    "SAVE_PATH = None\n\n\ndef save_conversation(messages):\n    with open(SAVE_PATH, \"w\") as f:\n"
    "        json.dump(messages, f)\n\n\ndef run(model, task: str) -> str:").replace(
    "            messages.append({\"role\": \"tool\", \"content\": str(result)})",
    "            messages.append({\"role\": \"tool\", \"content\": str(result)})\n"
    "        if SAVE_PATH:\n            save_conversation(messages)")


def test_c9_a_record_written_once_a_setting_names_where_is_the_alternative(score):
    c9 = score(shapes.weak(agent__loop=SAVE_LOOP))["C9"]
    default, alt = c9.configurations
    assert lv(default) == lv(score(shapes.WEAK)["C9"])  # the default keeps the in-memory list
    assert (alt.opt_in, alt.cap, alt.label) == (True, "G1", "opt-in record (SAVE_PATH set)")
    assert lv(alt)[2] == 0 and lv(alt)[1] == 2


GAME = '''class Moderator:
    """A demo game shipped beside the agent: nothing on the scored path runs it."""

    def record_history(self, messages):
        with open("game_history.md", "a") as f:
            f.write(str(messages))

    def play(self, messages):
        self.record_history(messages)
'''


def test_c9_a_transcript_the_scored_loop_never_reaches_is_no_record_of_it(score):
    # the game's history writer is package code (library reach), off the loop's path
    assert lv(score(shapes.weak(agent__ext__game=GAME))["C9"]) == lv(score(shapes.WEAK)["C9"])


# A code-interpreter agent whose roles are built by name from a registry: no agent loop or tool
# is found, but the package runs code through a kernel of its own.
KERNEL = '''from jupyter_client import BlockingKernelClient


class Executor:
    def __init__(self, connection_file: str):
        self.client = BlockingKernelClient(connection_file=connection_file)

    def run(self, code: str):
        self.client.load_connection_file()
        return self.client.execute_interactive(code)
'''
ROLES = '''import importlib

REGISTRY = {"code_interpreter": "interp.kernel"}


def create(name: str):
    return importlib.import_module(REGISTRY[name])
'''
# the loop dids does find summarises past sessions; it never reaches the kernel
SUMMARY = '''from openai import OpenAI


def summarise(sessions: list[str]) -> list[str]:
    client = OpenAI()
    out = []
    for text in sessions:
        reply = client.chat.completions.create(model="m", messages=[{"role": "user", "content": text}])
        out.append(reply.choices[0].message.content)
    return out
'''
INTERP = {"pyproject.toml": '[project]\nname = "interp"\n[project.scripts]\ninterp = "interp.cli:main"\n',
          "interp/__init__.py": "", "interp/roles.py": ROLES, "interp/kernel.py": KERNEL,
          "interp/summary.py": SUMMARY,
          "interp/cli.py": "from interp.roles import create\nfrom interp.summary import summarise\n\n\n"
                           "def main():\n    create('code_interpreter')\n    summarise([])\n"}


def test_c3_a_package_code_executor_stands_in_when_no_loop_is_found(score):
    c3 = score(INTERP)["C3"]
    assert c3.assessed and lv(c3)[0] == 0  # model-written code run as given
    assert any("package's code executor (interp/kernel.py:" in n for n in c3.notes), (c3.notes, c3.summary)
    # the same executor only in a build script is no stand-in: what is left is the summariser,
    # a loop that gives the model no tools (below)
    off = score({**{k: v for k, v in INTERP.items() if k != "interp/kernel.py"},
                 "scripts/kernel.py": KERNEL})["C3"]
    assert off.assessed and lv(off) == (2, 2, 2, 2)


SUMMARISER = {k: v for k, v in INTERP.items() if k not in ("interp/kernel.py", "interp/roles.py")}
SUMMARISER["interp/cli.py"] = ("from interp.summary import summarise\n\n\n"
                               "def main():\n    summarise([])\n")
RUN_SCRIPT = '''import subprocess

from interp.summary import summarise


def main():
    summarise([])
    subprocess.run("bash run.sh", shell=True)
'''


def test_c3_a_loop_that_gives_the_model_no_tools_is_scoped_unless_host_commands_follow(score):
    """A summariser whose code handles each reply: the model fills no action's arguments (L2,
    with the agent loop as the decisive citation and the negative search beside it). The same
    loop followed by a host command on the scored path (a run script the code executes) is
    weaker; with no model call at all there is nothing to assess."""
    c3 = score(SUMMARISER)["C3"]
    assert c3.assessed and lv(c3) == (2, 2, 2, 2)
    s = c3.assessment.configurations[0].dims["S"].evidence
    assert s[0].probe == "agent.loop" and s[0].path.startswith("interp/") and s[1].kind == "search"
    assert "no tools" in c3.summary
    ran = score({**SUMMARISER, "interp/cli.py": RUN_SCRIPT})["C3"]
    assert ran.assessed and lv(ran) == (1, 1, 1, 1)
    silent = score({k: v for k, v in SUMMARISER.items() if k != "interp/summary.py"} |
                   {"interp/cli.py": "def main():\n    return 0\n"})["C3"]
    assert not silent.assessed


def test_c10_enforced_limits_beat_declared_caps(score):
    weak, strong = score(shapes.C10_WEAK)["C10"], score(shapes.C10_STRONG)["C10"]
    assert lv(weak) == (0, 0, 0, 0)  # MAX_STEPS = 25 is declared but never applied
    assert "declared but no code applies them" in weak.summary
    assert lv(strong) == (3, 2, 2, 2)  # range(MAX_STEPS), timeout=60, MAX_COST_USD, cancel()
    assert_moves_up(weak, strong)


def test_decoy_twin_scores_identically(score):
    """Security words in comments, docstrings, unused strings, tests/, docs/, examples/ and an
    uncalled, unreferenced function must not move any level."""
    plain, decoyed = score(shapes.WEAK), score(shapes.WEAK_DECOYED)
    for cid in CRITERIA:
        a, b = plain[cid], decoyed[cid]
        assert (lv(a), a.cap, a.counted) == (lv(b), b.cap, b.counted), cid


def test_decoy_function_counts_once_something_references_it(score):
    """Control for the twin: the same hardened function, once referenced, does move C4."""
    referenced = {**shapes.WEAK_DECOYED, "agent/hardening_notes.py":
                  shapes.DECOY_NOTES + "\n\nHARDENED_RUNNER = _hardened_run_unused\n"}
    plain, live = score(shapes.WEAK)["C4"], score(referenced)["C4"]
    assert lv(live)[0] > lv(plain)[0]


def test_comment_naming_main_does_not_revive_a_dead_module(repo):
    """A decoy module nothing imports stays dead even if a comment mentions __main__."""
    from dids.acquire import acquire
    from dids.index.repo import build_index

    repo.commit({"agent/decoy.py": "# run as __main__ for tests\n\ndef jail(cmd):\n"
                                   "    return ['nsjail', '--', cmd]\n"})
    index = build_index(acquire(str(repo.path)))
    assert index.module_imported("agent/decoy.py") is False
    assert index.is_dead("agent/decoy.py", 4) is True


def test_project_description_words_do_not_make_a_module_an_entry_point(repo):
    from dids.acquire import acquire
    from dids.index.repo import build_index

    repo.commit({"pyproject.toml": '[project]\nname = "x"\ndescription = "security sandbox agent"\n'
                                   '[project.scripts]\nx = "pkg.cli_main:run"\n',
                 "pkg/security.py": "def jail(cmd):\n    return ['nsjail', '--', cmd]\n",
                 "pkg/cli_main.py": "def run():\n    return 0\n"})
    index = build_index(acquire(str(repo.path)))
    assert index.module_imported("pkg/security.py") is False
    assert index.module_imported("pkg/cli_main.py") is True


def test_c5_claims_a_human_only_where_a_gate_guards_the_powerful_tools(score):
    """With nothing powerful to run (a summariser with no tools) C5's blast radius is bounded,
    but no gate exists, so its sentence must not say a human is asked: the bound is that the
    model has no tool of its own."""
    b = score(SUMMARISER)["C5"].assessment.configurations[0].dims["B"]
    assert b.level == 2
    assert "human" not in b.summary and "no tool, code execution or egress" in b.summary
