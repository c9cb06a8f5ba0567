"""An error's cause in the agent's words survives: said just before the fix when its first reply to the
error only went looking (`scan._diagnosed`), and kept over the attempts that failed before the fix when
the solution is cut to fit (`shorten.fit`), cut itself before it goes."""

from __future__ import annotations

from compaction.errors import scan_transcript
from compaction.errors.budget import solution_info
from compaction.errors.shorten import fit
from compaction.model import Message, Role, ToolCall, ToolKind, ToolResult, Transcript, group_rounds

TRACE = ('Traceback (most recent call last):\n  File "/repo/src/reports.py", line 310, in _from_json\n'
         "    return cls(**reportdict)\nTypeError: type() takes 1 or 3 arguments\n")


def _session(between: list[Message]) -> Transcript:
    run = ToolCall("bash", {"command": "python repro.py"}, "r1", ToolKind.SHELL, command="python repro.py")
    again = ToolCall("bash", {"command": "python repro.py"}, "r2", ToolKind.SHELL, command="python repro.py")
    fix = ToolCall("Edit", {"file_path": "/repo/src/reports.py", "old_string": "    @classmethod\n    @classmethod",
                            "new_string": "    @classmethod"}, "e", ToolKind.EDIT, path="/repo/src/reports.py")
    msgs = [Message(0, Role.USER, "Fix the report serialization."),
            Message(0, Role.ASSISTANT, "", tool_calls=[run]),
            Message(0, Role.TOOL, tool_results=[ToolResult(TRACE, "r1", exit_code=1)]),
            Message(0, Role.ASSISTANT, "Let me look at the file around line 300.")]
    msgs += between
    msgs += [Message(0, Role.ASSISTANT, "", tool_calls=[fix]), Message(0, Role.TOOL, tool_results=[ToolResult("ok", "e")]),
             Message(0, Role.ASSISTANT, "", tool_calls=[again]),
             Message(0, Role.TOOL, tool_results=[ToolResult("all good", "r2", exit_code=0)])]
    for i, m in enumerate(msgs):
        m.index = i
    return Transcript("t.json", "test", msgs, group_rounds(msgs))


def _look(n: int) -> list[Message]:
    call = ToolCall("bash", {"command": f"sed -n '{n},+20p' src/reports.py"}, f"s{n}", ToolKind.SHELL,
                    command=f"sed -n '{n},+20p' src/reports.py")
    return [Message(0, Role.ASSISTANT, "", tool_calls=[call]),
            Message(0, Role.TOOL, tool_results=[ToolResult("    @classmethod\n    @classmethod\n    def _from_json", f"s{n}")])]


def test_the_cause_said_just_before_the_fix_is_the_records() -> None:
    said = Message(0, Role.ASSISTANT, "The file is a mess. I have two `@classmethod` decorators on `_from_json`, "
                   "because my sed inserted the line twice.")
    rec = next(r for r in scan_transcript(_session([*_look(300), said])) if r.id == "ERR_PY_TypeError")
    assert "cause: I have two `@classmethod` decorators on `_from_json`, because my sed inserted the line twice (r3)" \
        in rec.solution
    assert "edited `/repo/src/reports.py` (r3)" in rec.solution


def test_a_marker_the_agent_set_is_no_cause() -> None:
    """The VS Code e2e fixture: "@decision: default to sqlite:///app.db … instead of failing at start" read as a cause."""
    said = Message(0, Role.ASSISTANT, "@decision: keep both decorators on `_from_json` instead of merging them for now.")
    rec = next(r for r in scan_transcript(_session([*_look(300), said])) if r.id == "ERR_PY_TypeError")
    assert "cause:" not in rec.solution and "@decision" not in rec.solution


def test_words_after_the_user_asked_something_else_are_no_cause() -> None:
    ask = Message(0, Role.USER, "Also, please rename the module to serializers while you are at it, thanks a lot.")
    said = Message(0, Role.ASSISTANT, "The name is wrong because the package already has a `reports` module.")
    rec = next(r for r in scan_transcript(_session([*_look(300), ask, said])) if r.id == "ERR_PY_TypeError")
    assert "cause:" not in rec.solution


SOLUTION = ("edited `reports.py` (r67): replaced lines 225-312 with `new_from_json.py`; cause: I have multiple "
            "`@classmethod` decorators and multiple print statements, and the docstring is broken (r64); "
            "tried before: edited `reports.py` (r46): deleted line(s) 227, failed again (r55)")


def test_the_cause_outlives_the_attempts_before_the_fix_and_is_cut_before_it_goes() -> None:
    kept = fit(SOLUTION, 200, solution_info)
    assert "tried before" not in kept and "cause: I have multiple `@classmethod` decorators" in kept
    assert kept.startswith("edited `reports.py` (r67): replaced lines 225-312 with `new_from_json.py`; cause:")
    short = fit(SOLUTION, 180, solution_info)
    assert "; cause: I have multiple" in short and short.endswith("… (r64)") and len(short) <= 180  # its round kept
    assert "cause" not in fit(SOLUTION, 120, solution_info)  # room for less than half of it: it goes whole


def test_what_ended_an_earlier_failure_is_a_fix_and_a_first_replys_account_goes_first() -> None:
    """requests r27-r30: the install that ended the record's earlier failure was dropped while its cause stayed;
    battle-cities: a tool failure's account kept squeezed project rules out. Only a cause said before the fix (cited
    by its round) outlives the other clauses."""
    text = ("its r27 failure ended with the install `pip install pytest-httpbin` (r30); cause: The other errors "
            "(`ModuleNotFoundError: No module named 'trustme'` and `fixture 'mocker' not found`) are due to missing "
            "test dependencies")
    assert fit(text, 200, solution_info) == "its r27 failure ended with the install `pip install pytest-httpbin` (r30)"
    tool = ("then the same command rerun with `sandbox_permissions: require_escalated` succeeded (r2); cause: The "
            "sandbox runner failed before PowerShell started, so I'm rerunning the same read-only checks")
    assert fit(tool, 120, solution_info) == \
        "then the same command rerun with `sandbox_permissions: require_escalated` succeeded (r2)"


def test_a_cause_read_off_the_calls_is_kept_as_the_fix_is() -> None:
    """Review 18: "cause: its line-addressed edits …" (`scan._shifted_lines`) is no account of the agent's to cut."""
    read = ("edited `a.py` (r5): deleted line(s) 3; cause: its line-addressed edits (`sed -i 3d a.py`, `sed -i 4d a.py`): "
            "each moved the lines the next one addressed; then `pytest -q` passed (r6)")
    assert "each moved the lines the next one addressed" in fit(read, 170, solution_info)
