"""Small synthetic transcripts for unit tests of the fact sources: messages in, a Transcript with
its rounds out, and an assistant call paired with its tool result."""

from __future__ import annotations

from compaction.model import Message, Role, ToolCall, ToolResult, Transcript, group_rounds
from compaction.transcripts._agent_tools import make_call


def transcript(msgs: list[Message], path: str = "t.jsonl", cwd: str | None = None) -> Transcript:
    for i, m in enumerate(msgs):
        m.index = i
    return Transcript(path, "test", msgs, group_rounds(msgs), cwd=cwd)


def call_pair(name: str, args: dict, cid: str, out: str, *, is_error: bool = False) -> list[Message]:
    """The assistant's call and the tool's reply to it."""
    return [Message(0, Role.ASSISTANT, "", tool_calls=[make_call(name, args, cid)]),
            Message(0, Role.TOOL, "", tool_results=[ToolResult(out, cid, is_error=is_error)])]


def steps_transcript(request: str, *steps: Message | tuple[ToolCall, ToolResult | None]) -> Transcript:
    """The user's `request`, then each step: a message as it is, or a call with its result (None: no
    reply seen)."""
    msgs = [Message(0, Role.USER, request)]
    for step in steps:
        if isinstance(step, Message):
            msgs.append(step)
            continue
        call, res = step
        msgs.append(Message(0, Role.ASSISTANT, "", tool_calls=[call]))
        if res is not None:
            msgs.append(Message(0, Role.TOOL, "", tool_results=[res]))
    return transcript(msgs)


def shell_rounds(request: str, *runs: tuple[str, str]) -> Transcript:
    """The user's `request`, then each (command, output) in a round of its own, the user saying "next" between."""
    msgs = [Message(0, Role.USER, request)]
    for i, (command, out) in enumerate(runs):
        msgs += call_pair("bash", {"command": command}, f"c{i}", out)
        msgs.append(Message(0, Role.USER, "next"))
    return transcript(msgs)


def one_round(request: str, *runs: tuple[str, str]) -> Transcript:
    """The user's `request`, then one reply calling every (command, output) at once: one round."""
    calls = [make_call("bash", {"command": command}, f"c{i}") for i, (command, _) in enumerate(runs)]
    results = [ToolResult(out, f"c{i}") for i, (_, out) in enumerate(runs)]
    return transcript([Message(0, Role.USER, request), Message(0, Role.ASSISTANT, "", tool_calls=calls),
                       Message(0, Role.TOOL, "", tool_results=results)])
