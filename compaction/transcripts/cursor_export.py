"""Cursor's own chat export (the chat panel's "Export Chat" / "Copy as Markdown").

`# Title`, `_Exported on <date> from Cursor (<version>)_`, then sections that open with a bold speaker line
on its own, `**User**` or `**Cursor**`, separated by `---` (which also occurs inside answers as a plain
rule, so only the speaker lines split). The export holds the conversation's text and code blocks; code
citations are fenced as ```` ```12:20:path/to/file.ts ````, which name a file the assistant read.
"""

from __future__ import annotations

import re

from compaction.model import Message, Role, ToolKind, Transcript, TranscriptError
from compaction.transcripts._agent_tools import make_call
from compaction.transcripts._fences import outside_fences
from compaction.transcripts._io import read_text

NAME = "cursor-export"
DESCRIPTION = "Cursor chat export Markdown (_Exported on … from Cursor (x.y)_, **User** / **Cursor**)"

_BANNER = re.compile(r"^_Exported on .+ from Cursor \([^)\n]*\)_[ \t]*$", re.M)
_SPEAKER = re.compile(r"^\*\*(User|Cursor)\*\*[ \t]*$")
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})(.*)$")
_CITATION = re.compile(r"^(\d+):(\d+):(\S+)$")


def sniff(head: str, path: str) -> int:
    if _BANNER.search(head[:4000]):
        return 95
    if re.search(r"^\*\*User\*\*[ \t]*$", head, re.M) and re.search(r"^\*\*Cursor\*\*[ \t]*$", head, re.M):
        return 70
    return 0


def load(path: str) -> Transcript:
    lines = read_text(path).replace("\r\n", "\n").split("\n")
    t = Transcript(path=path, format=NAME, messages=[])
    starts: list[tuple[int, str]] = []
    for i, line in outside_fences(lines):  # a speaker line quoted in code is not a turn
        sm = _SPEAKER.match(line)
        if sm:
            starts.append((i, sm.group(1)))
    if not starts:
        raise TranscriptError(path, "no **User** / **Cursor** speaker lines: not a Cursor chat export")
    preamble = "\n".join(lines[:starts[0][0]]).strip()
    if preamble:
        t.messages.append(Message(0, Role.SYSTEM, preamble, line=1, harness=True))
    for n, (start, who) in enumerate(starts):
        end = starts[n + 1][0] if n + 1 < len(starts) else len(lines)
        body = "\n".join(lines[start + 1:end]).strip()
        if body.endswith("\n---") or body == "---":
            body = body[:-3].rstrip()
        if who == "User":
            t.messages.append(Message(len(t.messages), Role.USER, body, line=start + 1))
            continue
        msg = Message(len(t.messages), Role.ASSISTANT, body, line=start + 1)
        for k, fm in enumerate(m for m in map(_FENCE.match, body.split("\n")) if m):
            cite = _CITATION.match(fm.group(2).strip())
            if cite:  # a quoted excerpt of a file: evidence that the file was read
                call = make_call("code_citation", {"path": cite.group(3), "lines": f"{cite.group(1)}-{cite.group(2)}"},
                                 f"cite-{start}-{k}", ToolKind.READ)
                msg.tool_calls.append(call)
        if msg.tool_calls:
            msg.meta["calls_in_text"] = True
        t.messages.append(msg)
    return t
