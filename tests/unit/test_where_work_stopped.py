"""Where the work stopped, as the Current work and Problems sections tell it (session 56): a list of
finished calls after which the agent summed up says less than its words, and a file not found that the
session then wrote is no longer what last went wrong."""

from __future__ import annotations

from compaction.errors.scan import scan_transcript
from compaction.events import extract_events
from compaction.history.sources import FactContext
from compaction.history.sources.current import current_work
from compaction.history.sources.latest_failure import _last_failure, latest_failure_facts
from compaction.history.steering import role_preset
from compaction.model import Message, Role, ToolCall, ToolKind, ToolResult, Transcript, group_rounds


def _ctx(msgs: list[Message]) -> FactContext:
    t = Transcript("t.jsonl", "test", msgs, group_rounds(msgs))
    return FactContext(transcript=t, events=extract_events(t), records=scan_transcript(t),
                       preset=role_preset("developer"), cwd="/repo", n_rounds=len(t.rounds), target_tokens=4000)


def _commit(output: str | None, then: str | None) -> list[Message]:
    cmd = 'git commit -am "chore: add the skill"'
    msgs = [Message(0, Role.USER, "commit the skill"),
            Message(1, Role.ASSISTANT, "", tool_calls=[ToolCall("Bash", {"command": cmd}, "c1", ToolKind.SHELL,
                                                                command=cmd)])]
    if output is not None:
        msgs.append(Message(2, Role.TOOL, tool_results=[ToolResult(output, "c1", "Bash", exit_code=0)]))
    if then:
        msgs.append(Message(len(msgs), Role.ASSISTANT, then))
    return msgs


def test_finished_calls_the_agent_summed_up_after_are_not_listed_again():
    texts = [f.text for f in current_work(_ctx(_commit("[main 2e593ed] chore: add the skill", "Committed and pushed.")))]
    assert any(t.startswith("Last said: Committed and pushed.") for t in texts)
    assert not any(t.startswith("Last calls") for t in texts), texts


def test_a_call_still_waiting_or_one_the_agent_said_nothing_after_is_listed():
    waiting = [f.text for f in current_work(_ctx(_commit(None, None)))]
    assert any(t.startswith("Last calls") and "(no result seen)" in t for t in waiting), waiting
    silent = [f.text for f in current_work(_ctx(_commit("[main 2e593ed] chore: add the skill", None)))]
    assert any(t.startswith("Last calls") for t in silent), silent


def _read_missing_then(later: ToolCall | None) -> list[Message]:
    read = ToolCall("Read", {"file_path": "/repo/.gitignore"}, "r1", ToolKind.READ, path="/repo/.gitignore")
    msgs = [Message(0, Role.USER, "ignore the build output"),
            Message(1, Role.ASSISTANT, "", tool_calls=[read]),
            Message(2, Role.TOOL, tool_results=[ToolResult(
                "File not found: /repo/.gitignore\nDid you mean one of these?\n/repo/.git", "r1", "Read",
                is_error=True)])]
    if later is not None:
        msgs += [Message(3, Role.ASSISTANT, "", tool_calls=[later]),
                 Message(4, Role.TOOL, tool_results=[ToolResult("File created successfully", later.id, later.name)])]
    return msgs


def test_a_file_not_found_that_the_session_then_wrote_is_not_the_latest_failure():
    write = ToolCall("Write", {"file_path": "/repo/.gitignore", "content": "target/\n"}, "w1", ToolKind.WRITE,
                     path="/repo/.gitignore")
    assert latest_failure_facts(_ctx(_read_missing_then(write))) == []


def test_a_failing_output_left_with_only_its_lead_in_says_nothing():
    """The record says "File not found: /repo/.gitignore"; what is left of the output, "Did you mean one of
    these?", leads in to what was said already."""
    assert latest_failure_facts(_ctx(_read_missing_then(None))) == []
    cmd = "npm run bundle"
    msgs = [Message(0, Role.USER, "bundle it"),
            Message(1, Role.ASSISTANT, "", tool_calls=[ToolCall("Bash", {"command": cmd}, "b1", ToolKind.SHELL,
                                                                command=cmd)]),
            Message(2, Role.TOOL, tool_results=[ToolResult("Bundling…\n3 modules could not be resolved:\n  ./src/a\n"
                                                           "  ./src/b\n  ./src/c", "b1", "Bash", exit_code=1)])]
    told = latest_failure_facts(_ctx(msgs))
    assert told and "3 modules could not be resolved:" in told[0].text  # a lead-in with what it leads to


def test_a_failed_edit_is_not_undone_by_a_later_read_of_its_file():
    edit = ToolCall("Edit", {"file_path": "/repo/src/app.ts", "old_string": "let a = 1", "new_string": "const a = 1"},
                    "e1", ToolKind.EDIT, path="/repo/src/app.ts")
    read = ToolCall("Read", {"file_path": "/repo/src/app.ts"}, "r1", ToolKind.READ, path="/repo/src/app.ts")
    msgs = [Message(0, Role.USER, "make it const"),
            Message(1, Role.ASSISTANT, "", tool_calls=[edit]),
            Message(2, Role.TOOL, tool_results=[ToolResult("String to replace not found in file.\nString: let a = 1",
                                                           "e1", "Edit", is_error=True)]),
            Message(3, Role.ASSISTANT, "", tool_calls=[read]),
            Message(4, Role.TOOL, tool_results=[ToolResult("     1\tvar a = 1\n", "r1", "Read")])]
    found = _last_failure(_ctx(msgs).transcript.rounds)
    assert found is not None and found[1].call_id == "e1"  # still what last went wrong
