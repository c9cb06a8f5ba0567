"""Problems: one line per error-memory record this role is shown: where, how often, its decisive
error line(s) with their specifics (the numbers, names and arguments that say what went wrong) and
what ended it. Why the solution here too: the error-memory block beside this section is held to a
small ceiling and cuts its texts or drops stale records first, so the line a successor reads to
learn "what went wrong and how it was fixed" must stand on its own."""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator

from compaction import tokens
from compaction.edits import first_search_replace
from compaction.errors.budget import placed, solution_info, teaches
from compaction.errors.records import ErrorRecord, Occurrence
from compaction.errors.scan import EDIT_REFUSED, same_place
from compaction.errors.shorten import cut, fit
from compaction.history.facts import Fact, cite, display_path
from compaction.history.sections import Section
from compaction.history.sources import edit_failures
from compaction.history.sources.registry import FactContext, fact_source
from compaction.model import Message, Role, ToolCall, ToolKind
from compaction.redact import redact_text, secret_name
from compaction.transcripts.arg_names import ArgRole, arg_text
from compaction.transcripts.path_spelling import file_name, is_windows_path

DETAIL_CHARS = 140  # one error line: long enough for `[100, 150] … 122`, short enough for one line
RETRY_CHARS = 100  # a later error line of the same record: only what differs from the one before
SHORT_CHARS = 150  # the short form's one error line (tight budgets)
SOLUTION_CHARS = 200
TRIED_CHARS = 140  # the change a refused edit meant to make, when nothing made it
RECORD_PRIORITY = 2.1  # right after the completed actions (the harness counts those), before the rest
EARLIER_PRIORITY = 4.7  # a record's earlier failures: after the findings and the prose problems
ESSENTIAL_SHARE = 0.10  # of the budget the records' one-line forms may claim before optional facts
MAX_DETAILS = 3  # distinct error lines of one record (the retries that failed differently)
_LEAD_RE = re.compile(r"^[>#*\-|\s]+")
# A number that only places the error (a line, a column, a position, `file:12:5`) or a long one (an id, a
# size): it drifts between retries. A lone digit that counts (`found 0 actions` against `found 2 actions`)
# tells two failures apart and stays.
_DRIFT_RE = re.compile(r"(?<=[:(\[])\d+|\b(?:line|lines|col|column|position|pos|offset|at|char|index)\s+\d+|\d{2,}",
                       re.IGNORECASE)
_ABS_PATH_RE = re.compile(r"(?<![\w.])(?:/|[A-Za-z]:\\\\?|~/)[\w.~@+-]+(?:[/\\\\]+[\w.~@+-]+)+")
_TARGET_PREFIX = "the target bug, reproduced on purpose; "


@fact_source(Section.PROBLEMS)
def problem_source(ctx: FactContext) -> list[Fact]:
    if not ctx.preset.error_memory:
        return []
    facts = problem_facts(ctx.records, ctx.cwd, with_solutions=True, messages=ctx.transcript.messages)
    return _essentials(facts, ctx.target_tokens or 0) + earlier_facts(ctx.records, ctx.cwd)


def earlier_facts(records: list[ErrorRecord], cwd: str | None) -> list[Fact]:
    """What ended a record's earlier failures (`ErrorRecord.earlier`): each its own line, chosen with
    the room the records and findings leave (a successor asks how the first failure was fixed too)."""
    return [Fact(Section.PROBLEMS, f"{rec.id}, an earlier failure: {paths(text, cwd)} {cite(list(rounds))}",
                 list(rounds), score=30 + rec.count, priority=EARLIER_PRIORITY)
            for rec in records for rounds, text in rec.earlier]


