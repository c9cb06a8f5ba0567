"""An error in the code the session's last rounds raised and nothing ended is work left: a next step
(issue 14: "what failed and how it was fixed" — and what was not); a tool's failure is not, nor an error
a later run of the same check passed."""

from __future__ import annotations

from compaction.errors.scan import scan_transcript
from compaction.events import extract_events
from compaction.history.sources import FactContext
from compaction.history.sources.next_steps import unfixed_errors
from compaction.history.steering import role_preset
from compaction.model import Message, Role, ToolResult
from compaction.transcripts._agent_tools import make_call
from tests.unit.synthetic import steps_transcript

EDIT = (make_call("Edit", {"file_path": "src/pin.tsx", "old_string": "a", "new_string": "b"}, "e"),
        ToolResult("ok", "e"))
TSC_ERROR = "src/pin.test.tsx(37,5): error TS2339: Property 'div' does not exist on type 'JSX.IntrinsicElements'."


def _bash(command: str, cid: str, out: str, code: int = 0) -> tuple:
    return make_call("Bash", {"command": command}, cid), ToolResult(out, cid, exit_code=code)


def _next(*steps: tuple) -> list[str]:
    t = steps_transcript("make pinning depend on membership", *steps)
    ctx = FactContext(t, extract_events(t), scan_transcript(t), role_preset("developer"), None, len(t.rounds))
    return [f.text for f in unfixed_errors(ctx)]


def test_a_type_error_raised_at_the_end_and_never_fixed_is_a_next_step():
    """`npx tsc` failed, then `npx jest` of another suite passed: another program (past the runner), not a fix."""
    found = _next(EDIT, _bash("npm test -- pin.test.tsx", "a", "Tests: 2 passed, 2 total"),
                  _bash("npx tsc --noEmit", "b", TSC_ERROR, 2),
                  _bash("npx jest backend/pin.http.test.ts", "c", "Tests: 1 passed, 1 total"))
    assert found == ["[no fix seen] ERR_TS_PropertyDoesNotExist at `src/pin.test.tsx:37` (r3): Property 'div' does "
                     "not exist on type 'JSX.IntrinsicElements'."]


def test_an_error_a_later_run_ended_or_one_older_than_the_work_is_no_work_left():
    """A clean rerun of the same check, an install then a passing run, a failure there before the first
    change (pre-existing), and a tool's failure are not work left."""
    assert _next(EDIT, _bash("npx tsc --noEmit", "b", TSC_ERROR, 2), _bash("npx tsc --noEmit", "c", "")) == []
    assert _next(EDIT, _bash("python app.py", "a", "ModuleNotFoundError: No module named 'requests'", 1),
                 _bash("pip install requests", "b", "Successfully installed requests-2.32"),
                 _bash("python app.py", "c", "ok")) == []
    assert _next(_bash("npx tsc --noEmit", "b", TSC_ERROR, 2), EDIT, _bash("npx tsc --noEmit", "c", TSC_ERROR, 2)) == []
    assert _next(EDIT, _bash("cat missing.txt", "a", "cat: missing.txt: No such file or directory", 1)) == []
    said = Message(0, Role.ASSISTANT, "The tests pass, except the TS2339 in the test file, which was failing before my "
                                      "changes.")
    assert _next(EDIT, _bash("npx tsc --noEmit", "b", TSC_ERROR, 2), said) == []
