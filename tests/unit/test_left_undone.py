"""What is left undone at the end: the user's asks no later change touched, the why-questions the
agent raised and never answered, and the verification a change never got."""

from __future__ import annotations

from compaction.edits import Hunk
from compaction.events import Event, EventKind, extract_events
from compaction.history.sections import Section
from compaction.history.sources import FactContext, gather
from compaction.history.sources.next_steps import asks_not_done, open_questions
from compaction.history.steering import role_preset
from compaction.model import Message, Role, ToolCall, ToolKind, ToolResult, Transcript, group_rounds

ISSUE = ("The parser drops the parent's defaults.\n"
         "1. when adding a spec, add a back-reference so that `options()` returns the parent options\n"
         "I think the easiest is to have an `is_set` on the `Command` class.\n"
         "Your task is to make the <issue_description> satisfied.")


def _edit(rnd: int, *added: str) -> Event:
    return Event(EventKind.EDIT, rnd, 1, path="cli/command_parser.pony", hunks=(Hunk((), added),))


def test_an_ask_whose_code_no_later_edit_touched_is_not_done():
    request = Event(EventKind.REQUEST, 1, 0, text=ISSUE)
    facts = asks_not_done([request, _edit(3, "fun options(): Array[Option] =>")])
    assert [f.text.split(":", 1)[0] for f in facts] == ["[not done] `is_set` (asked r1)"]
    assert "on the `Command` class" in facts[0].text  # the user's words, and not the markup tag
    assert asks_not_done([request, _edit(3, "fun options() =>", "fun is_set(name: String): Bool =>")]) == []


def test_a_why_question_without_a_later_reason_stays_open():
    said = [(1, "Reading the view."), (2, "Running the script."), (3, "It fails."),
            (4, "This means the object is nested? Why would it be nested?"), (6, "So it WAS nested! But why was it nested? Anyway, "
                                                       "a while loop unwraps it."), (7, "Done.")]
    (fact,) = open_questions(said)
    assert fact.text == "[open question] Why was it nested? (never answered)" and fact.rounds == [6]
    assert open_questions(said + [(8, "It was nested because the view wraps it twice.")]) == []
    assert open_questions([(4, "Why did it fail? The path was wrong."), (5, "Fixed.")]) == []  # asked once


def _transcript(msgs: list[Message]) -> Transcript:
    for i, m in enumerate(msgs):
        m.index = i
    return Transcript("s.jsonl", "test", msgs, group_rounds(msgs))


def _state(msgs: list[Message]) -> list[str]:
    t = _transcript(msgs)
    ctx = FactContext(transcript=t, events=extract_events(t), records=[], preset=role_preset("developer"), cwd=None,
                      n_rounds=len(t.rounds), target_tokens=2000)
    # (whether the work was committed is a state of its own: test_review7_mends)
    return [f.text for f in gather(ctx) if f.section is Section.CURRENT and f.pending
            and not f.text.startswith(("Not committed", "No commit made"))]


def test_a_session_without_any_test_run_says_so_and_names_the_test_file_it_wrote():
    src = ToolCall("Write", {"file_path": "src/union.ts"}, "e1", ToolKind.EDIT, path="src/union.ts")
    spec = ToolCall("Write", {"file_path": "src/union.unit.test.ts"}, "e2", ToolKind.EDIT,
                    path="src/union.unit.test.ts")
    msgs = [Message(0, Role.USER, "Add union"),
            Message(1, Role.ASSISTANT, "Writing.", [src, spec]),
            Message(2, Role.TOOL, tool_results=[ToolResult("ok", "e1"), ToolResult("ok", "e2")])]
    (state,) = _state(msgs)
    assert state.startswith("No test run after the last edit (r1); no tests run in the whole session")
    assert "test files written, never run: `union.unit.test.ts`" in state
    (state,) = _state(msgs[:1] + [Message(1, Role.ASSISTANT, "Writing.", [src]), msgs[2]])
    assert state.endswith("no test added or changed")


def test_a_comment_failed_edit_or_search_naming_the_code_does_not_do_the_ask():
    request = Event(EventKind.REQUEST, 1, 0, text=ISSUE)
    tried = Event(EventKind.EDIT, 2, 1, path="cli/command_parser.pony", failed=True,
                  hunks=(Hunk((), ("fun options() =>",)),))
    search = Event(EventKind.COMMAND, 2, 2, command="grep -rn 'options()' cli")
    facts = asks_not_done([request, tried, search, _edit(3, "// handle the parent options()")])
    assert [f.text.split(" (", 1)[0] for f in facts] == ["[not done] `options()`", "[not done] `is_set`"]


def test_the_last_edit_to_check_is_the_works_not_a_scratch_scripts():
    """sklearn's session wrote a scratch script after its last change to the library, ran it, and removed
    it: "Checked after the last edit (r38)" named the script's writing; the work's last edit was earlier."""
    def call(cid: str, command: str) -> ToolCall:
        return ToolCall("bash", {"command": command}, cid, ToolKind.SHELL, command=command)

    steps = [("c1", "sed -i 's/a = 1/a = 2/' src/app.py", ""),
             ("c2", "cat > check_app.py <<'EOF'\nimport app\nprint(app.a)\nEOF", ""),
             ("c3", "python check_app.py", "2"),
             ("c4", "rm check_app.py", "")]
    msgs: list[Message] = []
    for i, (cid, command, out) in enumerate(steps):  # a request per step: a round each
        msgs += [Message(0, Role.USER, "make a two" if i == 0 else f"go on ({i})"),
                 Message(0, Role.ASSISTANT, f"step {i}", [call(cid, command)]),
                 Message(0, Role.TOOL, tool_results=[ToolResult(out, cid, exit_code=0)])]
    (state,) = _state(msgs)
    assert state.startswith("Checked after the last edit of the work (r1) by running `python check_app.py`"), state


