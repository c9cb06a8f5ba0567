"""The sentences of a text around keywords: plain substring searches find where to look, and only
those sentences are cut out. Why not a sentence split and a regex per sentence: the fact sources
that read every assistant message (findings, reasoned choices) would then cost a scan of every
character per pattern; most messages hold none of the keywords."""

from __future__ import annotations

import re

from compaction.events import without_fences

# The label some harnesses make the agent open its reply with (mini-swe-agent's `THOUGHT:`): no words of its own.
# Kana, CJK ideographs, hangul: text that needs no space after a stop
WIDE_CLASS = "[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]"
# Right after a Latin stop, the start of wide text ("…in Chinese.已在源头修正…": an English thought, then the reply
# in Chinese, no space between); not inside a name (`guide.中文.md`)
BEFORE_WIDE_TEXT = f"(?={WIDE_CLASS}(?!{WIDE_CLASS}*\\.\\w))"
THOUGHT_RE = re.compile(r"^\s*(?:THOUGHT|DISCUSSION|Thought|Reasoning)\s*:\s*")

_BOUNDARIES = (". ", "! ", "? ", "\n")
WINDOW = 500  # characters searched for a sentence boundary on either side of a keyword


def prose(text: str, limit: int = 8000, code_mark: str = " ") -> str:
    """The text without its fenced code blocks (an unclosed one runs to the end) and without a harness's
    label opening it (mini-swe-agent's `THOUGHT:`), at most `limit` chars: the same fence rule as the
    events' (compaction.events.without_fences; `code_mark` stands where a block was). Curly apostrophes
    read straight: the cue phrases ("I'm going to", "doesn't work") are written with `'`, and some models
    write `’` (GPT-5's "I’m")."""
    return straight(THOUGHT_RE.sub("", without_fences(text[:limit], code_mark)))


def straight(text: str) -> str:
    """The text with its typographic apostrophes (U+2019) as `'`, outside `code spans` (a string the code
    holds is quoted as it is): one length, so offsets hold."""
    if _CURLY not in text:
        return text
    if "`" not in text:
        return text.replace(_CURLY, "'")
    parts = text.split("`")
    last = len(parts) - 1 if len(parts) % 2 == 0 else -1  # after a backtick no other closes: prose again
    return "`".join(p if i % 2 and i != last else p.replace(_CURLY, "'") for i, p in enumerate(parts))


_CURLY = "\u2019"


def sentences_around(text: str, keywords: tuple[str, ...]) -> list[str]:
    """Each sentence of `text` holding a keyword (matched in lower case), once, in order, whitespace
    collapsed and list bullets stripped."""
    lowered = text.lower()
    if len(lowered) != len(text):  # a few letters change length when lowered: keep offsets aligned
        lowered = "".join(c.lower() if len(c.lower()) == 1 else c for c in text)
    hits: list[int] = []
    for word in keywords:
        at = lowered.find(word)
        while at >= 0:
            hits.append(at)
            at = lowered.find(word, at + len(word))
    out: list[str] = []
    done_until = -1
    for at in sorted(hits):
        if at < done_until:
            continue
        # A sentence is at most WINDOW characters either side: a boundary kind the text lacks is not
        # searched for to the text's ends at every hit.
        lo = max(0, at - WINDOW)
        start = lo
        for b in _BOUNDARIES:
            k = lowered.rfind(b, lo, at)
            if k >= 0:
                start = max(start, k + len(b))
        end = min(len(text), at + WINDOW)
        for b in _BOUNDARIES:
            k = lowered.find(b, at, end)
            if k >= 0:
                end = k + 1
        done_until = end
        s = " ".join(text[start:end].split()).lstrip("-*• ").strip()
        s = row_text(s) if s[:1] == "|" else s
        if s:
            out.append(s)
    return out


def row_text(line: str) -> str:
    """A Markdown table's row as the words it holds (`| run_benchmark.sh | Fixed kill_vllm |` →
    `run_benchmark.sh: Fixed kill_vllm`): its pipes are layout, a reader of one row wants its cells;
    a separator row (`|---|---|`) is "". Any other line is itself."""
    stripped = line.strip()
    if not (stripped.startswith("|") and stripped.endswith("|") and len(stripped) > 1):
        return line
    cells = [c.strip() for c in stripped[1:-1].split("|")]
    cells = [c for c in cells if c and c.strip(":- ")]
    if not cells:
        return ""
    return cells[0] + (": " + " — ".join(cells[1:]) if len(cells) > 1 else "")
