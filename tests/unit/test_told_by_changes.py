"""An in-place edit's command line (`sed -i`) is told by the change records (what it changed, in the file's
own lines): it competes for the room after the sections a successor asks more of, where the commands
that left no change record (an install, a test run) keep the completed actions' priority."""

from __future__ import annotations

from compaction.events import extract_events
from compaction.history.sections import Section
from compaction.history.sources.completed import TOLD_BY_CHANGES_PRIORITY, completed_facts
from compaction.history.sources.registry import FactContext
from compaction.history.steering import role_preset
from compaction.model import Message, Role, ToolResult
from tests.unit.synthetic import call_pair, make_call, transcript


def _facts(*commands: tuple[str, str]):
    msgs = [Message(0, Role.USER, "fix the comparison")]
    for i, (command, out) in enumerate(commands):
        msgs += call_pair("bash", {"command": command}, f"c{i}", out)
        msgs.append(Message(0, Role.USER, "next"))
    t = transcript(msgs)
    ctx = FactContext(t, extract_events(t), [], role_preset("developer"), None, len(t.rounds))
    return completed_facts(ctx)


def test_an_in_place_edit_competes_after_the_sections_asked_of_more() -> None:
    facts = _facts(("nl -ba pkg/basic.py | sed -n '310,320p'", "   316\t        return False    # sympy != other\n"),
                   ("sed -i '316s/return False    # sympy != other/return NotImplemented/' pkg/basic.py", ""),
                   ("pip install mpmath", "Successfully installed mpmath-1.3.0\n"))
    by_command = {f.text.split("`")[1][:6]: f for f in facts}
    assert by_command["sed -i"].rank() == TOLD_BY_CHANGES_PRIORITY
    assert by_command["pip in"].rank() == Section.COMPLETED.priority
    assert Section.DECISIONS.priority < TOLD_BY_CHANGES_PRIORITY < Section.NEXT.priority


def test_an_edit_and_a_plain_command_of_one_round_keep_lines_of_their_own() -> None:
    # `_same_round` joins the commands of one round that report nothing: never two priorities on one line
    calls = [make_call("bash", {"command": "sed -i 's/timeout=10/timeout=30/' conf.py"}, "a"),
             make_call("bash", {"command": "mkdir -p build/out"}, "b")]
    msgs = [Message(0, Role.USER, "fix it"), Message(0, Role.ASSISTANT, "", tool_calls=calls),
            Message(0, Role.TOOL, "", tool_results=[ToolResult("", "a"), ToolResult("", "b")])]
    t = transcript(msgs)
    ctx = FactContext(t, extract_events(t), [], role_preset("developer"), None, len(t.rounds))
    facts = completed_facts(ctx)
    ranks = sorted(f.rank() for f in facts)
    assert ranks == [Section.COMPLETED.priority, TOLD_BY_CHANGES_PRIORITY], [(f.text, f.rank()) for f in facts]
