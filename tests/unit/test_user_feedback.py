"""The user's words a harness wraps (a rejected call's "the user said:", Cline's <feedback>, <task> and
<user_message>) become user messages; the text around them stays the result's or the harness's."""

from __future__ import annotations

from compaction.model import Message, Role, ToolResult, group_rounds
from compaction.transcripts.user_feedback import user_words_apart, words_apart


def test_a_rejected_calls_words_are_the_users_and_a_closing_fence_stays_with_the_result():
    text = ("```text\nThe user doesn't want to proceed with this tool use. The tool use was rejected. "
            "To tell you how to proceed, the user said:\nNo colon after at?\n```")
    words, rest = words_apart(text, result=True)
    assert words == ["No colon after at?"]
    assert rest.endswith("the user said:\n```") and "No colon" not in rest
    assert words_apart("the user said:\nhi") == ([], "the user said:\nhi")  # in a user's own text: their words


def test_tagged_words_and_the_harness_text_around_them():
    text = "[TASK RESUMPTION] Interrupted.\n<user_message>\nRename the flag\n</user_message>\n\n# TODO LIST"
    assert words_apart(text) == (["Rename the flag"], "[TASK RESUMPTION] Interrupted.\n\n# TODO LIST")
    assert words_apart("<task>\nAdd it\n</task>", frozenset({"feedback"})) == ([], "<task>\nAdd it\n</task>")
    antigravity = "<USER_REQUEST>\nBuild it\n</USER_REQUEST>\n<ADDITIONAL_METADATA>\nlocal time\n</ADDITIONAL_METADATA>"
    assert words_apart(antigravity) == (["Build it"], "<ADDITIONAL_METADATA>\nlocal time\n</ADDITIONAL_METADATA>")


def test_messages_are_split_renumbered_and_a_task_sent_again_is_no_request():
    messages = [
        Message(0, Role.USER, "<task>\nAdd a --json flag\n</task>\n\n# TODO LIST RECOMMENDED"),
        Message(1, Role.ASSISTANT, "Done."),
        Message(2, Role.TOOL, "", tool_results=[ToolResult(
            "The user has provided feedback on the results.\n<feedback>\nDocument it too\n</feedback>", "c1")]),
        Message(3, Role.ASSISTANT, "Documented."),
        Message(4, Role.USER, "[TASK RESUMPTION]\n<task>\nAdd a --json flag\n</task>", harness=True),
        Message(5, Role.ASSISTANT, "Nothing left."),
    ]
    out = user_words_apart(messages, tagged=True)
    assert [m.index for m in out] == list(range(len(out)))
    assert [(m.role, m.text, m.harness) for m in out if m.role is Role.USER] == [
        (Role.USER, "Add a --json flag", False), (Role.USER, "# TODO LIST RECOMMENDED", True),
        (Role.USER, "Document it too", False),
        (Role.USER, "Add a --json flag", True), (Role.USER, "[TASK RESUMPTION]", True)]
    assert out[3].tool_results[0].content == "The user has provided feedback on the results."
    assert [len(r.messages) for r in group_rounds(out)] == [4, 4, 1]  # the feedback opens a round; harness text never does
    plain = [Message(0, Role.USER, "hi"), Message(1, Role.ASSISTANT, "hello")]
    assert user_words_apart(plain) is plain
