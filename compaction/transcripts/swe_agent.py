"""SWE-agent trajectories (`*.traj`).

Shape: `{"trajectory": [{"thought", "action", "observation", "response", "state"}], "history":
[{"role", "content", "is_demo"?}], "info": {"submission", "exit_status"}}`. The trajectory is
the source of steps (one round each); from the history we take only the system prompt and the
task statement, skipping the demonstration (a whole solved example that is not this task).
Actions are SWE-agent's own commands (`open`, `edit A:B`, `create`, `str_replace_editor …`,
`submit`) or plain shell lines; edits target the currently open file, so we track it.
"""

from __future__ import annotations

import json
import re
import shlex
from typing import Any

from compaction.model import Message, Role, ToolCall, ToolKind, ToolResult, Transcript
from compaction.transcripts._io import content_text, expect, load_json

NAME = "swe-agent"
DESCRIPTION = "SWE-agent trajectory (.traj): trajectory steps with thought/action/observation"

_EDIT_RANGE = re.compile(r"\Aedit\s+(\d+)\s*:\s*(\d+)[ \t]*\n?(.*?)(?:\n?end_of_edit\s*)?\Z", re.S)  # the text keeps its first indent
_SEARCH_CMDS = {"search_dir", "search_file", "find_file", "filemap"}
_NAV_CMDS = {"goto", "scroll_up", "scroll_down"}


def sniff(head: str, path: str) -> int:
    if '"trajectory"' not in head:
        return 0
    score = 0
    if '"action"' in head and '"observation"' in head:
        score = 90
    elif '"history"' in head or '"environment"' in head:
        score = 60
    if score and path.endswith(".traj"):
        score = min(100, score + 5)
    return score


def _split(line: str) -> list[str]:
    try:
        return shlex.split(line)
    except ValueError:
        return line.split()


def _state(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str) and raw.strip().startswith("{"):
        try:
            val = json.loads(raw)
            return val if isinstance(val, dict) else {}
        except (ValueError, RecursionError):
            return {}
    return {}


class _Tracker:
    """Which file is open: `open`/`create` set it; `edit`/`goto`/`scroll_*` act on it."""

    def __init__(self) -> None:
        self.open_file: str | None = None

    def call(self, action: str, idx: int, state_open: str | None) -> ToolCall:
        action = action.strip()
        first_line = action.split("\n", 1)[0]
        words = _split(first_line)
        cmd = words[0] if words else ""
        cid = f"step-{idx}"
        current = self.open_file or state_open
        if cmd == "open" and len(words) >= 2:
            self.open_file = words[1]
            args: dict[str, Any] = {"path": words[1]}
            if len(words) >= 3:
                args["line"] = words[2]
            return ToolCall("open", args, cid, ToolKind.READ, path=words[1])
        if cmd == "create" and len(words) >= 2:
            self.open_file = words[1]
            return ToolCall("create", {"path": words[1]}, cid, ToolKind.WRITE, path=words[1])
        if cmd == "edit":
            m = _EDIT_RANGE.match(action)
            args = {"start": int(m.group(1)), "end": int(m.group(2)), "replacement": m.group(3)} if m else {
                "text": action[len("edit"):].strip()}
            return ToolCall("edit", args, cid, ToolKind.EDIT, path=current)
        if cmd == "insert":
            return ToolCall("insert", {"text": action[len("insert"):].strip()}, cid, ToolKind.EDIT, path=current)
        if cmd in _NAV_CMDS:
            return ToolCall(cmd, {"args": words[1:]}, cid, ToolKind.READ, path=current)
        if cmd in _SEARCH_CMDS:
            return ToolCall(cmd, {"args": words[1:]}, cid, ToolKind.SEARCH, path=words[2] if len(words) > 2 else None)
        if cmd == "str_replace_editor" and len(words) >= 3:
            sub, target = words[1], words[2]
            kind = {"view": ToolKind.READ, "create": ToolKind.WRITE}.get(sub, ToolKind.EDIT)
            if sub in ("view", "create"):
                self.open_file = target
            return ToolCall("str_replace_editor", {"command": sub, "path": target, "raw": action}, cid, kind,
                            path=target)
        if cmd == "submit":
            return ToolCall("submit", {}, cid, ToolKind.OTHER)
        return ToolCall("bash", {"command": action}, cid, ToolKind.SHELL, command=action)


