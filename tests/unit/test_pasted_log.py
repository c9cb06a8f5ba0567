"""A pasted TUI log inside a user message is read back as the turns it was (pasted_log)."""

from compaction.model import Message, Role, ToolKind, group_rounds
from compaction.transcripts.pasted_log import expand, expand_pasted_logs

PASTE = """Goal
- Ship the parser
Next Steps
- Tag release
▣  Compaction · Some Model · 54.9s
Thinking: The user wants me to go on.
# Check git status
$ git status
On branch main
…
Click to expand
→ Read .gitignore
File not found: /repo/.gitignore
# Create ignore file
$ cat > .gitignore << 'EOF'
target/
EOF
(no output)
# Commit
$ git commit -m "feat: one
two"
[main 3d72efa] feat: one
▣  Build · Some Model · 4m 32s
Why does it still say V2?
Thinking: Let me look.
✱ Grep "V2|v2" (1 match)
← Edit README.md
Bastion v2 is a fork
# Wrote docs/GUIDE.md
# Guide
text
▣  Build · Some Model · 9.3s
Continue please"""


def test_pasted_log_turns() -> None:
    msgs = expand(Message(0, Role.USER, PASTE))
    assert msgs is not None
    # the pasted summary stays the user's (it opens the task) and is read by its sections
    assert msgs[0].role is Role.USER and msgs[0].meta.get("carried_summary") and not msgs[0].harness
    calls = [c for m in msgs for c in m.tool_calls]
    assert [c.kind for c in calls] == [ToolKind.SHELL, ToolKind.READ, ToolKind.SHELL, ToolKind.SHELL,
                                       ToolKind.SEARCH, ToolKind.EDIT, ToolKind.WRITE]
    assert calls[0].command == "git status"
    assert calls[2].command == "cat > .gitignore << 'EOF'\ntarget/\nEOF"
    assert calls[3].command == 'git commit -m "feat: one\ntwo"'
    results = {r.call_id: r for m in msgs for r in m.tool_results}
    assert results[calls[0].id].content == "On branch main"  # the TUI's fold marks dropped
    assert results[calls[1].id].is_error
    assert results[calls[2].id].content == ""  # "(no output)"
    assert calls[6].path == "docs/GUIDE.md" and calls[6].arguments["content"] == "# Guide\ntext"
    users = [m.text for m in msgs if m.role is Role.USER and not m.harness]
    assert users == [msgs[0].text, "Why does it still say V2?", "Continue please"]
    thinking = [m.text for m in msgs if m.role is Role.ASSISTANT and m.text]
    assert thinking[0] == "The user wants me to go on."  # the agent's words, not the user's
    assert len(group_rounds(expand_pasted_logs([Message(0, Role.USER, PASTE)]))) > 3


def test_one_footer_or_a_plain_message_is_left_alone() -> None:
    assert expand(Message(0, Role.USER, "see ▣  Build · M · 1s\nThinking: x")) is None
    msgs = [Message(0, Role.USER, "hello"), Message(1, Role.ASSISTANT, "hi")]
    assert expand_pasted_logs(msgs) is msgs
