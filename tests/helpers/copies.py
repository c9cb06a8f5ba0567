"""Copies of the real transcripts with the harness's final patch removed and markers planted.

Used by tests (and the evaluation harness) so that modified files must come from edit events and
markers must survive from the first third of the conversation. Originals are only read.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

MARKERS = {
    "assistant": "@important keep-this-alpha-7731: the parser must stay streaming",
    "user": "@decision keep-this-bravo-4412: use the workspace store, not a temp file",
    "tool": "@todo keep-this-charlie-9043: re-run the flaky suite before release",
}


def _is_final_diff(text: str) -> bool:
    return bool(re.match(r"\s*(<returncode>0</returncode>\s*<output>\s*)?diff --git ", text or ""))


def strip_and_plant(src: Path, dst_dir: Path, plant: bool = True) -> Path:
    """Write a cleaned copy of `src` into dst_dir and return its path."""
    dst = dst_dir / src.name
    name = src.name
    if name.endswith(".md"):
        text = src.read_text(encoding="utf-8")
        if plant:
            lines = text.splitlines(keepends=True)
            third = len(lines) // 3
            users = [i for i, ln in enumerate(lines[:third]) if ln.startswith("#### ") and "Add file" not in ln]
            outs = [i for i, ln in enumerate(lines[:third]) if ln.startswith("> ")]
            bodies = [i for i, ln in enumerate(lines[:third]) if ln.strip() and not ln.startswith(("#", ">", "`"))]
            lines[users[1]] = lines[users[1]].rstrip("\n").rstrip() + f" {MARKERS['user']}\n"
            lines[outs[2]] = lines[outs[2]].rstrip("\n") + f"\n> {MARKERS['tool']}\n"
            lines[bodies[3]] = lines[bodies[3]].rstrip("\n") + f" {MARKERS['assistant']}\n"
            text = "".join(lines)
        dst.write_text(text, encoding="utf-8")
        return dst
    data = json.loads(src.read_text(encoding="utf-8"))
    if "messages" in data:  # mini-swe-agent
        data.get("info", {}).pop("submission", None)
        msgs = data["messages"]
        if msgs and msgs[-1]["role"] == "user" and _is_final_diff(msgs[-1]["content"]):
            msgs.pop()
        if plant:
            third = len(msgs) // 3
            a = [i for i in range(2, third) if msgs[i]["role"] == "assistant"]
            u = [i for i in range(2, third) if msgs[i]["role"] == "user"]
            msgs[a[2]]["content"] = msgs[a[2]]["content"].replace("THOUGHT:", f"THOUGHT: {MARKERS['assistant']}.", 1)
            msgs[1]["content"] += f"\n\n{MARKERS['user']}\n"
            msgs[u[3]]["content"] = msgs[u[3]]["content"].replace("<output>", f"<output>\n{MARKERS['tool']}\n", 1)
    elif "trajectory" in data:  # SWE-agent
        data.get("info", {}).pop("submission", None)
        traj = data["trajectory"]
        if traj and traj[-1]["action"].strip() == "submit":
            traj[-1]["observation"] = ""
        if plant:
            third = len(traj) // 3
            traj[1]["thought"] = f"{MARKERS['assistant']}. " + traj[1]["thought"]
            traj[min(2, third)]["observation"] = MARKERS["tool"] + "\n" + traj[min(2, third)]["observation"]
            for h in data.get("history", []):
                if h["role"] == "user" and not h.get("is_demo") and "ISSUE" in str(h.get("content", "")):
                    h["content"] = str(h["content"]) + f"\n{MARKERS['user']}\n"
                    break
    elif "history" in data:  # OpenHands
        data.get("test_result", {}).pop("git_patch", None)
        if plant:
            hist = data["history"]
            third = len(hist) // 3
            data["instruction"] = data.get("instruction", "") + f"\n{MARKERS['user']}\n"
            for ev in hist:
                if ev.get("source") == "user" and ev.get("action") == "message":
                    ev.setdefault("args", {})["content"] = ev["args"].get("content", "") + f"\n{MARKERS['user']}\n"
                    ev["message"] = ev.get("message", "") + f"\n{MARKERS['user']}\n"
                    break
            obs = [e for e in hist[:third] if "observation" in e and e.get("content")]
            obs[1]["content"] = MARKERS["tool"] + "\n" + obs[1]["content"]
            acts = [e for e in hist[:third] if e.get("action") in ("run", "read", "edit", "think") and e.get("source") == "agent"]
            act = acts[1]
            act.setdefault("args", {})["thought"] = MARKERS["assistant"] + " " + act["args"].get("thought", "")
            act["message"] = MARKERS["assistant"] + " " + act.get("message", "")
    else:
        shutil.copy(src, dst)
        return dst
    dst.write_text(json.dumps(data), encoding="utf-8")
    return dst
