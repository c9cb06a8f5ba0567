"""SpecStory Markdown exports: the agent behind the export is read from its header comment, then
that agent's rendered tool blocks are read for the files they changed.

- Claude Code: tool results `File created successfully at: X`, `The file X has been updated`.
- Codex CLI: apply_patch blocks headed `**Add: `X`**` / `**Update: `X`**` (`**Delete: …**` is deleted).
- Cursor: search_replace blocks `<summary>Edit file: X</summary>`; its `write` / `delete_file`
  blocks carry no path, so those are found by reading.
- Copilot Chat (vscode): copilot_createFile `"file_path"`; replaceString / applyPatch carry no
  path, so those are found by reading.
The task is the first `_**User …**_` section.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from bench.ground_truth.common import Derived, excerpt, unique

AGENTS = (("Claude Code Session", "claude-code"), ("Codex CLI Session", "codex"),
          ("cursor Session", "cursor"), ("vscode Session", "copilot"))
CC_CREATED = re.compile(r"^File created successfully at: (.+?)\s*$", re.M)
CC_UPDATED = re.compile(r"^The file (.+?) has been updated[. ]", re.M)
CODEX_PATCH = re.compile(r"^\*\*(Add|Update|Delete|Move to): `(.+?)`\*\*\s*$", re.M)
CURSOR_EDIT = re.compile(r"<summary>Edit file: (.+?)</summary>")
TOOL_BLOCK = re.compile(r'<tool-use [^>]*data-tool-name="([^"]+)"[^>]*>(.*?)</tool-use>', re.S)
USER_HEADING = re.compile(r"^_\*\*User[^\n]*\*\*_\s*$", re.M)
SECTION_END = re.compile(r"^(---\s*$|_\*\*(Agent|Assistant|User)\b)", re.M)


def agent_of(text: str) -> str:
    head = text[:2000]
    return next((name for marker, name in AGENTS if marker in head), "unknown")


def _copilot_created(text: str) -> list[str]:
    out = []
    for name, body in TOOL_BLOCK.findall(text):
        if name != "copilot_createFile":
            continue
        m = re.search(r"```json\s*(\{.*?\})\s*```", body, re.S)
        if m:
            try:
                target = json.loads(m.group(1)).get("file_path")
            except json.JSONDecodeError:
                continue
            if target:
                out.append(target)
    return out


def changed_files(text: str, agent: str) -> list[str]:
    if agent == "claude-code":
        hits = sorted([(m.start(), m.group(1)) for m in CC_CREATED.finditer(text)] +
                      [(m.start(), m.group(1)) for m in CC_UPDATED.finditer(text)])
        return [p for _pos, p in hits]
    if agent == "codex":
        return [target for kind, target in CODEX_PATCH.findall(text) if kind != "Delete"]
    if agent == "cursor":
        return CURSOR_EDIT.findall(text)
    if agent == "copilot":
        return _copilot_created(text)
    return []


def first_request(text: str) -> str:
    m = USER_HEADING.search(text)
    if not m:
        return ""
    rest = text[m.end():]
    end = SECTION_END.search(rest)
    return rest[:end.start()] if end else rest


def derive(path: Path) -> Derived:
    text = path.read_text(encoding="utf-8")
    agent = agent_of(text)
    how = {"claude-code": "specstory/claude-code Write+Edit result lines", "codex": "specstory/codex apply_patch Add/Update headers",
           "cursor": "specstory/cursor search_replace 'Edit file:' headers", "copilot": "specstory/copilot copilot_createFile file_path"}
    return Derived(changed=unique(changed_files(text, agent)), task=excerpt(first_request(text)), how=how.get(agent, "specstory/unknown"))
