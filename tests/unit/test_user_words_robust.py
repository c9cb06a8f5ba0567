"""Where the user's words are read, and only there: tags a harness writes (not ones a user or a file
quotes), words held until a turn's results are all in, Cline's result heads only in Cline's content,
and a Markdown sample fence never closed by the speaker line it quotes."""

from __future__ import annotations

import json

from compaction.model import Message, Role, ToolCall, ToolResult, Transcript, group_rounds
from compaction.transcripts import load_transcript
from compaction.transcripts._fences import outside_fences
from compaction.transcripts.generic import _md_markers, _speaker_mark
from compaction.transcripts.user_feedback import reads_tags, user_words_apart, words_after, words_apart


def _json(tmp_path, messages: list) -> str:
    path = tmp_path / "messages.json"
    path.write_text(json.dumps(messages), encoding="utf-8")
    return str(path)


def test_a_quoted_task_tag_stays_the_users_text_outside_the_formats_that_wrap_words(tmp_path):
    said = "Use this prompt:\n<task>\nAdd a --json flag\n</task>\nand tell me what you think."
    path = _json(tmp_path, [{"role": "user", "content": said}, {"role": "assistant", "content": "It is clear."}])
    t = load_transcript(path)
    assert t.format == "anthropic" and [(m.role, m.text) for m in t.messages][:1] == [(Role.USER, said)]
    assert not reads_tags(Transcript(path="x", format="claude-code", messages=[]))
    assert reads_tags(Transcript(path="x", format="generic-markdown", messages=[]))


def test_tags_are_read_only_standing_on_their_own_lines_outside_fences():
    fenced = "Like this:\n```xml\n<feedback>\nquoted\n</feedback>\n```"
    inline = "A tag in a sentence: <task>x</task> is no wrapper"
    assert words_apart(fenced) == ([], fenced) and words_apart(inline) == ([], inline)
    assert words_apart("<task>\nBuild it\n</task>\n\n# TODO") == (["Build it"], "# TODO")


def test_a_file_a_read_returned_keeps_its_feedback_element_and_a_refused_read_gives_the_users_words():
    read = ToolCall(id="r1", name="read_file", arguments={"path": "form.xml"}, kind="read")
    xml = "<feedback>\nFive stars\n</feedback>"
    messages = [Message(0, Role.USER, "Read form.xml"), Message(1, Role.ASSISTANT, "", tool_calls=[read]),
                Message(2, Role.TOOL, "", tool_results=[ToolResult(xml, "r1", "read_file")]),
                Message(3, Role.ASSISTANT, "", tool_calls=[ToolCall(id="r2", name="read_file", kind="read")]),
                Message(4, Role.TOOL, "", tool_results=[ToolResult(
                    "The user denied this operation.\n<feedback>\nRead cli.py instead\n</feedback>", "r2",
                    "read_file", is_error=True)])]
    out = user_words_apart(messages, tagged=True)
    assert out[2].tool_results[0].content == xml
    assert [m.text for m in out if m.role is Role.USER] == ["Read form.xml", "Read cli.py instead"]


def test_words_found_in_a_result_wait_until_the_turns_results_are_all_in():
    calls = [ToolCall(id="a", name="Edit", kind="edit"), ToolCall(id="b", name="Bash", kind="shell")]
    rejected = ("The user doesn't want to proceed with this tool use. The tool use was rejected. "
                "To tell you how to proceed, the user said:\nKeep the old name")
    messages = [Message(0, Role.USER, "Rename it"), Message(1, Role.ASSISTANT, "", tool_calls=calls),
                Message(2, Role.TOOL, "", tool_results=[ToolResult(rejected, "a", "Edit", is_error=True)]),
                Message(3, Role.TOOL, "", tool_results=[ToolResult("ok", "b", "Bash")]),
                Message(4, Role.ASSISTANT, "Keeping it.")]
    out = user_words_apart(messages)
    assert [m.role for m in out] == [Role.USER, Role.ASSISTANT, Role.TOOL, Role.TOOL, Role.USER, Role.ASSISTANT]
    assert [len(r.messages) for r in group_rounds(out)] == [4, 2]  # both results in the first turn's round
    assert words_after(out, 2) == "Keep the old name" and words_after(out, 3) == ""


def test_a_result_head_pasted_in_a_plain_anthropic_list_stays_the_users_text(tmp_path):
    pasted = "My tool printed this:\n[read_file] Result:\nnothing useful"
    path = _json(tmp_path, [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello."},
                            {"role": "user", "content": pasted}, {"role": "assistant", "content": "I see."}])
    t = load_transcript(path)
    assert [(m.role, m.text) for m in t.messages][2] == (Role.USER, pasted) and "dialect" not in t.meta


def test_only_a_tool_use_fence_is_closed_by_a_rule_and_a_speaker_line():
    sample = ["**Assistant:**", "A template:", "```markdown", "Intro", "---", "", "**User:**", "hi", "```",
              "Done.", "", "```tool_use", "<attempt_completion>", "---", "", "**User:**", "Thanks"]
    out = [i for i, line in outside_fences(sample, boundary=_speaker_mark, unclosed_info=("tool_use",))
           if _speaker_mark(line)]
    assert out == [0, 15]  # the sample's quoted speaker stays code; the open tool block ends at the real one
    assert [role for role, _ in _md_markers("\n".join(sample))] == ["assistant", "user"]
