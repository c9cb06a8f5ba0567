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
BISECT_CHARS = 6  # the widest fitting width is looked for to within this many characters
_FOLDED_WIDTHS = tuple(w for w in WIDTHS if w <= 60)  # once the files fold into one line
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


def path_end(path: str, width: int) -> str:
    """A path within `width` characters by its last parts (`…/handlers/x_069.go`): a file is told from
    its neighbours by its name, which a cut at the end would lose. The name stays whole."""
    if len(path) <= width:
        return path
    parts = path.replace("\\", "/").split("/")
    kept = parts[-1]
    for part in reversed(parts[:-1]):
        if len(kept) + len(part) + 3 > width:
            break
        kept = f"{part}/{kept}"
    return f"…/{kept}"


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
            target: int, block: str = "") -> str:
    """The document within `target` tokens: must-keep items one line each (narrowing), then a cut.
    `block`: the error memory's own block, tried before its one-line form while the items are still
    wide (the budget may hold the records' solutions once the other items are one line each)."""
    keep = [f for f in chosen if must_keep(f)]
    header = pointer_header(lang, source, target)
    last = ""

    def attempt(items: list[Fact], fold: bool | str, width: int, latest: bool) -> str | None:
        nonlocal last
        shrunk = []
        for f in items:
            g = copy.copy(f)
            room = width * 2 if g.section is Section.MODIFIED and fold is True else width
            text = f.text.replace(f.path, path_end(f.path, room - 12), 1) if f.path and f.path in f.text else f.text
            g.text = one_line(text, room)
            if latest:
                g.rounds = f.rounds[-1:]
            shrunk.append(g)
        brief: bool | str = "inline" if fold == "inline" else width <= 60
        fuller = [block] if block and not fold and width == WIDTHS[0] and not latest else []
        for em in fuller + [error_lines(records, lang, brief=brief)]:
            last = render(header, shrunk, em, "")
            if tokens.count(last) <= target:
                return last
        return None

    # First every item on its own narrowing line; then the modified files (not a must-keep kind: the
    # summary's file list and the transcript hold them) fold into one line, so markers, errors, the
    # task and todos keep theirs. Before a line narrows, its rounds go (the latest is pointer enough):
    # words answer, a list of rounds only points; at 60 characters and below the latest round alone.
    for fold in (False, True, "inline"):
        items = _fold_files(keep) if fold else keep
        widths = _FOLDED_WIDTHS if fold else WIDTHS
        over: int | None = None  # the narrowest width tried that did not fit, with the latest round only
        for width, latest in [(w, latest) for w in widths for latest in ((False, True) if w > 60 else (True,))]:
            fitting = attempt(items, fold, width, latest)
            if fitting is None:
                over = width if latest else over
                continue
            # Between the width that fits and the one that did not, the widest that fits: a step
            # from 100 to 60 characters would leave a fifth of a budget of long paths unspent.
            lo, hi = width, over
            while hi is not None and latest and hi - lo > BISECT_CHARS:
                mid = (lo + hi) // 2
                wider = attempt(items, fold, mid, True)
                if wider is None:
                    hi = mid
                else:
                    lo, fitting = mid, wider
            return fitting
    return cut(last, target, source)


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
