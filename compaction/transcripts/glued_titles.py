"""Bold titles an exporter glued to what follows them: SpecStory renders Copilot's progress titles as
`**Describing TLOG error**The publish failed…` and `**Planning the fix****Updating paths**已经…`, with
no space or line between. Read as they are, the titles run into the sentences around them ("…the best
fix.Renaming import alias to avoid conflictsPlanning…"), and every sentence split of the engine misses
the seam. Each such title is put on a line of its own, as the agent's client showed it.

A title is a bold span of plain words opening with a capital, without a sentence's closing mark, where a
title stands (a line's start, after a sentence's end or another title), glued to another title, to a
capitalised word or to a CJK character. Bold glued to lower-case text (`**not**ever`) or inside prose
(`**注意**这是`, `请在**GitHub Actions**中配置`) is emphasis, left alone.
"""

from __future__ import annotations

import re

from compaction.model import Role, Transcript

_GLUED_RE = re.compile(r"(?:^|(?<=[.!?。！？])|(?<=\*\*))\*\*([A-Z][A-Za-z0-9 ,'’/()&+-]{1,80}?[A-Za-z0-9)])\*\*"
                       r"(?=\*\*[A-Z]|[A-Z][a-z]|[\u3040-\u30ff\u3400-\u9fff])", re.MULTILINE)


def unglue(text: str) -> str:
    """`text` with each glued title on a line of its own (a break after it, and before it when it follows
    a sentence's end with no space); unchanged when it has none."""
    if "**" not in text:
        return text

    def apart(m: re.Match[str]) -> str:
        if " " not in m.group(1):
            return m.group(0)  # one word in bold is emphasis, not a title
        before = "\n" if m.start() and text[m.start() - 1] in _ENDS else ""
        return f"{before}{m.group(0)}\n"

    return _GLUED_RE.sub(apart, text)


_ENDS = ".!?。！？"


def unglue_transcript(t: Transcript) -> None:
    """The agent's messages' text with its glued titles apart (in place; the file is never touched)."""
    for msg in t.messages:
        if msg.role is Role.ASSISTANT and msg.text:
            msg.text = unglue(msg.text)