def _essentials(facts: list[Fact], target: int) -> list[Fact]:
    """The records kept before any optional fact, most important first, in their one-line short form
    (the error line with its specifics) while those take at most ESSENTIAL_SHARE of the budget; the
    whole line (what ended it) is what spare budget buys back: the filler upgrades to `full_text`.
    A small share: at 5% budgets the completed commands compete for the same room."""
    used = 0
    for f in sorted(facts, key=lambda f: -f.score):
        cost = tokens.count(f.short or f.text) + 6
        if used + cost > target * ESSENTIAL_SHARE:
            continue
        used += cost
        if f.short:
            f.full_text, f.text, f.short = f.text, f.short, None
        f.essential = True
    return facts


MAX_PLACES = 3  # files a record's line names, the latest ones


def problem_facts(records: list[ErrorRecord], cwd: str | None, with_solutions: bool,
                  messages: list[Message] | None = None) -> list[Fact]:
    """One line per problem: where it happened, the error line(s) and, with `with_solutions`, what
    ended it; the short form (tight budgets) keeps the latest error line only. With the transcript's
    `messages`, an error a tool printed in reply to the user's typed command (aider's `/add a b`)
    names that command: the error line alone may not say what was asked."""
    out: list[Fact] = []
    for rec in records:
        said = describe(rec, cwd, messages)
        if said is None:
            continue
        where, detail, last = said
        label = f"{rec.id} (the target bug, reproduced on purpose)" if rec.target_bug else rec.id
        if rec.count > 1:
            label += f" ×{rec.count}"
        text = f"{label}{where}: {detail}" if detail else f"{label}{where}"
        solution = record_solution(rec, cwd) if with_solutions else ""
        if solution:
            text += f" — {solution}"
        short = f"{label}{where}: {cut(last, SHORT_CHARS)}" if last else f"{label}{where}"
        out.append(Fact(Section.PROBLEMS, f"{text} {cite(rec.rounds)}", rec.rounds,
                        score=40 + rec.count + (5 if rec.target_bug else 0),
                        short=f"{short} {cite(rec.rounds)}", error_id=rec.id, priority=RECORD_PRIORITY))
    return out


def describe(rec: ErrorRecord, cwd: str | None, messages: list[Message] | None = None) -> tuple[str, str, str] | None:
    """What a record's failure was: ` at `file:line`` (with the user's typed command, or ` in `tool(args)``
    for a failed tool call that is neither a command nor a file operation), its distinct
    error lines with their specifics (a refused edit's searched text first), and the latest error
    line alone (the short form); None for a record with no occurrence."""
    occ = rec.occurrences[-1] if rec.occurrences else None
    if occ is None:
        return None
    where = ""
    loc = occ.location
    typed = _typed_command(rec, messages) if messages else ""
    if loc.path:
        where = f" at `{_short_path(display_path(loc.path, cwd))}{':' + str(loc.line) if loc.line else ''}`"
        places: dict[str, int] = {}  # each file the failures were at, with its first round
        for o in rec.occurrences:
            if o.location.path:
                places.setdefault(_short_path(display_path(o.location.path, cwd)), o.round)
        if len(places) > 1:  # a record of several files' failures names each, not only the last one's
            shown = list(places.items())[-MAX_PLACES:]
            first = rec.occurrences[0].round
            # the command the user typed is the first failure's: beside its place, not after them all
            where = " at " + ", ".join(f"`{p}` (r{r}{f', after `{typed}`' if typed and r == first else ''})"
                                       for p, r in shown)
            typed = "" if any(r == first for _, r in shown) else typed
    if typed:
        where += f" after `{typed}`"
    elif not loc.path and not loc.command and messages:
        calls = [_failed_tool_call(o, messages) for o in rec.occurrences[-MAX_DETAILS:]]
        if calls[-1] and len({c.split("(", 1)[0] for c in calls}) == 1:  # one tool's failures, not several tools'
            where += f" in `{calls[-1]}`"
    details = [(paths(d, cwd), r) for d, r in distinct_details(rec)]
    searched = _searched(rec.occurrences[-1], messages)[0] if messages else ""
    if searched and details and searched[:30] not in details[-1][0]:
        # which text did not match: the fix's own old line may read as it
        d, r = details[-1]
        details[-1] = (f"searched `{searched}`, not matched: {d}", r)
    pieces = [(cut(d, DETAIL_CHARS if i == 0 else RETRY_CHARS), r) for i, (d, r) in enumerate(_differences(details))]
    said = "; ".join(f"{d} (r{r})" if len(pieces) > 1 else d for d, r in pieces)
    if messages and details and not teaches(rec) and {rec.id, *rec.merged} & set(EDIT_REFUSED):
        # a refused edit no edit ended: the change it meant to make is the one the next attempt must make
        tried = _meant(rec, messages)
        if tried:
            said = f"{fit(f'tried `{tried[0]}` → `{tried[1]}`', TRIED_CHARS)}; {said}"
    return where, said, details[-1][0] if details else ""


