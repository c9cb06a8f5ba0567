"""Change records: for each modified file, what changed — the definitions touched and the removed and
added lines that matter, latest edit first when a file was edited many times (failed and reverted
attempts are counted, not shown).

Why beside the modified-files list rather than in it: the list is essential and short (every file,
always); a change record is longer and optional, so the budget can shrink it to its header line
(`Fact.short`) or leave it out without losing the file.
"""

from __future__ import annotations

import re
from collections import Counter, OrderedDict
from dataclasses import dataclass, field

from compaction.edits import Hunk, definitions
from compaction.events import Event, EventKind
from compaction.history.facts import Fact, cite, display_path
from compaction.history.sections import Section
from compaction.history.sources.registry import FactContext, fact_source

MAX_LINES = 10  # diff lines shown per file
MAX_LINE_CHARS = 200  # a longer line is left out whole (never cut mid-line) and counted
_NOISE_RE = re.compile(r"^[\s{}()\[\];,:.'\"`]*$|^\s*(?:/\*\*?|\*/?|\"\"\"|''')(?:\s|$)")
_CHANGES = (EventKind.WRITE, EventKind.EDIT)


@dataclass(slots=True)
class _File:
    events: list[Event] = field(default_factory=list)
    failed: int = 0
    reverted: bool = False
    deleted: bool = False
    undone: list[Event] = field(default_factory=list)  # edits a revert (`git checkout -- f`) threw away


@fact_source(Section.CHANGES)
def change_facts(ctx: FactContext) -> list[Fact]:
    if not ctx.preset.code:
        return []
    files: OrderedDict[str, _File] = OrderedDict()
    for e in ctx.events:
        if e.kind not in (*_CHANGES, EventKind.REVERT, EventKind.DELETE) or not e.path:
            continue
        path = display_path(e.path, ctx.cwd)
        if not path or path.startswith(("/tmp/", "/dev/", "/proc/")):
            continue
        info = files.setdefault(path, _File())
        if e.kind is EventKind.REVERT:  # back to the committed state: the edits so far no longer apply
            info.reverted, info.deleted = True, False
            info.undone += info.events
            info.events = []
        elif e.kind is EventKind.DELETE:
            info.deleted = True
        elif e.failed and not e.via_shell:
            info.failed += 1
        else:
            info.events.append(e)
            info.reverted = info.deleted = False
    facts: list[Fact] = []
    for path, info in files.items():
        fact = change_record(path, info.events or info.undone, info.failed, info.reverted and not info.events,
                             info.deleted, undone=len(info.undone) if info.events else 0)
        if fact is not None:
            facts.append(fact)
    return facts


def change_record(path: str, events: list[Event], failed: int = 0, reverted: bool = False,
                  deleted: bool = False, undone: int = 0) -> Fact | None:
    """One file's change record, or None when nothing it shows is known (no payloads, deleted).
    `undone`: earlier edits a revert threw away (counted, not shown)."""
    if deleted or not events:
        return None
    rounds = [e.round for e in events]
    with_payload = {(e.round, e.message_index) for e in events if e.hunks}
    payload_rounds = {r for r, _ in with_payload}
    n = len(with_payload) + len({e.round for e in events if not e.hunks and e.round not in payload_rounds})
    counts = f"{n} edit{'s' if n != 1 else ''}" + (f", {failed} failed attempt{'s' if failed != 1 else ''}"
                                                      if failed else "")
    if undone:
        counts += f", after {undone} earlier edit{'s' if undone != 1 else ''} reverted"
    if reverted:
        return Fact(Section.CHANGES, f"`{path}`: {counts}, then reverted (not kept) {cite(rounds)}", rounds,
                    score=20, path=path)
    touched = _touched(events)
    head = f"`{path}` ({counts}{'; latest first' if n > 1 else ''})"
    if touched:
        head += ": touched " + ", ".join(f"`{t}`" for t in touched[:6])
    lines, skipped = _diff_lines(events)
    if not lines:
        if not touched:
            return None
        text = f"{head} {cite(rounds)}"
        return Fact(Section.CHANGES, text, rounds, score=45 + min(n, 10), path=path)
    more = f"\n  (… {skipped} more changed lines)" if skipped else ""
    text = f"{head} {cite(rounds)}\n" + "\n".join(f"  {line}" for line in lines) + more
    short = f"{head} {cite(rounds[-1:])}"
    return Fact(Section.CHANGES, text, rounds, score=45 + min(n, 10), short=short, path=path)


def _touched(events: list[Event]) -> list[str]:
    """Definitions touched, latest edit first: hunk contexts, then definitions in the changed lines."""
    out: list[str] = []
    for e in reversed(events):
        for hunk in e.hunks:
            names = [hunk.context] if hunk.context and not hunk.context.startswith(("line ", "after ", "insert ",
                                                                                     "append ")) else []
            names += definitions(hunk.added) + definitions(hunk.removed)
            for name in names:
                name = name.strip()
                if name and len(name) <= 60 and name not in out:
                    out.append(name)
    return out


