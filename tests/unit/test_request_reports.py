"""The agent's report on each request of the user, in any language: where the cue phrases find no
finding (an agent writing Chinese, or stating what it did without a cue word), the closing sentences
of its reply say what it found and did."""

from __future__ import annotations

from compaction.events import extract_events
from compaction.history.sources import FactContext
from compaction.history.sources.findings import (
    RETOLD_PENALTY,
    asks,
    finding_facts,
    informative,
    report_of,
    request_reports,
)
from compaction.history.steering import role_preset
from compaction.model import Message, Role, ToolResult, Transcript
from compaction.transcripts._agent_tools import make_call
from tests.unit.synthetic import transcript as _transcript


def _session(replies: list[str]) -> Transcript:
    msgs: list[Message] = []
    for i, reply in enumerate(replies):
        msgs.append(Message(0, Role.USER, f"请求 {i + 1}：修一下 tree 组件" if i else "写一个 tree 的 vanilla 示例"))
        msgs.append(Message(0, Role.ASSISTANT, "让我查看文件：", tool_calls=[make_call("read_file", {"path": "Tree.ts"}, f"c{i}")]))
        msgs.append(Message(0, Role.TOOL, "", tool_results=[ToolResult("class TreeExample {}", f"c{i}")]))
        msgs.append(Message(0, Role.ASSISTANT, reply))
    return _transcript(msgs)


REWRITE = ("代码看起来不错。我修改了实现方式，现在使用 `nodeElements` Map 来缓存已创建的 DOM 元素。"
           "现在选中和折叠操作应该可以正常工作了。")


def test_a_chinese_reply_is_reported_by_its_informative_closing_sentences():
    t = _session(["我创建了 `Tree.ts` 和 `Tree.astro` 两个文件。", REWRITE])
    reports = request_reports(t)
    assert [r.round for r in reports] == [2, 4]
    assert "`nodeElements` Map" in reports[1].text
    assert reports[1].text.startswith("Reported on r3 “请求 2：修一下 tree 组件”: ")
    assert "让我查看文件" not in reports[1].text  # a sentence closing on a colon announces a tool call
    assert request_reports(t, lang="zh")[1].text.startswith("对 r3「请求 2：修一下 tree 组件」的汇报：")


def test_a_one_request_session_has_no_report_and_a_question_is_left_to_its_answer():
    assert request_reports(_session([REWRITE])) == []
    t = _session(["我创建了 `Tree.ts`。", REWRITE])
    t.rounds[2].messages[0].text = "为什么不能选中？"
    assert [r.round for r in request_reports(t)] == [2]
    assert asks("为什么不能选中？") and asks("why?") and not asks("写一个示例")


def test_a_request_whose_rounds_hold_a_cued_statement_is_not_reported_again():
    said = "The root cause is that `render` clears `innerHTML`, so the handlers are lost."
    t = _session(["I created `Tree.ts`.", said])
    assert [r.round for r in request_reports(t, told={4: said})] == [2]
    facts = finding_facts(FactContext(t, extract_events(t), [], role_preset("developer"), None, len(t.rounds),
                                      target_tokens=4000))
    assert sum("Reported on" in f.text for f in facts) == 1 and any("root cause" in f.text for f in facts)


def test_a_long_report_is_read_from_its_end():
    older = "\n".join(f"- checked `mod_{i}.py` for the cache key" for i in range(60))
    report = report_of([older, "Fixed: `TreeView.render` now reuses `nodeElements`, so 39 of 39 tests pass."])
    assert "39 of 39 tests pass" in report


def test_closing_sentences_lead_a_report_and_full_width_stops_end_sentences():
    text = "我发现了 `a` 和 `b` 的问题。中间的说明没有什么内容但是很长很长很长。最后我修改了 `render` 方法。"
    assert informative([text], 30, closing=True) == "最后我修改了 `render` 方法。"
    assert informative([text], 30).startswith("我发现了 `a` 和 `b` 的问题。")


def test_a_reports_verdict_heading_outweighs_a_table_row():
    """"### Colocate mode — ✅ 3 steps in 37.7s" says how a run went; a table's row read without its
    header ("| step_time | 18.1 → 8.7 |") says less."""
    reply = ("## Smoke tests\n\nAll done.\n\n### Colocate mode — ✅ 3 steps in 37.7s\n\n| Metric | Value |\n|---|---|\n"
             "| step_time | 18.1 → 8.7 → 7.3 |\n| reward | 0.125 → 0.0 → 0.0 |\n\nRan it.")
    found = informative([reply], 60, closing=True)
    assert found == "Colocate mode — ✅ 3 steps in 37.7s"


def test_a_report_that_names_results_the_statements_do_not_is_made_beside_them():
    """The rounds stated a diagnosis; the closing report gives the results ("3 steps in 37.7s", "79.4s",
    `weight_sync`): three things the statements never named, so it is reported too."""
    said = "The issue is that background processes in bash tool don't persist between calls."
    closing = "Both smoke tests passed: colocate mode ran 3 steps in 37.7s; server mode 3 steps in 79.4s with `weight_sync`."
    t = _session(["I created `Tree.ts`.", closing])
    assert [r.round for r in request_reports(t, told={4: said})] == [2, 4]
    assert [r.round for r in request_reports(t, told={4: said + " " + closing})] == [2]


