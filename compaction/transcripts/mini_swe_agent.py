"""mini-swe-agent trajectories (`*.traj.json`).

Shape: `{"info": {"submission", "config", "mini_version", ...}, "messages": [{"role", "content"}],
"trajectory_format": "mini-swe-agent-1"}`. The model's action is the one fenced ```bash block
in its text; observations come back as *user* messages `<returncode>N</returncode><output>…`,
format complaints as user messages too. Both are tool/harness output here (they never open a
round), so a run has exactly as many rounds as assistant steps.
"""

from __future__ import annotations

import json
import re
from typing import Any

from compaction.model import Message, Role, ToolCall, ToolKind, ToolResult, Transcript
from compaction.transcripts._io import content_text, expect, load_json

NAME = "mini-swe-agent"
DESCRIPTION = "mini-swe-agent trajectory (.traj.json): messages with ```bash actions and <returncode> observations"

# The agent's own action regex (v1 DefaultAgent.action_regex; v2 text models use mswea_bash_command):
# exactly one match = one action, anything else earns a format complaint.
_ACTION = re.compile(r"```(?:bash|mswea_bash_command)(?:(?>\s*\n)(?=.*?\n```)|\s*\n(?=[^\S\n]*\n```))(.*?)\n```", re.S)
_RETURNCODE = re.compile(r"\A\s*<returncode>\s*(-?\d+)\s*</returncode>\s*")
_WARNING = re.compile(r"<warning>(.*?)</warning>", re.S)
_OUTPUT = re.compile(r"<output>\n?(.*?)</output>", re.S)
_HEAD_TAIL = re.compile(r"<output_head>\n?(.*?)</output_head>.*?<output_tail>\n?(.*?)</output_tail>", re.S)
_FORMAT_ERROR = re.compile(r"\A\s*Please always provide EXACTLY ONE action", re.I)
_TIMEOUT = re.compile(r"\A\s*The last command <command>(.*?)</command> timed out", re.S)
_SUBMIT = "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"
_DIFF = re.compile(r"\A\s*(diff --git |--- a/|Index: )")


def sniff(head: str, path: str) -> int:
    score = 0
    if '"trajectory_format": "mini-swe-agent' in head or '"trajectory_format":"mini-swe-agent' in head:
        score = 100
    elif '"mini_version"' in head or "minisweagent." in head:
        score = 95
    elif '"messages"' in head and ("<returncode>" in head or "mswea_bash_command" in head) and "```" in head:
        score = 85
    if score and path.endswith(".traj.json"):
        score = min(100, score + 3)
    return score


def _observation(text: str, call_id: str | None, extra: Any = None) -> ToolResult | None:
    m = _RETURNCODE.match(text)
    if not m and isinstance(extra, dict) and isinstance(extra.get("returncode"), int):
        code = extra["returncode"]  # v2 records the raw output and return code in `extra`
        out = _OUTPUT.search(text)
        raw = extra.get("raw_output") if isinstance(extra.get("raw_output"), str) else None
        content = (raw if raw is not None else out.group(1) if out else text) + (_after(text, out.end()) if out else "")
        return ToolResult(content=content, call_id=call_id, name="bash", is_error=code != 0, exit_code=code)
    if m:
        code = int(m.group(1))
        out = _OUTPUT.search(text, m.end())
        if out:
            content = out.group(1) + _after(text, out.end())
        else:
            ht = _HEAD_TAIL.search(text, m.end())
            content = f"{ht.group(1)}\n[…]\n{ht.group(2)}{_after(text, ht.end())}" if ht else text[m.end():]
            warning = _WARNING.search(text, m.end())
            if ht and warning:  # the harness's own complaint ("output … too long") is evidence too
                content = f"{warning.group(0)}\n{content}"
        return ToolResult(content=content, call_id=call_id, name="bash", is_error=code != 0, exit_code=code)
    if _TIMEOUT.match(text):
        return ToolResult(content=text, call_id=call_id, name="bash", is_error=True)
    return None


def _after(text: str, end: int) -> str:
    """What the observation says after its output block (a harness note, a reminder): the model saw it."""
    rest = text[end:].strip()
    return f"\n{rest}" if rest else ""


