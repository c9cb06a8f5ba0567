"""Why each change was made (sources/reasons.py): the agent's reason is found by where it writes it
(beside the edit's call, a few texts before it, its report after) and by the code it names, in any
language; narration that names nothing of the edit, and a sentence only restating it, are not reasons."""

from __future__ import annotations

from compaction.events import extract_events
from compaction.history.sources import FactContext
from compaction.history.sources.reasons import reason_facts
from compaction.history.steering import role_preset
from compaction.model import Message, Role, ToolResult, Transcript
from compaction.transcripts._agent_tools import make_call
from tests.unit.synthetic import steps_transcript


def _reasons(t: Transcript) -> list[str]:
    ctx = FactContext(t, extract_events(t), [], role_preset("developer"), None, len(t.rounds))
    return [f.full_text or f.text for f in reason_facts(ctx)]


def _edit(old: str, new: str, path: str = "lib/box.py", cid: str = "c1"):
    call = make_call("Edit", {"file_path": path, "old_string": old, "new_string": new}, cid)
    return call, ToolResult(call_id=cid, content="The file has been updated.")


def test_a_reason_stated_texts_before_the_edit_is_found_by_the_names_it_shares_with_it() -> None:
    t = steps_transcript(
        "fix pickling of the draggable box",
        Message(0, Role.ASSISTANT, "`Draggable` already has `disconnect`. A public `connect` is needed because a "
                                   "box made by hand is never drawn, so nothing would reconnect it after unpickling."),
        Message(0, Role.ASSISTANT, "Let me look at the file first."),
        Message(0, Role.ASSISTANT, "Now I will make the change."),
        _edit("    def _connect(self):\n        pass\n", "    def connect(self):\n        pass\n"))
    (reason,) = _reasons(t)
    assert reason.startswith("Why `lib/box.py` changed")
    assert "never drawn" in reason and "Let me look" not in reason and "make the change" not in reason


def test_a_reason_in_chinese_without_an_english_cue_is_found() -> None:
    t = steps_transcript(
        "修复测试",
        Message(0, Role.ASSISTANT, "我看到了，`splitter` 测试使用 `document.querySelector` 获取元素然后直接调用 `focus()`，"
                                   "因为 `locator.focus` 在浏览器模式下不可用。让我修改测试："),
        _edit("    await locator.focus()\n", "    document.querySelector(sel).focus()\n", "test/tree.spec.ts"))
    (reason,) = _reasons(t)
    assert "`splitter`" in reason and "因为" in reason and "让我修改测试" not in reason


def test_narration_and_a_mere_restatement_of_the_edit_give_no_reason() -> None:
    t = steps_transcript(
        "rename it",
        Message(0, Role.ASSISTANT, "I will rename `_connect` to `connect` now. Let me do it."),
        _edit("    def _connect(self):\n", "    def connect(self):\n"))
    assert _reasons(t) == []


def test_prose_answering_an_earlier_request_is_not_a_later_edits_reason() -> None:
    t = steps_transcript(
        "first task",
        Message(0, Role.ASSISTANT, "The `parse` helper fails because `split` drops the last `token` on a quoted value."),
        Message(1, Role.USER, "now something else"),
        _edit("def parse(s):\n    return s.split()\n", "def parse(s):\n    return shlex.split(s)\n", "lib/p.py"))
    assert _reasons(t) == []


def test_the_report_right_after_the_edit_gives_its_reason_and_sentences_join_readably() -> None:
    t = steps_transcript(
        "quoted options break",
        _edit("def parse(s):\n    return s.split()\n", "def parse(s):\n    return shlex.split(s)\n", "lib/p.py"),
        Message(0, Role.ASSISTANT, "- `parse` now calls `shlex.split`, because `str.split` kept the quotes of a value\n"
                                   "- `shlex.split` also handles escaped spaces in `parse` (`test_quoted`, 2 cases)"))
    (reason,) = _reasons(t)
    assert "because `str.split` kept the quotes" in reason and "value; `shlex.split` also" in reason