def record_detail(rec: ErrorRecord, cwd: str | None, messages: list[Message] | None = None,
                  brief: bool = False, told: list[Fact] | tuple[Fact, ...] = ()) -> str:
    """The record's failure as the error memory's `Error:` line: where, then what it said (brief: its
    latest error line alone). `told`: the document's Problems lines that tell some of its failures in
    their own words (a refused edit's cause and what ended it): those occurrences are not retold here,
    so the document tells each failure once ("" when they tell them all)."""
    told = [f for f in told if edit_failures.quotes_search(f)]
    if told:
        said = {(r, _basename(f.path or "")) for f in told for r in f.rounds}
        rest = [o for o in rec.occurrences
                if (o.round, _basename(o.location.path or "")) not in said and (o.round, "") not in said]
        return record_detail(_with(rec, rest), cwd, messages, brief) if rest else ""
    said = describe(rec, cwd, messages)
    if said is None:
        return ""
    where, detail, last = said
    if brief:
        return cut(last, RETRY_CHARS)
    where = where.strip()
    return f"{where}: {detail}" if where and detail else (where or detail)


def _with(rec: ErrorRecord, occurrences: list) -> ErrorRecord:
    out = copy.copy(rec)
    out.occurrences = occurrences
    return out


def record_solution(rec: ErrorRecord, cwd: str | None) -> str:
    """What ended the record, paths as the project sees them, its file by base name when the error
    line names it already (before the clause is cut: the change it made is worth more than the path)."""
    text = paths(rec.solution or "", cwd)
    occ = rec.occurrences[-1] if rec.occurrences else None
    if text and occ is not None and occ.location.path:
        failed = occ.location.path.replace("\\", "/")
        name = _basename(failed)

        failed_rel = not failed.startswith(("/", "~")) and not is_windows_path(failed)

        def same_file(m: re.Match[str]) -> str:  # `packages/cli/src/x.tsx` edited, `src/x.tsx:724` failed
            edited = m.group(1).replace("\\", "/")
            if cwd and failed_rel and edited.startswith("/"):  # the failed path as the session's directory read it
                one = same_place(edited, failed, cwd)
            else:
                one = edited == failed or edited.endswith("/" + failed.lstrip("/")) or failed.endswith("/" + edited)
            return f"`{name}`" if one else m.group(0)

        text = re.sub(r"`([^`\s]*" + re.escape(name) + ")`", same_file, text)
    return _solution(text, rec.target_bug)


def _typed_command(rec: ErrorRecord, messages: list[Message]) -> str:
    """The user's own message a tool's text reply answered (its first two lines), when the record's
    first occurrence was found in such a reply and the message reads as a command (`/add x`)."""
    occ = rec.occurrences[0]
    if occ.source != "text" or occ.message is None or not 0 < occ.message < len(messages):
        return ""
    found = messages[occ.message]
    if found.role is not Role.TOOL and not found.harness:
        return ""
    before = messages[occ.message - 1]
    if before.role is not Role.USER or before.harness:
        return ""
    lines = [ln.strip() for ln in before.text.strip().splitlines()[:2]]
    if not lines or not all(ln.startswith(("/", "!")) and "`" not in ln for ln in lines):
        return ""
    return cut(" / ".join(lines), 140).replace("`", "")


