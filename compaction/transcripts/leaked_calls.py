"""Tool calls a model wrote into its text in its raw call tokens, told as what they are.

Why: some models (DeepSeek's tokens `<｜tool▁call▁begin｜>name<｜tool▁sep｜>arg…<｜tool▁call▁end｜>`)
sometimes print a call instead of making it; the harness never ran it. Left in the text, the call's
arguments read as the agent's own words: a file's checklist (`- [ ] CI green`) became pending next
steps, its prose decisions. The block is replaced by one line naming the call and its file, marked as
not run; the text as written stays in the message's meta (nothing the model wrote is thrown away).
"""

from __future__ import annotations

import re

from compaction.model import Message, Role
from compaction.transcripts.arg_names import ArgRole, is_name

_BLOCK_RE = re.compile(r"(?:<｜tool▁calls▁begin｜>)?<｜tool▁call▁begin｜>(.*?)(?:<｜tool▁call▁end｜>|\Z)"
                       r"(?:\s*<｜tool▁calls▁end｜>)?", re.DOTALL)
_SEP = "<｜tool▁sep｜>"


def _told(block: str) -> str:
    """One line for a written call: its name and the file its arguments name."""
    head, *args = block.split(_SEP)
    name = head.strip().split("\n", 1)[0].strip() or "a tool"
    path = ""
    for arg in args:
        key, _, value = arg.partition("\n")
        if is_name(key.strip(), ArgRole.PATH) and value.strip():
            path = " " + value.strip().split("\n", 1)[0]
            break
    return f"[a `{name}` call written as text, not run:{path}]"


def tell_leaked_calls(messages: list[Message]) -> None:
    """Replace, in place, each assistant text's written-out call blocks by the line that tells them."""
    for msg in messages:
        if msg.role is not Role.ASSISTANT or "<｜tool▁call▁begin｜>" not in msg.text:
            continue
        raw = msg.text
        msg.text = _BLOCK_RE.sub(lambda m: _told(m.group(1)), raw)
        msg.meta["written_calls"] = raw
