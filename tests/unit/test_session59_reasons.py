"""An edit's reason (sources/reasons.py) is the edit's own prose before an older round's musing that only shares
its names; the agent's list of what it changed ("主要改动：1. …") before a guess it weighed in the same reply; and
a reason from a round the verbatim tail shows stays when the tail elided its words (engine `_choose`)."""

from __future__ import annotations

from compaction.history.engine import _choose
from compaction.history.facts import Fact
from compaction.history.sections import Section
from compaction.model import Message, Role
from tests.unit.synthetic import steps_transcript
from tests.unit.test_change_reasons import _edit, _reasons


def test_the_edits_own_thought_outranks_an_older_musing_that_shares_its_names() -> None:
    t = steps_transcript(
        "let set_output preserve dtypes",
        Message(0, Role.ASSISTANT, "Maybe a dict. No, if they define `def set_output(self, *, transform=None):` and "
                                   "I call `estimator.set_output(transform=\"pandas\", preserve_dtypes=True)`, it "
                                   "will raise TypeError."),
        Message(0, Role.ASSISTANT, "Let me read the transformer first."),
        Message(0, Role.ASSISTANT, "`MinMaxScaler.set_output` calls `super().set_output(transform=transform)`.\n"
                                   "I need to update it to accept `**kwargs` and pass them."),
        _edit("    def set_output(self, *, transform=None):\n        return super().set_output(transform=transform)\n",
              "    def set_output(self, *, transform=None, **kwargs):\n"
              "        return super().set_output(transform=transform, **kwargs)\n", "lib/scaler.py"))
    (reason,) = _reasons(t)
    assert "accept `**kwargs` and pass them" in reason and "TypeError" not in reason


def test_the_list_of_what_was_changed_outranks_a_guess_in_the_same_reply() -> None:
    call, result = _edit("    await vi.waitFor(() => getBranchControlEl('src'))\n",
                         "    await expandAllBtn.click()\n    await expect.element(branch).toBeVisible()\n",
                         "test/tree.spec.ts")
    reply = ("问题的关键是：当选择模式改变时，`expandedValue` 可能会被重置为空数组，导致 `src` 分支收起，`branch` 就不可见了。\n\n"
             "我来修改测试： 已修复测试。主要改动：\n\n"
             "1. **移除了不可靠的 `vi.waitFor`**：之前在 `vi.waitFor` 中使用 `getBranchControlEl`，元素不存在时会抛出异常，"
             "导致测试行为不可预测\n\n"
             "2. **显式展开所有分支**：使用 `expandAllBtn.click()` 确保 `src` 是展开状态，这样 `branch` 才会可见\n")
    t = steps_transcript("测试失败了", Message(0, Role.ASSISTANT, reply, tool_calls=[call]),
                         Message(0, Role.TOOL, "", tool_results=[result]))
    (reason,) = _reasons(t)
    assert "移除了不可靠的 `vi.waitFor`" in reason and "问题的关键" not in reason


def test_a_reason_from_a_round_the_tail_shows_stays_when_the_tail_elided_its_words() -> None:
    said = "移除了 `expandAllBtn.click()` 步骤，因为 `src` 在默认状态下已经是展开的"
    task = Fact(Section.GOAL, "修复测试", [1], score=100, essential=True, task=True)
    reason = Fact(Section.DECISIONS, f"Why `tree.spec.ts` changed (edit r8): {said}", [8], score=48, prose=True,
                  quote=said)
    elided = "### r8\n\n**assistant**:\n测试仍然失败。\n\n[… 326 tokens elided …]\n3. 直接使用 `focusBranch('src')`"
    assert reason in _choose([task, reason], 2000, tail_start=5, tail=elided)
    shown = elided.replace("[… 326 tokens elided …]", f"1. {said}")
    assert reason not in _choose([task, reason], 2000, tail_start=5, tail=shown)