CALL_ARGS = 3  # a failed tool call's arguments shown: the few short ones that say what it asked for
CALL_ARG_CHARS = 40
CALL_LOOKBACK = 30  # messages searched back from a result for the call it answers
_PRIVATE_NAME_RE = re.compile(r"auth|cookie|session|otp|passcode|\bpin\b|credential|signature", re.IGNORECASE)


def _private(name: str, value: str) -> bool:
    """An argument never repeated: a secret's name, a name for what proves identity (`authorization`,
    `cookie`, `otp`), or a value the redaction rules would mask."""
    return secret_name(name) or _PRIVATE_NAME_RE.search(name) is not None or redact_text(value) != value


def _failed_tool_call(occ: Occurrence, messages: list[Message]) -> str:
    """`get_node_tree(node_id=0:1, depth=1)`: the tool call whose result held the error, when
    the call is neither a command nor a file operation (which the record places already): a 429 or a
    refusal says little without the call it answered. Its short scalar arguments, never a secret's."""
    i = occ.result_index()
    if occ.message is None or i is None or not 0 <= occ.message < len(messages):
        return ""
    results = messages[occ.message].tool_results
    call_id = results[i].call_id if i < len(results) else None
    if not call_id:
        return ""
    call = next(_calls_answered(messages, occ.message, {call_id}, CALL_LOOKBACK), None)
    if call is None or call.command or call.path or call.kind == ToolKind.SHELL:
        return ""
    args = call.arguments if isinstance(call.arguments, dict) else {}
    shown = [f"{k}={' '.join(str(v).split())}" for k, v in args.items()
             if isinstance(v, (str, int, float)) and not isinstance(v, bool) and str(v).strip()
             and len(str(v)) <= CALL_ARG_CHARS and not _private(k, str(v))][:CALL_ARGS]
    return f"{call.name}({', '.join(shown)})".replace("`", "'")  # one code span, whatever the values hold


_SEARCH_BLOCK_RE = re.compile(r"^<{5,9} SEARCH[^\n]*\n", re.MULTILINE)


def _meant(rec: ErrorRecord, messages: list[Message]) -> tuple[str, str] | None:
    """The (old, new) first lines of the latest refused attempt that said both and changed something."""
    for occ in reversed(rec.occurrences):
        old, new = _searched(occ, messages)
        if old and new and old != new:
            return old, new
    return None


def _searched(occ: Occurrence, messages: list[Message]) -> tuple[str, str]:
    """The first lines of the text a refused edit looked for and of the text it meant to write: the
    SEARCH/REPLACE block the tool echoed back (aider), else the failing call's old- and new-text
    arguments (of occurrence `occ`). Without the searched line a reader takes the later fix's old line
    for what failed."""
    if occ.message is None or not 0 <= occ.message < len(messages):
        return "", ""
    msg = messages[occ.message]
    for text in [*(r.content for r in msg.tool_results), msg.text] if "SEARCH" in (occ.detail or "") else []:
        block = first_search_replace(text)
        if block:
            return _first_line(block[0]), _first_line(block[1])
        m = _SEARCH_BLOCK_RE.search(text)
        if m:  # an echo cut before its divider or its end: what it searched, nothing of what it meant
            return _first_line(text[m.end():]), ""
    ids = {r.call_id for r in msg.tool_results if r.call_id}
    for call in _calls_answered(messages, occ.message, ids, 3):
        if _same_file(call.path, occ.location.path):
            old = arg_text(call.arguments, ArgRole.OLD) or ""
            if old.strip():
                return _first_line(old), _first_line(arg_text(call.arguments, ArgRole.NEW) or "")
    return "", ""


def _calls_answered(messages: list[Message], at: int, ids: set[str], back: int) -> Iterator[ToolCall]:
    """The calls whose results message `at` holds (by id), found in it or the `back` messages before it,
    latest message first."""
    for msg in reversed(messages[max(0, at - back):at + 1]):
        yield from (c for c in msg.tool_calls if c.id in ids)


