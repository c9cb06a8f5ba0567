"""The last resort of a budget too small for everything that must be kept: the budget wins and nothing
vanishes (issue 13 item 5).

By the time this runs the verbatim tail and every optional fact are gone. Each must-keep item (the task,
markers, modified files, todos, error-memory records) then shrinks to one line, narrower and narrower,
with a note pointing to the full text: the original transcript at the rounds each line cites. Only when
even one short line per item cannot fit is the document cut, with the same pointer at the cut.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from typing import Any

from compaction import tokens
from compaction.history.facts import Fact, cite
from compaction.history.headings import h
from compaction.history.sections import Section

WIDTHS = (160, 100, 60, 36, 20)  # characters per must-keep line, widest first
_MARKER_RE = re.compile(r"@(?:important|decision|warning|todo)\b", re.IGNORECASE)

Render = Callable[[str, list[Fact], str, str], str]  # (header, facts, error block, dropped text) -> document


def must_keep(f: Fact) -> bool:
    return f.essential or f.task or f.section is Section.MARKED


def one_line(text: str, width: int) -> str:
    """`text` on one line of at most `width` characters; a marker's keyword stays in view."""
    line = " ".join(text.split())
    if len(line) <= width:
        return line
    start = 0
    m = _MARKER_RE.search(line)
    if m:  # the keyword and the word after it (what names the item) stay whole, whatever the width
        named = re.match(r"\W*\S+", line[m.end():])
        end = m.end() + (named.end() if named else 0)
        if end > width - 4:
            start = max(0, m.start() - 8)
        width = max(width, end - start + 2)
        if len(line) - start <= width:
            return ("…" if start else "") + line[start:]
    cut = line[start:start + width - 1].rstrip()
    return ("…" if start else "") + cut + "…"


def error_lines(records: list[Any], lang: str, brief: bool | str = False) -> str:
    """The error memory as one line per record: id, count and rounds (brief: the last round only);
    the full block is in the workspace's error memory and in the transcript."""
    head = f"## {h(lang, 'error_memory')}"
    if brief == "inline":
        lines = [f"- {', '.join(r.id for r in records)}"] if records else []
    elif brief:
        lines = [f"- {r.id} ×{r.count} {cite(r.rounds[-1:])}" for r in records]
    else:
        lines = [f"- {'#recurring ' if r.count >= 2 else ''}{r.id}: ×{r.count} {cite(r.rounds)}" for r in records]
    return "\n".join([head, *lines]) if lines else ""


def pointer_header(lang: str, source: str, target: int) -> str:
    if lang == "zh":
        note = f"> 预算 {target} tokens 容不下全部必留内容：每项缩为一行；全文见原始记录 `{source}` 中所引轮次。"
    else:
        note = f"> {target}-token budget: one line per kept item; full text: `{source}`, rounds cited."
    return f"# {h(lang, 'title')}\n\n{note}"


def squeeze(render: Render, chosen: list[Fact], records: list[Any], *, lang: str, source: str,
            target: int) -> str:
    """The document within `target` tokens: must-keep items one line each (narrowing), then a cut."""
    keep = [f for f in chosen if must_keep(f)]
    header = pointer_header(lang, source, target)
    markdown = ""
    # First every item on its own narrowing line; then the modified files (not a must-keep kind: the
    # summary's file list and the transcript hold them) fold into one line, so markers, errors, the
    # task and todos keep theirs.
    for fold in (False, True, "inline"):
        items = _fold_files(keep) if fold else keep
        for width in WIDTHS[2:] if fold else WIDTHS:
            shrunk = []
            for f in items:
                g = copy.copy(f)
                g.text = one_line(f.text, width * 2 if g.section is Section.MODIFIED and fold is True else width)
                if width <= 60:
                    g.rounds = f.rounds[-1:]  # the latest round is pointer enough
                shrunk.append(g)
            brief: bool | str = "inline" if fold == "inline" else width <= 60
            markdown = render(header, shrunk, error_lines(records, lang, brief=brief), "")
            if tokens.count(markdown) <= target:
                return markdown
    return cut(markdown, target, source)


def _fold_files(keep: list[Fact]) -> list[Fact]:
    files = [f for f in keep if f.section is Section.MODIFIED]
    if len(files) <= 1:
        return keep
    names = ", ".join(f"`{f.path}`" if f.path else f.text for f in files)
    rounds = sorted({r for f in files for r in f.rounds})
    folded = Fact(Section.MODIFIED, f"{len(files)} files: {names}", rounds[-1:], essential=True)
    return [f for f in keep if f.section is not Section.MODIFIED] + [folded]


def cut(markdown: str, target: int, source: str) -> str:
    """The first `target` tokens (at a line end), with a pointer to the full text."""
    note = f"\n[… cut to the {target}-token budget; full text in `{source}`]\n"
    room = max(0, target - tokens.count(note) - 2)
    ids = tokens.encoding().encode_ordinary(markdown)
    head = tokens.encoding().decode(ids[:room])
    if "\n" in head:
        head = head[: head.rfind("\n")]
    out = head + note
    while tokens.count(out) > target and head:
        head = head[: max(0, len(head) - 40)]
        out = head + note
    return out if tokens.count(out) <= target else ""
