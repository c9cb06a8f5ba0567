"""Bold titles an exporter glued to what follows them: SpecStory renders Copilot's progress titles as
`**Describing TLOG error**The publish failed…` and `**Planning the fix****Updating paths**已经…`, with
no space or line between. Read as they are, the titles run into the sentences around them ("…the best
fix.Renaming import alias to avoid conflictsPlanning…"), and every sentence split of the engine misses
the seam. Each such title is put on a line of its own, as the agent's client showed it.

A title is a bold span of plain words opening with a capital, without a sentence's closing mark, glued
to another title, to a capitalised word or to a CJK character. Bold glued to lower-case text
(`**not**ever`) or inside CJK prose (`**注意**这是`) is emphasis, left alone.
"""

from __future__ import annotations

import re

from compaction.model import Role, Transcript

_GLUED_RE = re.compile(r"\*\*([A-Z][A-Za-z0-9 ,'’/()&+-]{1,80}?[A-Za-z0-9)])\*\*"
                       r"(?=\*\*[A-Z]|[A-Z][a-z]|[\u3040-\u30ff\u3400-\u9fff])")


def unglue(text: str) -> str:
    """`text` with each glued title followed by a line break; unchanged when it has none."""
    if "**" not in text:
        return text
    return _GLUED_RE.sub(lambda m: m.group(0) + "\n" if " " in m.group(1) else m.group(0), text)


def unglue_transcript(t: Transcript) -> None:
    """The agent's messages' text with its glued titles apart (in place; the file is never touched)."""
    for msg in t.messages:
        if msg.role is Role.ASSISTANT and msg.text:
            msg.text = unglue(msg.text)