def _same_file(a: str | None, b: str | None) -> bool:
    """Whether a call's file is the error's (by base name, either spelling), when both are known: one
    tool reply may report an edit and an unrelated error together."""
    return not (a and b) or _basename(a) == _basename(b)


def _first_line(text: str) -> str:
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    return cut(line, 90).replace("`", "'")


def distinct_details(rec: ErrorRecord) -> list[tuple[str, int]]:
    """The record's error lines that differ beyond numbers and quoted values, each with the round it
    was first seen, oldest first; at most MAX_DETAILS (the first ones and the latest)."""
    seen: dict[str, tuple[str, int]] = {}
    for occ in rec.occurrences:
        line = error_line(occ.detail or occ.evidence)
        if not line:
            continue
        # numbers blanked (line drift, counts), quoted values kept: they tell retries apart
        # (`unmatched ']'` then `unmatched ')'`)
        key = _DRIFT_RE.sub("#", line)
        if key not in seen:
            seen[key] = (line, occ.round)
    found = list(seen.values())
    if len(found) > MAX_DETAILS:
        found = [*found[:MAX_DETAILS - 1], found[-1]]
    return found


def error_line(text: str) -> str:
    """The decisive line of an error's evidence: its last non-blank line (where runners put the
    message), list and quote marks stripped, whitespace collapsed."""
    lines = [ln for ln in (text or "").strip().splitlines() if ln.strip()]
    if not lines:
        return ""
    return " ".join(_LEAD_RE.sub("", lines[-1]).split())


def _differences(details: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """Each error line after the first as only what differs from the one before (`…unmatched ')'`):
    a retry's error usually repeats its predecessor's words around the one argument that changed."""
    out = details[:1]
    for (prev, _), (line, rnd) in zip(details, details[1:], strict=False):
        a, b = prev.split(" "), line.split(" ")
        head = 0
        while head < min(len(a), len(b)) - 1 and a[head] == b[head]:
            head += 1
        tail = 0
        while tail < min(len(a), len(b)) - head - 1 and a[-1 - tail] == b[-1 - tail]:
            tail += 1
        if len(" ".join(b[head:len(b) - tail])) <= 3:  # a count alone (`…2…`) says nothing: its words around it
            head, tail = max(0, head - 1), max(0, tail - 1)
        middle = " ".join(b[head:len(b) - tail])
        out.append((("…" if head else "") + middle + ("…" if tail else ""), rnd))
    return out


def paths(text: str, cwd: str | None) -> str:
    """Absolute paths as the project sees them (relative to its directory), others by file name
    when long: the file is named already, its full path only costs tokens; not a path that says where a
    missed file really is (`budget.placed`: "then the same call on `/Users/me/site/src/index.html` succeeded",
    where the failed one was `site/src/index.html` inside the project: its folders are the point)."""
    def shown(m: re.Match[str]) -> str:
        said = display_path(m.group(0), cwd)
        return said if placed(m) else _short_path(said)
    return _ABS_PATH_RE.sub(shown, text)


def _basename(path: str) -> str:
    return file_name(path) or path


def _short_path(path: str) -> str:
    if len(path) <= 60:
        return path
    return re.split(r"[/\\]+", path.rstrip("/\\"))[-1] or path


def _solution(solution: str | None, target_bug: bool = False) -> str:
    """What ended the error, as one short clause. A target bug's "cause" is the reproduction's own
    account ("the script reproduced the bug"): the task states the bug, the line keeps the fix."""
    text = (solution or "").removeprefix(_TARGET_PREFIX).removeprefix("the target bug, reproduced on purpose")
    if target_bug and "; cause: " in text:  # the cause alone goes: what follows it (the attempts) stays
        head, rest = text.split("; cause: ", 1)
        after = rest.find("; tried before: ")
        text = head + (rest[after:] if after >= 0 else "")
    text = " ".join(text.split())
    return fit(text, SOLUTION_CHARS, solution_info) if text else ""