def test_a_reply_with_a_summary_section_is_reported_by_it():
    """The reply lists each schema's fields, then sums up under "### Summary:": the report is the summary
    (which files are complete, which are placeholders), not the longest list of field names."""
    fields = ", ".join(f"`field_{i}`" for i in range(17))
    reply = ("Here's what the schemas hold:\n\n1. **schemas/universal.ts**:\n"
             f"   - **Fields**: Includes fields like {fields}.\n   - **Status**: complete.\n\n"
             "2. **schemas/governance.ts**:\n   - **Fields**: The file is empty.\n\n"
             "### Summary:\n- The `SignalSchema` in `universal.ts` is the only complete schema.\n"
             "- The other files (`governance.ts`, `metadata.ts`) are placeholders and define no schema.\n\n"
             "Let me know how you'd like to proceed!")
    report = report_of([reply])
    assert report is not None and "only complete schema" in report and "placeholders" in report
    assert "field_3" not in report


def test_a_report_that_retells_the_recap_of_its_request_is_left_to_the_recap():
    recap = ("已完成以下修改：\n- 新增 `build-client.mjs`：先复制 `dist` 到 `dist-client`，再用 `compileModule` 预编译\n"
             "- 更新 `package.json`：`main`/`module` 指向 `dist-client`\n- 重新运行构建并验证文档站可以成功构建")
    t = _session(["我创建了 `Tree.ts`。", recap])
    reports = request_reports(t)
    assert [r.round for r in reports] == [2, 4]  # without the recap, the closing list is reported
    # with it, the report waits below the other findings (the budget may not show the recap: not dropped)
    plain, retold = request_reports(t)[1], request_reports(t, recaps={4: recap})[1]
    assert retold.text == plain.text and retold.score == plain.score - RETOLD_PENALTY
    # an account of a state edited since retells nothing
    assert request_reports(t, recaps={4: "The agent's own account (r4; edited again from r6): " + recap})[1].score \
        == plain.score
    # a report that says what the recap does not (another part of the reply) stays beside it
    other = "Layered model: 004 gives the quality floor; 100 operationalizes delivery; 101-105 guide each phase."
    t2 = _session(["I created `Tree.ts`.", other])
    assert [r.score for r in request_reports(t2, recaps={4: "Added template references to `100-rules.mdc`"})] \
        == [r.score for r in request_reports(t2)]


def test_the_findings_leave_a_recapped_report_to_the_changes_account():
    from compaction.history.sources.recaps import recap_facts
    recap = ("Done. Here's what I changed:\n- Added `build-client.mjs`, which copies `dist` to `dist-client`\n"
             "- Updated `package.json` so `main` points to `dist-client`\n- Rebuilt the package and the docs site")
    msgs: list[Message] = []
    for i, reply in enumerate(["I created `Tree.ts`.", recap]):
        msgs.append(Message(0, Role.USER, f"request {i + 1}: build the client bundle"))
        msgs.append(Message(0, Role.ASSISTANT, "Writing it:", tool_calls=[
            make_call("write_file", {"path": f"f{i}.mjs", "content": "export {}"}, f"c{i}")]))
        msgs.append(Message(0, Role.TOOL, "", tool_results=[ToolResult("ok", f"c{i}")]))
        msgs.append(Message(0, Role.ASSISTANT, reply))
    t = _transcript(msgs)
    ctx = FactContext(t, extract_events(t), [], role_preset("developer"), None, len(t.rounds), target_tokens=4000)
    assert any("dist-client" in f.text for f in recap_facts(ctx))
    reported = {f.rounds[0]: f for f in finding_facts(ctx) if "Reported on" in f.text}
    # the recapped request's report ranks below the other one's: the account of the changes tells it first
    assert reported[4].score < reported[2].score - RETOLD_PENALTY / 2, reported


def test_a_report_in_any_alphabet_is_weighed_by_its_words_and_chinese_by_character_pairs():
    from compaction.history.sources.findings import _retells
    ru = ("Готово: переписал модуль `auth.py` целиком, добавил `refresh_token`; 17 тестов проходят, осталось "
          "починить миграцию базы данных.")
    assert not _retells(ru, "Changed `api.py`; Added `auth.py` note")  # Cyrillic words count
    assert _retells(ru, ru + " И ещё кое-что.")
    assert not _retells("Done. 1423 passed.", "Added build-client.mjs")  # too short to judge
    zh_recap = "新增客户端构建脚本，先复制 dist 内容到 dist-client，再用 compileModule 预编译所有模块"
    assert _retells("先复制 dist 内容到 dist-client，再用 compileModule 预编译", zh_recap)
    assert not _retells("文档站构建失败，原因是 Vite 插件解析重新导出的入口文件出错", zh_recap)
    # the same words run together otherwise: their character pairs still match, whole runs would not
    recap = "新增构建脚本：先复制 dist 内容到 dist-client，再用 compileModule 预编译所有模块并生成浏览器版本"
    assert _retells("构建脚本先复制内容，再预编译所有模块并生成浏览器版本", recap)


def test_the_recap_facts_handed_out_are_copies_of_the_shared_ones():
    from compaction.history.sources.recaps import recap_facts, recapped
    recap = "Done. Here's what I changed:\n- Added `a.mjs`\n- Updated `package.json`\n- Rebuilt the docs site"
    msgs = [Message(0, Role.USER, "build it"),
            Message(0, Role.ASSISTANT, "Writing.", tool_calls=[make_call("write_file", {"path": "a.mjs", "content": "x"}, "c1")]),
            Message(0, Role.TOOL, "", tool_results=[ToolResult("ok", "c1")]), Message(0, Role.ASSISTANT, recap)]
    t = _transcript(msgs)
    ctx = FactContext(t, extract_events(t), [], role_preset("developer"), None, len(t.rounds), target_tokens=4000)
    (fact,) = recap_facts(ctx)
    fact.text = "changed by the engine"
    assert "a.mjs" in next(iter(recapped(ctx).values()))
