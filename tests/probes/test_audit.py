"""audit.* probes: each fires on live agent code and stays silent on the same words elsewhere."""

from __future__ import annotations

import pytest

from .family import family_fixtures, index_findings, line_of, located, near_miss_tests

JOURNAL = '''import hashlib
import json
import logging
import os

logger = logging.getLogger(__name__)


class Journal:
    def __init__(self, path: str):
        self.fh = open(path, "a")
        self.last_hash = ""

    def append_tool_intent(self, tool_name: str, arguments: dict, tool_call_id: str) -> None:
        line = json.dumps({"tool": tool_name, "args": arguments, "id": tool_call_id})
        prev_hash = self.last_hash
        self.last_hash = hashlib.sha256((prev_hash + line).encode()).hexdigest()
        self.fh.write(line + "\\n")
        self.fh.flush()
        os.fsync(self.fh.fileno())


class AuditRecorder:
    def record(self, event: dict) -> None:
        try:
            self.sink.write(event)
        except Exception:
            logger.debug("audit write failed", exc_info=True)

    def flush_trail(self) -> None:
        try:
            self.sink.flush()
        except OSError:
            logger.warning("audit flush failed")


def load_settings(path: str) -> dict:
    try:
        return json.load(open(path))
    except Exception:
        pass
    return {}
'''

LOOP = '''from agent.admin import audit_log
from agent.journal import AuditRecorder, Journal, load_settings


class Loop:
    def __init__(self):
        self.journal = Journal("/var/log/agent.jsonl")
        self.recorder = AuditRecorder()
        self.settings = load_settings("settings.json")

    async def step(self, call, workflow, run_tool):
        self.journal.append_tool_intent(call.name, call.args, call.id)
        self.recorder.record({"tool": call.name})
        self.recorder.flush_trail()
        return await workflow.execute_child_workflow(run_tool, call.args, id=call.tool_call_id)


@audit_log("update_settings")
def update_settings(key: str, value: str) -> None:
    return None


async def serve(call, workflow, run_tool):
    return await Loop().step(call, workflow, run_tool)
'''

LIVE = {"agent/journal.py": JOURNAL, "agent/loop.py": LOOP}

PROSE = '''"""Audit notes.

    self.journal.append_tool_intent(call.name, call.args, call.id)
    os.fsync(fh.fileno())
    prev_hash = self.last_hash
    @audit_log("update_settings")
"""
import logging
import os

logger = logging.getLogger(__name__)

# self.journal.append_tool_intent(call.name, call.args, call.id)
# os.fsync(fh.fileno())
# prev_hash = self.last_hash
READY = True  # prev_hash chains records


def append_tool_intent(tool_name, arguments):
    return tool_name, arguments


def _never_called(fh, call):
    """Dead code: nothing references this function."""
    append_tool_intent(call.name, call.args)
    os.fsync(fh.fileno())
    prev_hash = call.hash
    return prev_hash


def _never_called_recorder(sink, event):
    """Dead code: a recorder that swallows failures, but nothing calls it."""
    try:
        sink.write(event)
    except Exception:
        logger.debug("dropped")
'''

DECOYS = {
    "agent/notes.py": PROSE,
    "tests/test_journal.py": JOURNAL + LOOP,
    "examples/journal_demo.py": JOURNAL + LOOP,
    "docs/audit.md": "Records carry `prev_hash`; `os.fsync` runs before each action.\n",
}

DOCSTRING_RECORDER = '''class AuditRecorder:
    def record(self, event: dict) -> None:
        """Write one event and let failures surface.

        Never write this:
            except Exception:
                logger.debug("dropped")
        """
        self.sink.write(event)


def main(recorder: AuditRecorder) -> None:
    recorder.record({})
'''

CONSTANTS = '''TAMPER_DOC = "Each record carries prev_hash of the record before it."
SWALLOW_DOC = "except Exception: logger.debug('audit write failed')"
'''

AUDIT_PROBES = ["audit.record", "audit.decorator", "audit.fsync", "audit.swallow", "audit.tamper"]


live, decoys, constants = family_fixtures(LIVE, DECOYS, {"agent/strings.py": CONSTANTS})
test_no_finding_in_prose_tests_docs_examples_or_dead_code, test_no_finding_in_unused_string_constants = \
    near_miss_tests(AUDIT_PROBES, constants=True)


def test_record_fires_on_recorder_calls_and_durable_execution(live):
    found = live["audit.record"]
    assert [(f.location.path, f.location.start_line, f.data["fn"]) for f in found] == [
        ("agent/loop.py", line_of(LOOP, "self.journal.append_tool_intent("), "append_tool_intent"),
        ("agent/loop.py", line_of(LOOP, "execute_child_workflow("), "execute_child_workflow"),
    ]


def test_decorator_fires_on_audit_log(live):
    assert located(live["audit.decorator"]) == [
        ("agent/loop.py", line_of(LOOP, "def update_settings"))]


def test_fsync_fires_with_enclosing_function(live):
    found = live["audit.fsync"]
    assert [(f.location.path, f.location.start_line, f.data["func"]) for f in found] == [
        ("agent/journal.py", line_of(JOURNAL, "os.fsync("), "Journal.append_tool_intent")]


def test_swallow_fires_on_debug_and_warning_handlers_in_recorders(live):
    found = live["audit.swallow"]
    assert [(f.location.path, f.location.start_line, f.data["fn"], f.data["level"])
            for f in found] == [
        ("agent/journal.py", line_of(JOURNAL, 'logger.debug("audit write failed"') - 1, "record",
         "debug"),
        ("agent/journal.py", line_of(JOURNAL, "except OSError:"), "flush_trail", "warning"),
    ]  # load_settings swallows too, but it is no recorder


def test_tamper_fires_on_hash_chain(live):
    assert located(live["audit.tamper"]) == [
        ("agent/journal.py", line_of(JOURNAL, "prev_hash = self.last_hash")),
        ("agent/journal.py", line_of(JOURNAL, "(prev_hash + line)")),
    ]


def test_swallow_ignores_handler_quoted_in_docstring(repo):
    from .helpers import probe_findings

    assert probe_findings(repo, {"agent/recorder.py": DOCSTRING_RECORDER}, "audit.swallow") == []


# a loop detector keeps the last calls in memory to spot repeats: named like a recorder, with a
# tool name and its arguments, it writes nothing that outlives the process
DETECTOR = '''import hashlib


class LoopDetector:
    def __init__(self):
        self.recent = []

    def record_action(self, action_name: str, params: dict) -> None:
        digest = hashlib.sha256((action_name + repr(params)).encode()).hexdigest()
        self.recent = (self.recent + [digest])[-20:]


class Agent:
    def __init__(self):
        self.detector = LoopDetector()

    def step(self, call):
        self.detector.record_action(call.name, call.args)
        return call
'''


def test_record_needs_a_write_an_in_memory_detector_is_none(tmp_path_factory):
    found = index_findings(tmp_path_factory, {"agent/detector.py": DETECTOR, **LIVE})["audit.record"]
    assert "agent/detector.py" not in {f.location.path for f in found}
    assert [f.data["fn"] for f in found] == ["append_tool_intent", "execute_child_workflow"]
