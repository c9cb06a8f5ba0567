"""The harness's last state report (Cline's `<environment_details>`: mode, visible and open files) is
the state at the end: one Current-work line, shown even when its round is in the verbatim tail
(which never shows the report)."""

from __future__ import annotations

from compaction import tokens
from compaction.events import extract_events
from compaction.history import compact
from compaction.history.sources import FactContext
from compaction.history.sources.harness_state import harness_state_facts
from compaction.history.steering import role_preset
from compaction.model import Message, Role
from tests.unit.synthetic import transcript

REPORT = ("<environment_details>\n# VSCode Visible Files\nsrc/app.py\nsrc/app.py\n\n# VSCode Open Tabs\nsrc/app.py\n"
          "README.md\n\n# Current Time\n9/13/2025, 1:38:48 PM\n\n# Current Mode\n{mode}\n</environment_details>")


def _session() -> list[Message]:
    return [Message(0, Role.USER, "make the app print its version", meta={"environment_details": [REPORT.format(mode="ACT MODE")]}),
            Message(0, Role.ASSISTANT, "I will plan it first. " + "The module reads its settings at start. " * 60),
            Message(0, Role.USER, "ok, plan only", meta={"environment_details": [REPORT.format(mode="PLAN MODE")]}),
            Message(0, Role.ASSISTANT, "Here is the plan: add a --version flag.")]


def test_the_last_report_is_the_state_at_the_end():
    t = transcript(_session())
    ctx = FactContext(t, extract_events(t), [], role_preset("developer"), None, len(t.rounds))
    (fact,) = harness_state_facts(ctx)
    assert fact.text == ("Harness state at the end (r2): PLAN MODE; visible: `src/app.py`; "
                         "open tabs: `src/app.py`, `README.md`")


def test_a_fork_s_heading_and_an_empty_list_are_read_as_such():
    report = ("<environment_details>\n# Cursor Visible Files\n(No visible files)\n\n# Cursor Open Tabs\nsrc/a.py\n\n"
              "# Current Mode\nACT MODE\n</environment_details>")
    t = transcript([Message(0, Role.USER, "go on", meta={"environment_details": [report]}),
                    Message(0, Role.ASSISTANT, "Done.")])
    ctx = FactContext(t, extract_events(t), [], role_preset("developer"), None, len(t.rounds))
    (fact,) = harness_state_facts(ctx)
    assert fact.text == "Harness state at the end (r1): ACT MODE; open tabs: `src/a.py`"


def test_it_is_shown_beside_the_verbatim_tail():
    t = transcript(_session())
    md = compact(t, target_tokens=tokens.count_messages(t.messages) // 2).markdown
    assert "Harness state at the end (r2): PLAN MODE" in md
