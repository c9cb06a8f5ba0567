"""A reply of the agent's on one line (the excerpts of its earlier replies, the later accounts a recap is told
with): Markdown's marks out, code blocks counted, code spans untouched (`**kwargs` is a name)."""

from __future__ import annotations

import re

from compaction.mdsafe import escape_invisible
from compaction.transcripts._fences import FENCE_LINE, outside_fences

_MARK_RE = re.compile(r"^\s*(?:[-*•+]|\d{1,2}[.)])\s+|^\s*#{1,6}\s+|^\s*>\s?")  # a list item's, heading's, quote's mark


def flattened(text: str) -> str:
    """A reply on one line: its prose lines joined by " · " without list marks, heading or quote marks, bold
    outside code spans; a code block as "[N lines of code]" (the change records tell what was written)."""
    lines = text.splitlines()
    prose = dict(outside_fences(lines))
    out: list[str] = []
    code = 0
    for i, line in enumerate(lines):
        if i not in prose:
            code += not FENCE_LINE.match(line)  # a fence line itself is no line of code
            continue
        if code:
            out.append(_code_note(code))
            code = 0
        line = unbold(_MARK_RE.sub("", line)).strip()
        if line and line.strip("-=*_") and line != "---":
            out.append(line)
    if code:
        out.append(_code_note(code))
    flat = escape_invisible(" ".join(" · ".join(out).split()))  # a line of Markdown: no backslash doubled
    return flat.replace("`", "") if flat.count("`") % 2 else flat  # an open code span would run on


def unbold(line: str) -> str:
    """The line without Markdown's bold marks outside code spans, those inside kept (`**kwargs` is a name); a
    mark beside a span goes too (bold around a code span, the common way to bold a name, kept its marks
    under a paired-span rule)."""
    if "**" not in line:
        return line
    parts = line.split("`")
    return "`".join(p.replace("**", "") if i % 2 == 0 else p for i, p in enumerate(parts))


def _code_note(n: int) -> str:
    return f"[{n} line{'' if n == 1 else 's'} of code]"
