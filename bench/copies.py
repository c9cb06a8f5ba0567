"""Evaluation copies of the real transcripts: harness-appended patches removed, markers planted.

Why copies: the modified-files score must come from the agent's own edits, not from a diff the
harness appended at the end (`info.submission`, `test_result.git_patch`, the final diff echo), and
markers must be planted somewhere the engine has to carry them through the summary (the first
third). Originals are never touched; each copy stays a valid file of its format.
"""

from __future__ import annotations

import json
import random
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

SUBMIT = "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"
_DIFF_START = re.compile(r"^\s*diff --git ", re.M)


@dataclass
class Marker:
    kind: str  # important | decision | todo
    where: str  # assistant | user | tool
    text: str  # the full line planted (verbatim)
    token: str  # unique random token inside it

    @property
    def needle(self) -> str:
        """What must survive verbatim: the marker keyword with its token."""
        return f"@{self.kind} {self.token}"


@dataclass
class PreparedCopy:
    original: Path
    path: Path
    fmt: str
    markers: list[Marker] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)  # what harness-appended material was removed


def detect_format(path: Path) -> str:
    """Format by name and a peek at the content (independent of the library's sniffers)."""
    name = path.name
    if name.endswith(".traj.json"):
        return "mini"
    if name.endswith(".traj"):
        return "sweagent"
    if name.endswith(".md"):
        return "aider"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError:
        data = None
    if isinstance(data, dict):
        if "history" in data and ("instruction" in data or "instance_id" in data):
            return "openhands"
        if "trajectory_format" in data or "messages" in data:
            return "mini"
        if "trajectory" in data:
            return "sweagent"
    raise ValueError(f"{path}: unknown transcript format for the benchmark")


def make_markers(seed: str) -> list[Marker]:
    rng = random.Random(seed)
    specs = [("decision", "assistant", "we keep the public API unchanged and fix it internally"),
             ("todo", "user", "also update the changelog before finishing"),
             ("important", "tool", "the staging database must not be touched")]
    out = []
    for kind, where, words in specs:
        token = f"BMK-{kind[:3].upper()}-{rng.getrandbits(40):010x}"
        out.append(Marker(kind, where, f"@{kind} {token} {words}", token))
    return out


def prepare(original: Path, dest_dir: Path, plant: bool = True) -> PreparedCopy:
    """Write the evaluation copy of `original` into `dest_dir` and say what was changed."""
    fmt = detect_format(original)
    dest = dest_dir / original.name
    markers = make_markers(original.name) if plant else []
    copy = PreparedCopy(original, dest, fmt, markers)
    if fmt == "aider":
        lines = original.read_text(encoding="utf-8").split("\n")
        if plant:
            lines = _plant_aider(lines, markers)
        dest.write_text("\n".join(lines), encoding="utf-8")
        return copy
    data = json.loads(original.read_text(encoding="utf-8"))
    {"mini": _mini, "sweagent": _sweagent, "openhands": _openhands}[fmt](data, copy, plant)
    dest.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
    return copy


def _by_where(markers: list[Marker]) -> dict[str, Marker]:
    return {m.where: m for m in markers}


