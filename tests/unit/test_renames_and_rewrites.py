"""A file moved with `mv` keeps its history under its new name, and a file written whole again says what
the rewrite changed (not only "created" twice)."""

from __future__ import annotations

from compaction.history import compact
from compaction.model import Message, Role, ToolCall, ToolKind, ToolResult, Transcript, group_rounds

V1 = "def describe(path, model):\n    text = run(model, path)\n    return text\n"
V2 = "def describe(path, model):\n    text = run(model, path)\n    return f\"### {model}'s take:\\n\\n{text}\"\n"


def _session() -> Transcript:
    msgs: list[Message] = []

    def call(name: str, args: dict, kind: ToolKind, result: str, **kw) -> None:
        cid = f"c{len(msgs)}"
        msgs.append(Message(len(msgs), Role.ASSISTANT, f"Calling {name}.",
                            tool_calls=[ToolCall(name, args, cid, kind, **kw)]))
        msgs.append(Message(len(msgs), Role.TOOL, tool_results=[ToolResult(result, cid, name)]))

    msgs.append(Message(0, Role.USER, "Write describer2.py with a describe function, then make it the describer."))
    listing = "\n".join(f"{i:>5}  line {i} of the old describer, unchanged" for i in range(600))
    call("read_file", {"path": "describer_old.py"}, ToolKind.READ, listing, path="describer_old.py")
    call("write_to_file", {"path": "describer2.py", "content": V1}, ToolKind.WRITE, "saved", path="describer2.py")
    msgs.append(Message(len(msgs), Role.USER, "Prefix each description with a header naming the model."))
    call("write_to_file", {"path": "describer2.py", "content": V2}, ToolKind.WRITE, "saved", path="describer2.py")
    call("execute_command", {"command": "mv describer2.py describer.py"}, ToolKind.SHELL, "",
         command="mv describer2.py describer.py")
    msgs.append(Message(len(msgs), Role.USER, "Thanks, that is all."))
    msgs.append(Message(len(msgs), Role.ASSISTANT, "Done."))
    return Transcript(path="s.json", format="test", messages=msgs, rounds=group_rounds(msgs))


def test_a_moved_file_keeps_its_history_and_a_rewrite_says_what_it_changed():
    doc = compact(_session(), target_tokens=1500, keep_recent=0).markdown
    assert "Scratch files" not in doc and "later removed" not in doc
    assert "`describer.py`" in doc and "renamed from `describer2.py`" in doc
    assert "take:" in doc  # the rewrite's added line, said in the record
