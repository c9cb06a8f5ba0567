"""The final diff a harness printed at submission (SWE-agent's `submit`, mini-swe-agent's `git diff
--cached`), its changed lines verbatim when it is short.

Why: it is the one authoritative statement of what the session leaves behind. The change records
rebuild each edit from its call (a line-range edit, a `sed`), and at a small budget they are cut to
fragments ("+ required_elements.append"); three hundred characters of the diff say exactly what
changed (`'PixelRepresentation'` out of the list, appended only for integer pixel data). A long diff is
the change records' to tell within their share; whole, it takes the room every section leaves (before
older verbatim rounds: sklearn's 58 changed lines were a placeholder while its scratch scripts were shown).
Built from the message the loader marked (`final_patch_echo`).
"""

from __future__ import annotations

import re

from compaction import tokens
from compaction.history.facts import LEFTOVER_PRIORITY, Fact
from compaction.history.sections import Section
from compaction.history.sources.registry import FactContext, fact_source
from compaction.mdsafe import fence_for
from compaction.model import Message

_FILE_RE = re.compile(r"^diff --git a/(\S+) b/(\S+)")
MAX_CHANGED_LINES = 24  # a longer diff is the change records' to tell
MAX_CHARS = 1600
LONG_MAX_CHARS = 12_000  # a longer one is shown by its files' change records alone
SCORE = 70
MUST_KEEP_SHARE = 0.1
_HUNK_RE = re.compile(r"@@ -\d+(?:,\d+)? \+(\d+)")  # a hunk header's new first line


@fact_source(Section.CHANGES)
def final_diff_facts(ctx: FactContext) -> list[Fact]:
    if not ctx.preset.code:
        return []
    msg = final_echo(ctx)
    if msg is None:
        return []
    lines = _changed_lines(_printed(msg))
    body = "\n".join(lines)
    if not lines:
        return []
    long = sum(1 for ln in lines if ln.startswith(("+", "-"))) > MAX_CHANGED_LINES or len(body) > MAX_CHARS
    if long and len(body) > LONG_MAX_CHARS:
        return []
    rnd = next((r.number for r in ctx.transcript.rounds if any(m is msg for m in r.messages)), ctx.n_rounds)
    # The changed lines, under their file's name when there are several (one file is named in the head; where
    # in it they are, the change records say: "touched `get_pixeldata`")
    files = [ln[2:] for ln in lines if ln.startswith("# ")]
    shown = [ln for ln in lines if not (len(files) == 1 and ln.startswith("# "))]
    fence = fence_for("\n".join(shown))
    head = f"The final diff the harness printed (r{rnd})" + (f", `{files[0]}`" if len(files) == 1 else "")
    text = f"{head}:\n{fence}diff\n" + "\n".join(shown) + f"\n{fence}"
    if long:  # the change records tell it by file; whole, it is worth the room they all leave
        return [Fact(Section.CHANGES, text, [rnd], score=SCORE, priority=LEFTOVER_PRIORITY, pending=True)]
    # must-keep while it is a small part of the budget; beyond, it competes with the change records it sums up
    small = ctx.target_tokens is None or tokens.count(text) <= ctx.target_tokens * MUST_KEEP_SHARE
    # pending: the verbatim tail shows the diff's message as a placeholder, never the diff
    return [Fact(Section.CHANGES, text, [rnd], score=SCORE, essential=small, pending=True)]


def final_added(ctx: FactContext) -> dict[str, set[str]] | None:
    """Each file's added lines (stripped) in the final diff the harness printed, by the file's path in
    the diff; None when the session printed none. What a submission keeps of an edit: an edit none of
    whose lines is there was taken out again (a debug print removed by a later `sed '/DEBUG/d'`)."""
    found = _final_lines(ctx)
    return found[0] if found is not None else None


def final_removed(ctx: FactContext) -> dict[str, set[str]] | None:
    """Each file's removed lines (stripped) in the final diff, as `final_added` reads its added ones: a line
    the diff both removes and adds was moved, not put back."""
    found = _final_lines(ctx)
    return found[1] if found is not None else None


