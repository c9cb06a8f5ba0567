"""The most recent rounds, kept verbatim; oversized tool outputs elided in the middle with a note."""

from __future__ import annotations

from compaction import tokens
from compaction.history.steering import Steering, strip_code
from compaction.model import Message, Role, Round

_ROLE_LABEL = {Role.SYSTEM: "system", Role.USER: "user", Role.ASSISTANT: "assistant", Role.TOOL: "tool"}


def elide_middle(text: str, keep_tokens: int, round_no: int) -> tuple[str, int]:
    """Keep the head and tail of `text` (about keep_tokens in all); return (text, tokens elided)."""
    enc = tokens.encoding()
    ids = enc.encode_ordinary(text)
    if len(ids) <= keep_tokens or keep_tokens <= 0 and not ids:
        return text, 0
    keep_tokens = max(keep_tokens, 16)
    head_n = keep_tokens * 2 // 3
    tail_n = keep_tokens - head_n
    head = enc.decode(ids[:head_n])
    tail = enc.decode(ids[-tail_n:]) if tail_n else ""
    # Cut at line boundaries so no line is split mid-way.
    if "\n" in head:
        head = head[: head.rfind("\n")]
    if "\n" in tail:
        tail = tail[tail.find("\n") + 1:]
    elided = len(ids) - tokens.count(head) - tokens.count(tail)
    note = f"\n[… {elided} tokens of output elided from round {round_no} …]\n"
    return head + note + tail, elided


def _message_block(msg: Message, rnd: int, cap: int | None, code: bool, steering: Steering) -> tuple[str, int]:
    elided_total = 0
    label = _ROLE_LABEL[msg.role] + (" (harness)" if msg.harness else "")
    lines = [f"**{label}**:"]
    text = msg.text if code else strip_code(msg.text)
    if msg.meta.get("final_patch_echo"):
        text = "[final diff printed by the harness]"
    if text:
        if cap is not None and msg.role in (Role.TOOL, Role.SYSTEM, Role.USER):
            text, n = elide_middle(text, cap, rnd)
            elided_total += n
        elif cap is not None:
            text, n = elide_middle(text, cap * 2, rnd)
            elided_total += n
        lines.append(text)
    if code:
        for call in msg.tool_calls:
            if call.command and call.command not in msg.text:
                cmd = call.command
                if cap is not None:
                    cmd, n = elide_middle(cmd, cap, rnd)
                    elided_total += n
                lines.append(f"```\n$ {cmd}\n```")
            elif not call.command:
                target = f" {call.path}" if call.path else ""
                lines.append(f"→ {call.name}{target}")
        for res in msg.tool_results:
            content = res.content
            if cap is not None:
                content, n = elide_middle(content, cap, rnd)
                elided_total += n
            status = f" (exit {res.exit_code})" if res.exit_code is not None else (" (error)" if res.is_error else "")
            lines.append(f"```text{status}\n{content}\n```" if content else f"(no output){status}")
    block = "\n".join(lines)
    if steering.ignore and steering.ignored(block):
        return f"**{label}**: [omitted: mentions an ignored topic]", elided_total
    return block, elided_total


def render_tail(rounds: list[Round], budget: int, code: bool, steering: Steering) -> tuple[str, int]:
    """Render rounds verbatim within `budget` tokens, lowering the per-output cap until they fit."""
    if not rounds:
        return "", 0
    caps: list[int | None] = [None, 2000, 1000, 500, 250, 120, 60, 30]
    best = ("", 0)
    for cap in caps:
        parts, elided = [], 0
        for rnd in rounds:
            parts.append(f"### r{rnd.number}")
            for msg in rnd.messages:
                block, n = _message_block(msg, rnd.number, cap, code, steering)
                parts.append(block)
                elided += n
        text = "\n\n".join(parts)
        best = (text, elided)
        if tokens.count(text) <= budget:
            return best
    return best
