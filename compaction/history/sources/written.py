"""The text of the files the session created or wrote whole, as it left them: what the room left over, once every
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

from compaction.edits import numbered_lines, same_file
from compaction.events import Event, shell_reads
from compaction.history.echo import output_of
from compaction.history.facts import TIGHT_TARGET, Fact, display_path
from compaction.history.fold import run_output
from compaction.history.sections import Section
from compaction.history.sources.changes import final_lines
from compaction.history.sources.derived import reads_whole
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
    read ("lines 24-40, 52-70 as read at r57"; "" when no read differed). Why: something besides the agent may
    change a file after its write (an editor formatting on save: git-provenance's tables came back padded), and
    a successor patching the replayed text then fails on lines the file no longer has. Only a read of this file
    alone: a numbered read gives its lines by number, a whole read (`cat f`, a read tool asked for no part, an
    output no harness cut) the whole text."""
    out, said = list(lines), ""
    spans: list[tuple[int, int, int]] = []  # (first line, last line, round) of each numbered run that differed
    rounds = ctx.transcript.rounds
    if not 0 < last.round <= len(rounds):
        return lines, ""
    for rnd in rounds[last.round - 1:]:
        results = None
        for msg in rnd.messages:
            if (rnd.number, msg.index) <= (last.round, last.message_index):
                continue
            for call in msg.tool_calls:
                if not _reads_only(call, path, ctx.cwd):
                    continue
                results = results if results is not None else ctx.results_of(rnd)
                res = results.get(id(call))
                if res is None or res.is_error or not res.content:
                    continue
                printed = run_output(output_of(res, call))
                if not printed.strip():  # an export that kept only the read's label (Copilot Chat): no text
                    continue
                whole = reads_whole(call, printed)
                printed = _untruncated(printed)
                numbered = () if _NL_SKIPS_BLANKS_RE.search(call.command or "") else numbered_lines(printed)
                numbered = numbered or _printed_ranges(call.command or "", path, printed, ctx.cwd)
                if numbered:
                    differ = [(n, text) for n, text in numbered if 0 < n <= len(out) and out[n - 1] != text]
                    for n, text in differ:
                        out[n - 1] = text
                    if differ:  # each run of consecutive numbers it showed (`sed -n '24,40p' … '52,70p'`: two)
                        spans.extend((a, b, rnd.number) for a, b in _runs([n for n, _ in numbered]))
                elif whole and printed.splitlines() != out:
                    out, said, spans = printed.splitlines(), f"as read at r{rnd.number}", []
    if spans:
        read_at = ", ".join(f"r{r}" for r in dict.fromkeys(r for _, _, r in spans))
        said += f"{'; ' if said else ''}lines {_ranges(spans)} as read at {read_at}"
    return out, said


# `nl` numbers only the lines that hold text unless told `-ba`: its numbers are not the file's
_NL_SKIPS_BLANKS_RE = re.compile(r"(?:^|[|;&]\s*)nl\b(?![^|;&]*\s-b\s?a)")


def _reads_only(call: ToolCall, path: str, cwd: str | None) -> bool:
    """Whether the call reads this file and no other: a read tool's path, or every file a shell line reads."""
    if call.kind is ToolKind.READ:
        return bool(call.path) and _same(call.path, path, cwd)
    if call.kind is ToolKind.SHELL and call.command:
        read = shell_reads(call.command)
        return bool(read) and all(_same(p, path, cwd) for p in read)
    return False


def _same(a: str, b: str, cwd: str | None) -> bool:
    """One file: the same path from the project's root (`README.md` is not `docs/README.md`); an absolute path
    outside the root by its tail (`same_file`)."""
    x, y = (display_path(p, cwd).replace("\\", "/").removeprefix("./") for p in (a, b))
    if x == y:
        return True
    return (x.startswith("/") or y.startswith("/") or ":" in x[:3] or ":" in y[:3]) and same_file(x, y)


def _runs(numbers: list[int]) -> list[tuple[int, int]]:
    """The runs of consecutive numbers, as (first, last)."""
    out: list[tuple[int, int]] = []
    for n in numbers:
        if out and n == out[-1][1] + 1:
            out[-1] = (out[-1][0], n)
        else:
            out.append((n, n))
    return out


def _ranges(spans: list[tuple[int, int, int]]) -> str:
    """"24-40, 52-70, 74-110": the lines the reads showed, those that touch or overlap joined."""
    merged: list[list[int]] = []
    for a, b, _ in sorted(spans):
        if merged and a <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    return ", ".join(f"{a}-{b}" if b > a else f"{a}" for a, b in merged)


# A harness's note that it cut an output ("... (truncated)", "[… 40 lines truncated]"): the line before it may
# be cut too, and neither is a line of the file
_TRUNCATED_RE = re.compile(r"\n[^\n]*\n(?:\.{3}|…)? ?[(\[][^\n]*\btruncated\b[^\n]*[)\]]\s*\Z", re.IGNORECASE)


def _untruncated(output: str) -> str:
    """An output without a harness's closing truncation note and the line it cut."""
    return _TRUNCATED_RE.sub("", output) if "truncated" in output[-200:] else output


_SED_RANGE_RE = re.compile(r"^sed\s+-n\s+['\"]?(\d+),(\d+)p['\"]?\s+['\"]?([^\s'\"]+)['\"]?$")
_ECHO_RE = re.compile(r"^echo\s+(['\"]?)(.*?)\1$")


def _printed_ranges(command: str, path: str, output: str, cwd: str | None = None) -> tuple[tuple[int, str], ...]:
    """(number, text) of the lines `sed -n 'A,Bp' f` printed of the file: one such command, or several parted
    by `echo '---'` lines (`sed -n '24,40p' f && echo '---' && sed -n '5,20p' f`), the output cut at each echo's
    text; () for any other command line."""
    parts = split_commands(command)
    plan: list[tuple[int, int] | str] = []
    for part in parts:
        if (m := _SED_RANGE_RE.match(part)) and _same(m.group(3), path, cwd):
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
        # a range shows all its lines unless the file ends first: the last one may be short, none before it
        # (an `echo '---'` whose text is also a line of the file would cut a range short there)
        if len(chunk) > last - first + 1 or (stop is not None and len(chunk) != last - first + 1):
            return ()
        out.extend((first + i, text) for i, text in enumerate(chunk))
        at = end
    return tuple(out)


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