def _third(n: int) -> int:
    return max(1, n // 3)


def _insert_output(text: str, line: str) -> str:
    """Put a line inside an observation: right after `<output>` if there is one, else first."""
    if "<output>\n" in text:
        return text.replace("<output>\n", f"<output>\n{line}\n", 1)
    return f"{line}\n{text}"


def _drop_submission(data: dict, copy: PreparedCopy) -> None:
    """The harness-appended final patch of SWE-agent-style trajectories: removed, and said so."""
    info = data.get("info") or {}
    if "submission" in info:
        info.pop("submission")
        copy.removed.append("info.submission")


def _mini(data: dict, copy: PreparedCopy, plant: bool) -> None:
    _drop_submission(data, copy)
    msgs = data["messages"]
    submit_at = [i for i, m in enumerate(msgs) if m.get("role") == "assistant" and SUBMIT in str(m.get("content"))]
    if submit_at:
        for j in range(submit_at[-1] + 1, len(msgs)):
            if msgs[j].get("role") in ("user", "tool", "exit") and str(msgs[j].get("content")).strip():
                msgs[j]["content"] = ""
                copy.removed.append(f"messages[{j}] (final diff echo)")
    if not plant:
        return
    where = _by_where(copy.markers)
    limit = _third(len(msgs))
    task = next(i for i, m in enumerate(msgs) if m.get("role") == "user")
    msgs[task]["content"] = f"{msgs[task]['content']}\n\n{where['user'].text}\n"
    asst = [i for i in range(task + 1, limit) if msgs[i].get("role") == "assistant"]
    obs = [i for i in range(task + 1, limit) if msgs[i].get("role") == "user" and "<output>" in str(msgs[i]["content"])]
    a = asst[len(asst) // 2]
    msgs[a]["content"] = f"{where['assistant'].text}\n\n{msgs[a]['content']}"
    o = obs[len(obs) // 2]
    msgs[o]["content"] = _insert_output(msgs[o]["content"], where["tool"].text)


def _sweagent(data: dict, copy: PreparedCopy, plant: bool) -> None:
    _drop_submission(data, copy)
    steps = data["trajectory"]
    for i, step in enumerate(steps):
        if str(step.get("action", "")).strip().startswith("submit") and _DIFF_START.search(str(step.get("observation"))):
            step["observation"] = ""
            copy.removed.append(f"trajectory[{i}].observation (final diff echo)")
    if not plant:
        return
    where = _by_where(copy.markers)
    task = next(h for h in data.get("history", [])
                if h.get("role") == "user" and not h.get("is_demo") and h.get("message_type") != "demonstration")
    task["content"] = f"{task['content']}\n\n{where['user'].text}\n"
    limit = _third(len(steps))
    a = steps[max(0, limit // 2 - 1)]
    for key in ("thought", "response"):
        if isinstance(a.get(key), str):
            a[key] = f"{where['assistant'].text}\n\n{a[key]}"
    o = steps[min(limit - 1, limit // 2)]
    o["observation"] = f"{where['tool'].text}\n{o.get('observation') or ''}"


def _openhands(data: dict, copy: PreparedCopy, plant: bool) -> None:
    tr = data.get("test_result")
    if isinstance(tr, dict) and "git_patch" in tr:
        tr.pop("git_patch")
        copy.removed.append("test_result.git_patch")
    if not plant:
        return
    where = _by_where(copy.markers)
    hist = data["history"]
    line = where["user"].text
    if isinstance(data.get("instruction"), str):
        data["instruction"] = f"{data['instruction']}\n\n{line}\n"
    for ev in hist:
        if ev.get("action") == "message" and ev.get("source") == "user":
            if isinstance(ev.get("message"), str):
                ev["message"] = f"{ev['message']}\n\n{line}\n"
            args = ev.get("args")
            if isinstance(args, dict) and isinstance(args.get("content"), str):
                args["content"] = f"{args['content']}\n\n{line}\n"
            break
    limit = _third(len(hist))
    acts = [ev for ev in hist[:limit] if ev.get("source") == "agent" and ev.get("action") in ("run", "read", "edit", "think")
            and isinstance((ev.get("args") or {}).get("thought"), str) and ev["args"]["thought"].strip()]
    if not acts:  # no thought in the first third: take the first agent action with one
        acts = [ev for ev in hist if ev.get("source") == "agent" and ev.get("action") in ("run", "read", "edit")
                and isinstance((ev.get("args") or {}).get("thought"), str)][:1]
    a = acts[len(acts) // 2]
    a["args"]["thought"] = f"{where['assistant'].text}\n\n{a['args']['thought']}"
    obs = [ev for ev in hist[:limit] if ev.get("observation") in ("run", "read") and isinstance(ev.get("content"), str)
           and ev["content"].strip()]
    o = obs[len(obs) // 2]
    o["content"] = f"{where['tool'].text}\n{o['content']}"


def _plant_aider(lines: list[str], markers: list[Marker]) -> list[str]:
    where = _by_where(markers)
    limit = _third(len(lines))
    fence = False
    prose: list[int] = []
    users: list[int] = []
    harness: list[int] = []
    for i, line in enumerate(lines[:limit]):
        if line.lstrip().startswith("```"):
            fence = not fence
            continue
        if fence:
            continue
        if line.startswith("#### ") and len(line) > 25:
            users.append(i)
        elif line.startswith("> ") and len(line) > 10:
            harness.append(i)
        elif (line.strip() and not line.startswith(("#", ">", "<<<<<<<", "=======", ">>>>>>>")) and i > 0
              and not lines[i - 1].strip() and line.rstrip().endswith((".", ":"))):
            prose.append(i)  # a prose paragraph opening after a blank line: never a file name before a fence
    inserts = [(users[len(users) // 2] + 1, f"#### {where['user'].text}"),
               (prose[len(prose) // 2], where["assistant"].text),
               (harness[len(harness) // 2] + 1, f"> {where['tool'].text}")]
    for at, text in sorted(inserts, reverse=True):
        lines.insert(at, text)
    return lines


def copy_unchanged(original: Path, dest_dir: Path) -> Path:
    dest = dest_dir / original.name
    shutil.copyfile(original, dest)
    return dest