def _openai_tool_calls(raw: Any) -> list[ToolCall]:
    """Newer mini-swe-agent versions may record OpenAI-style tool calls; read them if present."""
    calls: list[ToolCall] = []
    for tc in raw if isinstance(raw, list) else []:
        if not isinstance(tc, dict):
            continue
        fn = tc.get("function") if isinstance(tc.get("function"), dict) else {}
        args: Any = fn.get("arguments", {})
        if isinstance(args, str):
            try:
                args = json.loads(args)
            except (ValueError, RecursionError):
                args = {"raw": args}
        args = args if isinstance(args, dict) else {"value": args}
        cmd = args.get("command") if isinstance(args.get("command"), str) else None
        calls.append(ToolCall(name=str(fn.get("name") or "bash"), arguments=args, id=tc.get("id"),
                              kind=ToolKind.SHELL if cmd else ToolKind.OTHER, command=cmd))
    return calls


def load(path: str) -> Transcript:
    data = load_json(path)
    expect(isinstance(data, dict), path, "mini-swe-agent trajectory must be a JSON object", 1)
    msgs = data.get("messages")
    expect(isinstance(msgs, list), path, '"messages" must be a list', 1)
    info = data.get("info") if isinstance(data.get("info"), dict) else {}
    t = Transcript(path=path, format=NAME, messages=[])
    cfg = info.get("config") if isinstance(info.get("config"), dict) else {}
    env = cfg.get("environment") if isinstance(cfg.get("environment"), dict) else {}
    t.cwd = env.get("cwd") if isinstance(env.get("cwd"), str) else None
    if isinstance(info.get("submission"), str):
        t.meta["final_patch"] = info["submission"]
    for key in ("exit_status", "mini_version"):
        if key in info:
            t.meta[key] = info[key]
    if "instance_id" in data:
        t.meta["instance_id"] = data["instance_id"]

    seen_task = False
    pending_ids: list[str | None] = []  # ids of the last assistant's actions awaiting observations
    submitted = False
    for i, raw in enumerate(msgs):
        expect(isinstance(raw, dict), path, f"messages[{i}] must be an object")
        role = raw.get("role")
        text = content_text(raw.get("content"))
        idx = len(t.messages)
        if role == "system":
            t.messages.append(Message(idx, Role.SYSTEM, text))
        elif role == "assistant":
            calls = _openai_tool_calls(raw.get("tool_calls"))
            extra = raw.get("extra") if isinstance(raw.get("extra"), dict) else {}
            if not calls and isinstance(extra.get("actions"), list):
                calls = [ToolCall(name="bash", arguments={"command": a["command"]}, id=f"call-{idx}-{k}",
                                  kind=ToolKind.SHELL, command=a["command"])
                         for k, a in enumerate(extra["actions"])
                         if isinstance(a, dict) and isinstance(a.get("command"), str)]
            if not calls:
                actions = _ACTION.findall(text)
                if len(actions) == 1:
                    calls = [ToolCall(name="bash", arguments={"command": actions[0]}, id=f"call-{idx}",
                                      kind=ToolKind.SHELL, command=actions[0])]
            pending_ids = [c.id for c in calls]
            submitted = any(c.command and _SUBMIT in c.command for c in calls)
            msg = Message(idx, Role.ASSISTANT, text, tool_calls=calls)
            if calls and not raw.get("tool_calls"):
                msg.meta["calls_in_text"] = True  # the command is also in the text (fenced block)
            t.messages.append(msg)
        elif role in ("user", "tool", "exit"):
            if role == "user" and not seen_task:
                seen_task = True
                t.messages.append(Message(idx, Role.USER, text))
                continue
            msg = Message(idx, Role.TOOL, text, harness=True)
            call_id = raw.get("tool_call_id") if isinstance(raw.get("tool_call_id"), str) else (
                pending_ids[0] if pending_ids else None)
            if call_id in pending_ids:
                pending_ids.remove(call_id)
            result = _observation(text, call_id, raw.get("extra"))
            if result is not None:
                msg.tool_results.append(result)
                msg.text = ""
                msg.harness = False
                if submitted and _DIFF.match(result.content):
                    msg.meta["final_patch_echo"] = msg.harness = True
                    submitted = False
            elif _FORMAT_ERROR.match(text):
                msg.meta["format_error"] = True
            elif submitted or (role == "exit" and _DIFF.match(text)) or (call_id is None and _DIFF.match(text)):
                # The harness's echo of the final diff after COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT.
                msg.meta["final_patch_echo"] = True
                submitted = False
            elif role == "tool":
                msg.tool_results.append(ToolResult(content=text, call_id=call_id))
                msg.text, msg.harness = "", False
            if role != "tool":
                pending_ids = []
            t.messages.append(msg)
        else:
            t.skip(f"role:{role}")
    expect(bool(t.messages), path, "no messages")
    return t