def _informative(line: str) -> bool:
    return bool(line.strip()) and not _NOISE_RE.match(line) and len(line) <= MAX_LINE_CHARS


def _diff_lines(events: list[Event]) -> tuple[list[str], int]:
    """The file's net change as informative lines, latest edit first, at most MAX_LINES whole lines;
    and how many informative lines were left out. A line one edit added and a later one removed
    (a debug print, a reverted attempt) cancels out: the final state wins. A whole-file write shows
    its definitions, not its body."""
    entries: list[tuple[int, str, str]] = []  # (edit order, sign, text)
    inserted: dict[str, str] = {}  # "line N" -> the last line inserted there (`sed 'Ni …'`)
    live: Counter[tuple[str, str]]  # (sign, text) of the entries: most lines have no opposite to cancel
    for order, e in enumerate(events):
        if e.whole and e.hunks:
            entries.clear()  # the file was rewritten whole: what came before is not its state
        live = Counter((sign, text) for _, sign, text in entries)  # once per edit: hunks below keep it current
        for hunk in e.hunks:
            if hunk.deletes_matching:
                pattern = hunk.deletes_matching
                kept = [x for x in entries if not (x[1] == "+" and pattern in x[2])]
                if len(kept) == len(entries):
                    entries.append((order, "=", f"~ removed lines matching `{pattern}`"))
                entries[:] = kept
                continue
            if e.whole or hunk.fragment:
                line = _summary_line(hunk, e.whole)
                if hunk.fragment:
                    old, new = " ".join(hunk.removed).strip(), " ".join(hunk.added).strip()
                    # `a` → `b` after `b` → `a`: back where it was, both go
                    back = f"~ `{new}` → `{old}`"
                    undo = next((i for i in range(len(entries) - 1, -1, -1) if entries[i][2].startswith(back)), None)
                    if undo is not None:
                        del entries[undo]
                        continue
                    # A line this session added, edited in place: the one inserted at the substitution's
                    # line number (`sed '12i …'` then `sed '12s/a/b/'`); with no address, every line holding it.
                    at = inserted.get(hunk.context or "")
                    rewritten = False
                    for i, (o, sign, text) in enumerate(entries):
                        addressed = (hunk.context or "").startswith("line ")  # only that line, if known
                        if sign == "+" and old and old in text and (text == at if addressed else True):
                            entries[i] = (o, sign, text.replace(old, new, -1 if hunk.every else 1))
                            if text == at:
                                inserted[hunk.context or ""] = entries[i][2]
                            rewritten = True
                    if rewritten:
                        continue
                entries.append((order, "=", line))
                continue
            if hunk.context and hunk.context.startswith("insert at ") and hunk.added:
                inserted[f"line {hunk.context[10:]}"] = hunk.added[0].strip()
            for sign, lines in (("-", hunk.removed), ("+", hunk.added)):
                for ln in lines:
                    if not _informative(ln):
                        continue
                    text = ln.strip()
                    opposite = "+" if sign == "-" else "-"
                    undo = None
                    if live[(opposite, text)]:
                        undo = next((i for i in range(len(entries) - 1, -1, -1) if entries[i][1] == opposite
                                     and entries[i][2] == text and entries[i][0] < order), None)
                    if undo is not None:
                        del entries[undo]
                        live[(opposite, text)] -= 1
                        continue
                    entries.append((order, sign, text))
                    live[(sign, text)] += 1
    out: list[str] = []
    seen: set[str] = set()
    skipped = 0
    # Latest edit first; substitutions at a bare line number (`sed '12s/a/b/'`) last: their line is unknown.
    ordered = sorted(entries, key=lambda x: (x[1] == "=" and "` (line " in x[2], -x[0]))
    for _, sign, text in ordered:
        line = text if sign == "=" else f"{sign} {text}"
        if line in seen or not line:
            continue
        seen.add(line)
        if len(out) < MAX_LINES:
            out.append(line)
        else:
            skipped += 1
    return out, skipped


def _summary_line(hunk: Hunk, whole: bool) -> str:
    """One line for a whole-file write (its definitions) or an in-line substitution (`old` → `new`)."""
    if whole:
        names = definitions(hunk.added)
        if names:
            return f"+ defines {', '.join(names[:8])}{' …' if len(names) > 8 else ''} ({len(hunk.added)} lines)"
        kept = [ln.strip() for ln in hunk.added if _informative(ln)]
        return f"+ {kept[0]}{f' … ({len(hunk.added)} lines)' if len(hunk.added) > 1 else ''}" if kept else ""
    old = " ".join(hunk.removed).strip()
    new = " ".join(hunk.added).strip()
    where = f" ({hunk.context})" if hunk.context else ""
    if len(old) + len(new) > 2 * MAX_LINE_CHARS:
        return f"~ a substitution{where}"
    return f"~ `{old}` → `{new}`{where}" if new else f"~ removed `{old}`{where}"
