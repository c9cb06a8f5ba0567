"""A test run the user made and pasted counts as a run: vitest's summary is parsed, and where the
session ended says the user checked the change (or when they last did)."""

from __future__ import annotations

from compaction.events import extract_events, parse_test_summary
from compaction.history.sources import FactContext
from compaction.history.sources.current import current_work
from compaction.history.steering import role_preset
from compaction.model import Message, Role, ToolResult
from compaction.transcripts._agent_tools import make_call
from tests.unit.synthetic import transcript

PASTE = " ❯ src/tree.spec.ts (39 tests | 1 failed)\n\n Test Files  1 failed (1)\n      Tests  1 failed | 38 passed (39)\n"


def test_vitests_closing_counts_are_a_test_summary():
    assert parse_test_summary(PASTE) == "1 failed | 38 passed (39)"


def _facts(msgs: list[Message]) -> list[str]:
    t = transcript(msgs)
    ctx = FactContext(t, extract_events(t), [], role_preset("developer"), None, len(t.rounds), target_tokens=4000)
    return [f.text for f in current_work(ctx)]


def _edit(cid: str) -> Message:
    return Message(0, Role.ASSISTANT, "Fixing it.", tool_calls=[make_call(
        "Edit", {"file_path": "src/tree.ts", "old_string": "a()", "new_string": "b()"}, cid)])


def test_a_run_the_user_pasted_after_the_last_edit_checks_it():
    texts = _facts([Message(0, Role.USER, "fix the tree"), _edit("e1"), Message(0, Role.TOOL, ""),
                    Message(0, Role.USER, "still failing:\n" + PASTE), Message(0, Role.ASSISTANT, "I see.")])
    assert any(x.startswith("Checked by the user after the last edit (r1): they reported 1 failed | 38 passed (39)")
               for x in texts), texts


def test_a_run_the_user_pasted_before_the_last_edit_is_named_as_the_last_run():
    texts = _facts([Message(0, Role.USER, "these fail:\n" + PASTE), _edit("e1"), Message(0, Role.TOOL, "")])
    assert any("No test run after the last edit (r1); the last run the user reported was before it (r1: 1 failed"
               in x for x in texts), texts


def test_test_files_read_are_not_said_unrun_when_the_user_reported_a_run():
    """tree-vanilla r8: the user's pasted run covered 93 test files; "the project's tests it saw never ran:
    combobox.spec.ts…" was false. Only the agent's own runs are known to have missed them."""
    read = Message(0, Role.ASSISTANT, "Reading.", tool_calls=[make_call("Read", {"file_path": "src/combobox.spec.ts"}, "r1")])
    texts = _facts([Message(0, Role.USER, "these fail:\n" + PASTE), read, Message(0, Role.TOOL, "it('x')"),
                    _edit("e1"), Message(0, Role.TOOL, "")])
    assert any("the agent never ran the project's tests it saw (`combobox.spec.ts`); the user's reported run may "
               "have covered them" in x for x in texts), texts
    texts = _facts([Message(0, Role.USER, "fix it"), read, Message(0, Role.TOOL, "it('x')"), _edit("e1"),
                    Message(0, Role.TOOL, "")])
    assert any("the project's tests it saw never ran: `combobox.spec.ts`" in x for x in texts), texts


def test_the_last_calls_keep_a_script_run_among_many_reads():
    """codex-battle r5: the escalated `bash export-session.sh .` was dropped for four reads that followed it."""
    from compaction.history.sources.current import _last_calls
    from compaction.model import group_rounds

    calls = [make_call("shell_command", {"command": c}, f"c{i}") for i, c in enumerate(
        ['bash "C:\\skills\\export-session.sh" .', "Get-Content -Path package.json", "Get-Content -Path README.md",
         "git log --oneline -20", "git remote -v"])]
    [rnd] = group_rounds([Message(0, Role.USER, "apply"), Message(1, Role.ASSISTANT, "Running it.", tool_calls=calls)])
    said = _last_calls(rnd)
    # none came back: each is to rerun or check, so all five are named (test_review7_mends), the outcome
    # they share said once
    assert said == ['`bash "C:\\skills\\export-session.sh" .`, `Get-Content -Path package.json`, `Get-Content -Path '
                    'README.md`, `git log --oneline -20`, `git remote -v` (no result seen)']
    results = [Message(2, Role.TOOL, tool_results=[ToolResult("ok", f"c{i}", exit_code=0)]) for i in range(1, 5)]
    [rnd] = group_rounds([Message(0, Role.USER, "apply"), Message(1, Role.ASSISTANT, "Running it.", tool_calls=calls),
                          *results])
    said = _last_calls(rnd)  # some came back: the script run first, the latest after it, the rest counted
    assert said[0].startswith("`bash \"C:\\skills\\export-session.sh\" .`") and said[-1] == "+1 more" and len(said) == 5
