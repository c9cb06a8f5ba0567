"""The text of the files the session created, as it left them: what the room left over, once every
other fact is shown whole, is worth first.

Why: a session that drafts a document or a script with the user holds its substance in that file,
and its change records say only which sections and definitions it holds ("sections + 'Big Picture:
Three Provenance Granularities' … (+72 more lines)"); a successor asked what the summary says of each
challenge area finds the answer in the text, not in the verbatim tail the room went to before. Only a
text the replay followed to the end (`changes.final_lines`: a change it could not replay leaves no final
text); the filler's alone (`sections.LAST_ROOM`), before the agent's earlier replies and older rounds.
"""

from __future__ import annotations

import re

from compaction.edits import numbered_lines
from compaction.events import Event, EventKind
from compaction.history.echo import output_of
from compaction.history.facts import TIGHT_TARGET, Fact, display_path
from compaction.history.fold import without_run_record
from compaction.history.sections import Section
from compaction.history.sources.changes import final_lines
from compaction.history.sources.filelog import logs_of
from compaction.history.sources.registry import FactContext, fact_source
from compaction.mdsafe import fence_for
from compaction.model import ToolCall, ToolKind
from compaction.shell import split_commands

MAX_FILES = 4  # the files whose text is offered, the most edited first
TEXT_CHARS = 8000  # a file's text as offered: its first lines (bounded work: each is counted once)
MIN_LINES = 3  # a shorter file's record says all it holds
# Scores order the files alike for the filler: the most edited first (its text says most of the session's work)
SCORE = 20


@fact_source(Section.WRITTEN)
def written_texts(ctx: FactContext) -> list[Fact]:
    """One fact per file the session created or wrote whole and still has, its text known to the end; the
    MAX_FILES most edited (replayed in that order until that many are found: bounded work)."""
    if ctx.target_tokens is not None and ctx.target_tokens < TIGHT_TARGET:
        return []  # a tight budget never has room left for them: no work
    logs = [(path, log.kept) for path, log in logs_of(ctx).items() if log.kept and not log.deleted]
    logs.sort(key=lambda x: (-len(x[1]), -x[1][-1].round))
    out: list[Fact] = []
    for path, kept in logs:
        lines = final_lines(kept)
        if lines is None or len(lines) < MIN_LINES or not any(line.strip() for line in lines):
            continue
        lines, read = _as_read_after(ctx, path, kept[-1], lines)
        out.append(_fact(path, sorted({e.round for e in kept}), lines, ctx.cwd, SCORE - len(out), read))
        if len(out) == MAX_FILES:
            break
    return out


def _as_read_after(ctx: FactContext, path: str, last: Event, lines: list[str]) -> tuple[list[str], str]:
    """The replayed text with what the reads after its last change showed of the file put in, and how it was
    read ("lines 38-120 as read at r57"; "" when no read differed). Why: something besides the agent may
    change a file after its write (an editor formatting on save: git-provenance's tables came back padded), and
    a successor patching the replayed text then fails on lines the file no longer has. A numbered read gives
    its lines by number; a whole read (`cat f`, a read tool with no range) the whole text."""
    try:
        start = next(i for i, e in enumerate(ctx.events) if e is last) + 1
    except StopIteration:
        return lines, ""
    reads = {(e.round, e.message_index) for e in ctx.events[start:] if e.kind is EventKind.READ and e.path == path}
    if not reads:
        return lines, ""
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    out, said = list(lines), ""
    spans: list[tuple[int, int, int]] = []  # (first line, last line, round) of each numbered read that differed
    for rnd_no in sorted({r for r, _ in reads}):
        if not 0 < rnd_no <= len(ctx.transcript.rounds):
            continue
        rnd = ctx.transcript.rounds[rnd_no - 1]
        results = ctx.results_of(rnd)
        for msg in rnd.messages:
            if (rnd_no, msg.index) not in reads:
                continue
            for call in msg.tool_calls:
                res = results.get(id(call))
                if res is None or res.is_error or not res.content or not (
                        call.path == path or (call.command and name in call.command)):
                    continue
                printed = _RECORD_LEFT_RE.sub("", without_run_record(output_of(res, call)), count=1)
                numbered = numbered_lines(printed) or _printed_ranges(call.command or "", name, printed)
                if numbered:
                    differ = [(n, text) for n, text in numbered if 0 < n <= len(out) and out[n - 1] != text]
                    for n, text in differ:
                        out[n - 1] = text
                    if differ:
                        spans.append((numbered[0][0], numbered[-1][0], rnd_no))
                elif _whole_read(call, name) and printed.splitlines() != out:
                    out, said, spans = printed.splitlines(), f"as read at r{rnd_no}", []
    if spans:
        rounds = ", ".join(f"r{r}" for r in dict.fromkeys(r for _, _, r in spans))
        said += f"{'; ' if said else ''}lines {min(a for a, _, _ in spans)}-{max(b for _, b, _ in spans)} as read at {rounds}"
    return out, said


