"""Settings the harness saved for the user (approved command prefixes): a change to the user's
configuration, reported among the changes though no file was edited."""

from __future__ import annotations

from compaction.events import extract_events
from compaction.history.sources import FactContext
from compaction.history.sources.saved import saved_setting_facts
from compaction.history.steering import role_preset
from compaction.model import Message, Role, Transcript, group_rounds


def _facts(*texts: tuple[Role, str]) -> list:
    msgs = [Message(0, Role.USER, "list the files")]
    msgs += [Message(i + 1, role, text) for i, (role, text) in enumerate(texts)]
    t = Transcript("t.jsonl", "test", msgs)
    t.rounds = group_rounds(msgs)
    return saved_setting_facts(FactContext(t, extract_events(t), [], role_preset("developer"), None, len(t.rounds)))


def test_an_approved_command_prefix_is_a_saved_setting_named_by_its_command():
    (fact,) = _facts(
        (Role.ASSISTANT, "Listing the project root."),
        (Role.SYSTEM, 'Approved command prefix saved:\n- ["C:\\\\Users\\\\me\\\\bin\\\\pwsh.exe", "-Command", '
                      '"Get-ChildItem -Force"]'),
        (Role.SYSTEM, 'Approved command prefix saved:\n- ["Get-Content", "-Path", "C:\\\\Users\\\\me\\\\.agents\\\\'
                      'skills\\\\grant\\\\SKILL.md"]'))
    assert "Approved command prefix saved" in fact.text and "`pwsh.exe -Command Get-ChildItem -Force`" in fact.text
    assert "(+1)" in fact.text  # the one line names the first rule, the full text every rule
    assert "`Get-Content -Path …\\SKILL.md`" in fact.full_text


def test_the_assistant_saying_it_saved_a_file_is_no_setting():
    assert _facts((Role.ASSISTANT, "Config saved:\n- wrote settings.json")) == []
    assert _facts((Role.SYSTEM, "Conversation saved to history.md")) == []
