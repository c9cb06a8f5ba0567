"""Terminal control sequences out of transcript text (issue 13 item 3), before anything reads it.

A shell's output reaches a transcript with its colours (`\\x1b[31;1m`), sometimes with the escape
character already lost (a bare `[31;1m`, as PowerShell output on Windows shows), and with carriage
returns: `\\r\\n` line ends and progress bars that redraw one line. Extraction (errors, paths, test
counts) and rendering want the text a terminal would show: colours removed, `\\r\\n` as `\\n`, and of a
line redrawn with `\\r` its last drawing.
"""

from __future__ import annotations

import re

from compaction.model import Transcript

# CSI (colours, cursor moves), OSC (titles, hyperlinks), then two-character escapes.
_ESCAPE_RE = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]")
# A colour sequence whose escape character was lost: `[31;1m`, `[0m` (digits only, ending in m).
_BARE_SGR_RE = re.compile(r"\[(?:\d{1,3}(?:;\d{1,3})*)?m(?![a-z])")


def clean_text(text: str) -> str:
    """`text` as a terminal shows it (see the module docstring); unchanged when it has nothing to clean."""
    if not isinstance(text, str):
        return text
    if "\x1b" in text:
        text = _ESCAPE_RE.sub("", text)
    if "m" in text and "[" in text:
        text = _BARE_SGR_RE.sub("", text)
    if "\r" in text:
        text = text.replace("\r\n", "\n")
        if "\r" in text:
            text = "\n".join(_last_drawing(line) for line in text.split("\n"))
    return text


def _last_drawing(line: str) -> str:
    if "\r" not in line:
        return line
    drawings = [d for d in line.split("\r") if d.strip()]
    return drawings[-1] if drawings else ""


def clean_transcript(t: Transcript) -> None:
    """Clean every message's text and tool output in place (the original file is never touched)."""
    for msg in t.messages:
        msg.text = clean_text(msg.text)
        for r in msg.tool_results:
            r.content = clean_text(r.content)