def _observations(history: list[Any]) -> list[str]:
    """The user messages that answered each assistant step in the history, in order (demonstrations aside)."""
    out: list[str] = []
    after_assistant = False
    for h in history:
        if not isinstance(h, dict) or h.get("is_demo") or h.get("message_type") == "demonstration":
            continue
        if h.get("role") == "assistant":
            after_assistant = True
        elif h.get("role") == "user" and after_assistant:
            out.append(content_text(h.get("content")))
            after_assistant = False
    return out


def load(path: str) -> Transcript:
    data = load_json(path)
    expect(isinstance(data, dict), path, "SWE-agent trajectory must be a JSON object", 1)
    steps = data.get("trajectory")
    expect(isinstance(steps, list), path, '"trajectory" must be a list', 1)
    history = data.get("history", [])
    expect(isinstance(history, list), path, '"history" must be a list', 1)
    info = data.get("info") if isinstance(data.get("info"), dict) else {}
    t = Transcript(path=path, format=NAME, messages=[])
    if isinstance(info.get("submission"), str):
        t.meta["final_patch"] = info["submission"]
    if "exit_status" in info:
        t.meta["exit_status"] = info["exit_status"]

    # System prompt and task from the history; the demonstration is skipped.
    for h in history:
        if not isinstance(h, dict):
            continue
        role = h.get("role")
        if h.get("is_demo") or h.get("message_type") == "demonstration":
            t.skip("demonstration")
            continue
        if role == "system" and not any(m.role is Role.SYSTEM for m in t.messages):
            t.messages.append(Message(len(t.messages), Role.SYSTEM, content_text(h.get("content"))))
        elif role == "user":
            t.messages.append(Message(len(t.messages), Role.USER, content_text(h.get("content"))))
            break
        elif role == "assistant":
            break

    observed = _observations(history)
    tracker = _Tracker()
    for i, step in enumerate(steps):
        expect(isinstance(step, dict), path, f"trajectory[{i}] must be an object")
        state = _state(step.get("state"))
        if t.cwd is None and isinstance(state.get("working_dir"), str):
            t.cwd = state["working_dir"]
        state_open = state.get("open_file") if state.get("open_file") not in (None, "n/a", "") else None
        action = step.get("action")
        thought = step.get("thought")
        text = thought if isinstance(thought, str) else content_text(step.get("response"))
        calls = []
        if isinstance(action, str) and action.strip():
            call = tracker.call(action, i, state_open)
            if call.command is None:  # the command line as the model wrote it, beside its parsed arguments
                call.arguments.setdefault("action", action.strip())
            calls.append(call)
        t.messages.append(Message(len(t.messages), Role.ASSISTANT, text, tool_calls=calls))
        obs = step.get("observation")
        if obs is None and not calls:
            continue
        content = content_text(obs)
        seen = observed[i] if i < len(observed) else ""
        if content.strip() and seen.startswith(content.rstrip()):
            content = seen  # the history adds what the model was shown after it: (Open file: …) (Current directory: …)
        msg = Message(len(t.messages), Role.TOOL, "", tool_results=[
            ToolResult(content=content, call_id=calls[0].id if calls else None, name=calls[0].name if calls else None)])
        if calls and calls[0].name == "submit":
            msg.harness = True
            msg.meta["final_patch_echo"] = True
        t.messages.append(msg)
    expect(bool(t.messages), path, "no trajectory steps or history")
    return t
