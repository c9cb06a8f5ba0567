"""GitHub Copilot CLI session events, as the CLI writes them and as a tool saved them wrapped: the user's
words apart from the reminders the harness put around them, calls paired with their results by id,
edits and writes read by their arguments, a failed call an error, bookkeeping (hooks, a tool's start)
left out of coverage with its reason."""

from __future__ import annotations

import json

import pytest

from compaction.events import EventKind, extract_events
from compaction.history import compact
from compaction.history.sources import FactContext
from compaction.history.sources.changes import records
from compaction.history.steering import role_preset
from compaction.model import Role
from compaction.transcripts import load_transcript
from compaction.transcripts.coverage import measure
from tests.conftest import REPO

DATA = REPO / "tests" / "data" / "formats"


@pytest.mark.parametrize("name", ["copilot_cli.jsonl", "copilot_cli_wrapped.jsonl"])
def test_copilot_cli_events_are_read(name):
    t = load_transcript(str(DATA / name))
    assert t.format == "copilot-cli" and t.cwd == "/home/ana/work/ledger"
    users = [(m.text, m.harness) for m in t.messages if m.role is Role.USER]
    assert users[0] == ("Round totals to cents in ledger.py and add a test", False)
    assert users[1][1] and "Available tables: todos" in users[1][0]  # the harness's reminders, apart
    assistant = next(m for m in t.messages if m.role is Role.ASSISTANT)
    assert assistant.meta["thinking"] == ["The total is summed as floats."]
    events = extract_events(t)
    edited = {(e.kind, e.path) for e in events if e.kind in (EventKind.EDIT, EventKind.WRITE)}
    assert edited == {(EventKind.EDIT, "/home/ana/work/ledger/ledger.py"),
                      (EventKind.WRITE, "/home/ana/work/ledger/tests/test_ledger.py")}
    failed = [e for e in events if e.kind is EventKind.COMMAND and e.failed]
    assert [e.command for e in failed] == ["python -m pytest -q"]
    assert measure(str(DATA / name), t).coverage >= 0.99
    ctx = FactContext(t, events, [], role_preset("developer"), t.cwd, len(t.rounds))
    record = next(f for path, f in records(ctx).items() if path.endswith("ledger.py") and "tests/" not in path)
    assert "round(sum(items), 2)" in (record.full_text or record.text)  # the edit's arguments, read
    assert "returned unchanged" in compact(t, target_tokens=600).markdown  # a session this small comes back whole


def test_the_users_words_are_taken_out_of_the_sent_prompt_only_where_they_stand_whole(tmp_path):
    """A prompt `1` must not be cut out of the harness's `2026-07-15` around it; an event with no words of
    the user's (only the harness's wrapping) adds no empty user message."""
    sent = "<current_datetime>2026-07-15T21:31:05+02:00</current_datetime>\n\n1\n\n<system_reminder>x</system_reminder>"
    events = [{"type": "user.message", "data": {"content": "1", "transformedContent": sent}, "id": "e1"},
              {"type": "user.message", "data": {"content": "", "transformedContent": "<reminder>todo</reminder>"},
               "id": "e2"},
              {"type": "assistant.message", "data": {"content": "ok", "toolRequests": []}, "id": "e3"}]
    path = tmp_path / "events.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    t = load_transcript(str(path))
    users = [(m.text, m.harness) for m in t.messages if m.role is Role.USER]
    assert users[0] == ("1", False)
    assert users[1][1] and "2026-07-15T21:31:05" in users[1][0] and "\n1\n" not in users[1][0]
    assert users[2] == ("<reminder>todo</reminder>", True) and len(users) == 3
