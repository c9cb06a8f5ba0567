"""GitHub Copilot CLI session events, as the CLI writes them and as a tool saved them wrapped: the user's
words apart from the reminders the harness put around them, calls paired with their results by id,
edits and writes read by their arguments, a failed call an error, bookkeeping (hooks, a tool's start)
left out of coverage with its reason."""

from __future__ import annotations

import pytest

from compaction.events import EventKind, extract_events
from compaction.history import compact
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
    md = compact(t, target_tokens=600).markdown
    assert "ledger.py" in md and "round(sum(items), 2)" in md
