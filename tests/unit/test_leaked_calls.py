"""A tool call a model wrote into its text in raw call tokens is told as a call not run (leaked_calls)."""

from compaction.events import EventKind, extract_events
from compaction.model import Message, Role
from compaction.transcripts.leaked_calls import tell_leaked_calls
from tests.unit.synthetic import transcript

TEXT = ("I will update the rule.\n<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>\nupdate_file\n<｜tool▁sep｜>file_path\n"
        "/repo/.cursor/rules/100.mdc\n<｜tool▁sep｜>code_edit\n### PR Checklist\n- [ ] CI green\n- [ ] Tests added\n"
        "<｜tool▁call▁end｜><｜tool▁calls▁end｜>")


def test_a_written_call_is_told_and_its_checklist_is_no_todo() -> None:
    msgs = [Message(0, Role.USER, "update the rule"), Message(1, Role.ASSISTANT, TEXT)]
    tell_leaked_calls(msgs)
    assert msgs[1].text == ("I will update the rule.\n"
                            "[a `update_file` call written as text, not run: /repo/.cursor/rules/100.mdc]")
    assert msgs[1].meta["written_calls"] == TEXT  # the text as written is kept
    assert not [e for e in extract_events(transcript(msgs)) if e.kind is EventKind.TODO]


def test_text_without_call_tokens_is_left_alone() -> None:
    msgs = [Message(0, Role.ASSISTANT, "- [ ] CI green")]
    tell_leaked_calls(msgs)
    assert msgs[0].text == "- [ ] CI green" and not msgs[0].meta