# What is left of Codex's record of a run once `without_run_record` took its chunk id: the status and label
_RECORD_LEFT_RE = re.compile(r"\A(?:Process exited with code 0[ \t]*\n)?(?:Output:[ \t]*\n)?")
_SED_RANGE_RE = re.compile(r"^sed\s+-n\s+['\"]?(\d+),(\d+)p['\"]?\s+['\"]?([^\s'\"]+)['\"]?$")
_ECHO_RE = re.compile(r"^echo\s+(['\"]?)(.*?)\1$")


def _printed_ranges(command: str, name: str, output: str) -> tuple[tuple[int, str], ...]:
    """(number, text) of the lines `sed -n 'A,Bp' f` printed of the file: one such command, or several parted
    by `echo '---'` lines (`sed -n '24,40p' f && echo '---' && sed -n '5,20p' f`), the output cut at each echo's
    text; () for any other command line."""
    parts = split_commands(command)
    plan: list[tuple[int, int] | str] = []
    for part in parts:
        if (m := _SED_RANGE_RE.match(part)) and m.group(3).replace("\\", "/").rsplit("/", 1)[-1] == name:
            plan.append((int(m.group(1)), int(m.group(2))))
        elif (e := _ECHO_RE.match(part)) and e.group(2).strip():
            plan.append(e.group(2).strip())
        else:
            return ()
    lines = output.splitlines()
    out: list[tuple[int, str]] = []
    at = 0
    for k, step in enumerate(plan):
        if isinstance(step, str):
            if at >= len(lines) or lines[at].strip() != step:
                return ()
            at += 1
            continue
        stop = next((s for s in plan[k + 1:] if isinstance(s, str)), None)
        end = next((i for i in range(at, len(lines)) if lines[i].strip() == stop), len(lines)) if stop else len(lines)
        first, last = step
        chunk = lines[at:end]
        if len(chunk) > last - first + 1:
            return ()
        out.extend((first + i, text) for i, text in enumerate(chunk))
        at = end
    return tuple(out)


_WHOLE_READ_RE = re.compile(r"^\s*cat\s+(?:--\s+)?['\"]?([^\s|;&><'\"]+)['\"]?\s*$")


def _whole_read(call: ToolCall, name: str) -> bool:
    """A read of the whole file: `cat f` alone, or a read tool with no range."""
    if call.command:
        m = _WHOLE_READ_RE.match(call.command)
        return m is not None and m.group(1).replace("\\", "/").rsplit("/", 1)[-1] == name
    ranged = any(k in call.arguments for k in ("view_range", "offset", "limit", "start_line", "end_line", "lines"))
    return call.kind is ToolKind.READ and not ranged


def _fact(path: str, rounds: list[int], lines: list[str], cwd: str | None, score: float, read: str = "") -> Fact:
    """The file's first lines within TEXT_CHARS in a fenced block of the list item (its own fence longer than
    any the text holds), the lines left out counted after it."""
    shown: list[str] = []
    size = 0
    for line in lines:
        if size + len(line) + 1 > TEXT_CHARS and shown:
            break
        shown.append(line[:TEXT_CHARS])
        size += len(line) + 1
    more = len(lines) - len(shown)
    fence = fence_for("\n".join(shown))
    body = "\n".join(f"  {line}" if line else "" for line in shown)
    # the lines left out said last, as the filler's own cut says them (`fill.leading_lines`)
    source = f"from its writes and edits, {read}" if read else "from its writes and edits"
    text = (f"`{display_path(path, cwd)}` ({len(lines)} lines, {source}):\n"
            f"  {fence}\n{body}\n  {fence}" + (f"\n  (… {more} more lines)" if more else ""))
    return Fact(Section.WRITTEN, text, rounds, score=score)