def test_a_check_that_passed_quietly_after_the_last_edit_is_a_check():
    """pi's `npm run check` passed after the last edit with no verdict line: the state said "No test run
    after the last edit (r173) … a program was last run at r101 → exit 2", the run that had failed."""
    def call(cid: str, command: str) -> ToolCall:
        return ToolCall("bash", {"command": command}, cid, ToolKind.SHELL, command=command)

    steps = [("c1", "npm run check", "npm error Lifecycle script `check` failed", 2),
             ("c2", "sed -i 's/a = 1/a = 2/' src/app.ts", "", 0),
             ("c3", "npm run check", "> check\n> tsc --noEmit\n", 0)]
    msgs: list[Message] = []
    for i, (cid, command, out, status) in enumerate(steps):
        msgs += [Message(0, Role.USER, "fix it" if i == 0 else f"go on ({i})"),
                 Message(0, Role.ASSISTANT, f"step {i}", [call(cid, command)]),
                 Message(0, Role.TOOL, tool_results=[ToolResult(out, cid, exit_code=status, is_error=status != 0)])]
    (state,) = _state(msgs)
    assert state.startswith("Checked after the last edit (r2) by running `npm run check` → exit 0"), state


def test_the_current_request_comes_after_the_earlier_message_of_its_round():
    """pi's session ended with "stop doing shit!" then "just write a little poem" in one round: the
    document showed the current request (the poem) first, then "Then asked: stop…", as if said last."""
    from compaction.history import compact

    filler = " ".join(f"word{i}" for i in range(400))
    msgs = [Message(0, Role.USER, "build the parser for the config files please"),
            Message(0, Role.ASSISTANT, f"Done with the parser. {filler}"),
            Message(0, Role.USER, "now add a test for the parser"),
            Message(0, Role.ASSISTANT, f"Added. {filler}"),
            Message(0, Role.USER, "stop changing the other files!"),
            Message(0, Role.USER, "just write a little poem about parsers"),
            Message(0, Role.ASSISTANT, f"A poem. {filler}")]
    msgs = [Message(i, m.role, m.text) for i, m in enumerate(msgs)]
    doc = compact(Transcript("x.json", "test", msgs, group_rounds(msgs)), target_tokens=400).markdown
    stop, poem = doc.find("stop changing the other files"), doc.find("Current request: just write a little poem")
    assert 0 <= stop < poem, doc


def test_a_why_question_answered_by_what_it_means_is_not_open():
    said = [(1, "Reading."), (2, "Running."), (3, "It fails."),
            (4, "Why is the value lazy? Why is the value lazy here?"), (5, "Unwrapping."),
            (6, "So the value is still lazy after unwrapping. This means the value is wrapped twice."), (7, "Done.")]
    assert open_questions(said) == []
    assert open_questions(said[:5] + [(6, "Unwrapping twice."), (7, "Done.")]) != []


def test_a_quiet_runs_last_own_line_is_its_outcome_not_an_exports_framing():
    from compaction.history.sources.current import _last_line

    def _last_said(output: str) -> str:
        return _last_line(output, own=True)

    assert _last_said("Checked 26 files in 23ms. No fixes applied.\n\n> pkg@1.0 check\n> tsc --noEmit\n\n") == \
        "Checked 26 files in 23ms. No fixes applied"
    assert _last_said("[INFO] BUILD SUCCESS\n<exited with exit code 0>\n") == "[INFO] BUILD SUCCESS"
    assert _last_said("Build complete! (6.38s)\nShell cwd was reset to /Users/me\n") == "Build complete! (6.38s)"
    copilot = 'Tool use: **run_in_terminal**\n\nAdditional data:\n\n```json\n{\n  "content": ""\n}\n```\nStatus: **completed**'
    assert _last_said(copilot) == ""  # an export that kept no output: nothing said


def test_the_submission_the_harness_answered_with_the_final_diff_is_no_call_without_a_result():
    from compaction.history.sources.current import _last_calls
    from compaction.transcripts import load_transcript
    from tests.conftest import TRANSCRIPTS
    t = load_transcript(str(TRANSCRIPTS / "mini-matplotlib-25311.traj.json"))
    said = _last_calls(t.rounds[-1])
    assert said and said[-1].endswith("(submitted: the harness printed the final diff)")
    assert "no result seen" not in " ".join(said)


def test_a_why_question_that_names_only_a_failure_is_no_open_question():
    """mini-matplotlib: "Why did it fail? (never answered)" was left after the fix it asked about had worked."""
    said = [(1, "Reading."), (2, "Running."), (3, "It failed. Why did it fail?"), (4, "Why did it fail?"), (5, "Done.")]
    assert open_questions(said) == []