def _final_lines(ctx: FactContext) -> tuple[dict[str, set[str]], dict[str, set[str]]] | None:
    return ctx.shared(("final_diff", "lines"), lambda: _read_final_lines(ctx))


def _read_final_lines(ctx: FactContext) -> tuple[dict[str, set[str]], dict[str, set[str]]] | None:
    msg = final_echo(ctx)
    if msg is None:
        return None
    added_by: dict[str, set[str]] = {}
    removed_by: dict[str, set[str]] = {}
    added: set[str] | None = None
    removed: set[str] | None = None
    for line in _printed(msg).splitlines():
        if line.startswith("+++ "):  # the new side's name: read whatever the `diff --git` line was (spaces, quotes)
            name = line[4:].strip().strip('"')
            if name != "/dev/null":
                name = name[2:] if name.startswith("b/") else name
                added, removed = added_by.setdefault(name, set()), removed_by.setdefault(name, set())
        elif line.startswith("diff --git"):
            added = removed = None  # until its `+++` line names it
        elif added is not None and line.startswith("+"):
            added.add(line[1:].strip())
        elif removed is not None and line.startswith("-") and not line.startswith("--- "):
            removed.add(line[1:].strip())
    return (added_by, removed_by) if added_by else None  # nothing read: no diff to judge by


def final_echo(ctx: FactContext) -> Message | None:
    """The message in which the harness printed the final diff (the loader marks it), among the last three:
    the session was handed in."""
    return next((m for m in reversed(ctx.transcript.messages[-3:]) if m.meta.get("final_patch_echo")), None)


def _printed(msg: Message) -> str:
    return msg.text + "".join(r.content for r in msg.tool_results)


def _changed_lines(diff: str) -> list[str]:
    """Each file's name, then its hunks' places and their removed and added lines (context left out:
    the change records and the reads carry it). A hunk's place is the line its first change is at (git's
    header counts from the context before it), with the function git names."""
    out: list[str] = []
    header = False  # between a file's `diff --git` and its first hunk: `---`/`+++` name the file there
    start: tuple[int, str] | None = None  # the open hunk's first new line and function, until its first change
    between: list[str] = []  # the context lines since the hunk's last change
    for line in diff.splitlines():
        if m := _FILE_RE.match(line):
            out.append(f"# {m.group(2)}")
            header = True
            start = None
            between = []
        elif line.startswith("@@"):
            m = _HUNK_RE.match(line)
            start = (int(m.group(1)), _function(line)) if m else (0, "")
            header = False
            between = []
        elif line.startswith(("+", "-")) and not (header and line.startswith(("+++", "---"))):
            if start is not None:
                at, function = start
                out.append(f"@@ line {at}{f' in `{function}`' if function else ''}" if at else "@@")
                start = None
            out.extend(_kept_context(between))
            between = []
            out.append(line)
        elif start is not None and line.startswith(" "):
            start = (start[0] + 1, start[1])  # a context line before the first change
        elif line.startswith(" "):
            between.append(line)
    return out


_CLOSER_RE = re.compile(r"^ \s*[\])}]+[;,]?\s*$")  # a context line that only closes a bracket: `    ]`, `});`
_GAP = " …"


def _kept_context(lines: list[str]) -> list[str]:
    """Of the context between two changes of a hunk, the lines that only close a bracket (pydicom's `    ]`
    between a list's new items and an `if` added after it: without it the `if` read as inside the list,
    the very edit the harness had refused), and a `…` for each run of the others: the changes are not adjacent."""
    out: list[str] = []
    for ln in lines:
        if _CLOSER_RE.match(ln):
            out.append(ln)
        elif not out or out[-1] != _GAP:
            out.append(_GAP)
    return out


def _function(header: str) -> str:
    """The name of the function git's hunk header names (`@@ … @@ def get_pixeldata(ds, …):` → `get_pixeldata`)."""
    m = _FUNCTION_RE.search(header)
    return m.group(1) if m else ""


_FUNCTION_RE = re.compile(r"@@ [^@]* @@ .*?\b([A-Za-z_$][\w$]*)\s*\(")
