"""Why an edit's old text did not match, and what ended it: for each run of refused edits of one
file, the searched line the file did not hold (beside the file's actual lines the tool showed, or the
old text the fix finally matched), the user's own edits the harness committed just before (the file
changed under the agent), then the old text that matched — or, when the agent stopped trying, its
own conclusion. Why apart from the error record: the record pools every refused edit of the session
under one id, and a line saying only "failed to match" invites a reader to invent the cause.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from compaction.events import EventKind
from compaction.history.facts import Fact, cite, display_path
from compaction.history.sections import Section
from compaction.history.sources.blocks import numbered
from compaction.history.sources.filelog import commit_words
from compaction.history.sources.registry import FactContext, fact_source
from compaction.model import Role, ToolCall, ToolKind
from compaction.transcripts.arg_names import ArgRole, arg_text

LINE_CHARS = 56  # one searched or matched line
SAID_CHARS = 200  # the agent's conclusion
_ACTUAL_RE = re.compile(r"Did you mean to match some of these actual lines[^\n]*\n+(?:```[^\n]*\n)?(.*?)(?:\n```|\Z)",
                        re.DOTALL)
_SPACE_RE = re.compile(r"\s+")
_COMMENT_RE = re.compile(r"^\s*(?://|#|/\*|\*|--|<!--)")
# A refusal because the old text was not found (not a permission or a syntax check): each tool says it its way.
_NOT_FOUND_RE = re.compile(r"(?i)not (?:be )?found|(?:failed to|did not|does not|doesn't) (?:exactly )?(?:match|appear|exist|find)"
                           r"|no (?:exact )?match|no replacement|could not find|0 occurrences|not unique")


@dataclass(slots=True)
class _Run:
    path: str
    failures: list[tuple[int, int, str, str, str]] = field(default_factory=list)  # (round, message, old text, error, cause)
    fix: tuple[int, str, str] | None = None  # (round, old text, new text) of the edit that then applied
    said: str = ""  # the agent's reply after the last failure, when it made no edit of the file


@fact_source(Section.PROBLEMS)
def edit_failure_facts(ctx: FactContext) -> list[Fact]:
    if not ctx.preset.error_memory:
        return []
    runs = _runs(ctx)
    if not runs:
        return []
    own = [(e.round, e.message_index, e.path, e.text) for e in ctx.events
           if e.kind is EventKind.COMMIT and e.path]
    out = []
    for run in runs:
        fact = _fact(run, own, ctx.cwd)
        if fact is not None:
            fact.tells = _record_of(run, ctx.records)
            out.append(fact)
    return out


def quotes_search(fact: Fact) -> bool:
    """Whether a refused-edit line, as the document shows it, quotes the text the edit searched for
    (the short form of a run whose cause is known says the cause instead): then the record's own
    `Error:` line need not. The retry's "(rN) searched `X` instead" quotes what the retry searched, not
    the refusal."""
    return _QUOTES_REFUSAL_RE.search(fact.text) is not None


_QUOTES_REFUSAL_RE = re.compile(r"(?<!\) )searched `")


def _record_of(run: _Run, records: list) -> str | None:
    """The error record that holds the run's latest refusal (same round, same file): the document tells
    the refusal once, in that record's `Error:` line when the block shows it."""
    last = run.failures[-1][0]
    for rec in records:
        if any(o.round == last and (not o.location.path or _same(o.location.path, run.path)) for o in rec.occurrences):
            return rec.id
    return None


def _arg_text(call: ToolCall, role: ArgRole) -> str:
    """The call's old text or new one, "" when it has none (an insert, a write): the names are the
    ones every reader of edits shares (`arg_names`), so a refusal is found whatever the tool calls it."""
    return arg_text(call.arguments, role) or ""


def _runs(ctx: FactContext) -> list[_Run]:
    """Each file's refused edits up to the edit that applied or the user's next request."""
    open_runs: dict[str, _Run] = {}
    done: list[_Run] = []
    views: dict[str, str] = {}  # each file's latest view: what its lines really were
    for rnd in ctx.transcript.rounds:
        results = None
        for msg in rnd.messages:
            if msg.role is Role.USER and not msg.harness and open_runs:
                done += open_runs.values()
                open_runs = {}
            if msg.role is Role.ASSISTANT and msg.text.strip():
                for run in open_runs.values():
                    if not any(c.kind is ToolKind.EDIT and c.path == run.path for c in msg.tool_calls):
                        run.said = run.said or msg.text.strip()
            for call in msg.tool_calls:
                if call.kind is ToolKind.READ and call.path:
                    results = ctx.results_of(rnd) if results is None else results
                    seen = results.get(id(call))
                    if seen is not None and seen.content and not seen.is_error:
                        views[call.path] = seen.content
                if call.kind is not ToolKind.EDIT or not call.path:
                    continue
                if results is None:
                    results = ctx.results_of(rnd)
                res = results.get(id(call))
                if res is not None and call.id and res.call_id and res.call_id != call.id:
                    res = None  # paired by position with another call's result: not this call's outcome
                old = _arg_text(call, ArgRole.OLD)
                if res is not None and res.is_error:
                    if old.strip() and _NOT_FOUND_RE.search((res.content or "")[:2000]):
                        run = open_runs.setdefault(call.path, _Run(call.path))
                        run.failures.append((rnd.number, msg.index, old, res.content or "",
                                             cause(old, views.get(call.path, ""))))
                        run.said = ""
                elif call.path in open_runs and res is not None and old.strip():  # an insert fixes no old text
                    run = open_runs.pop(call.path)
                    run.fix = (rnd.number, old, _arg_text(call, ArgRole.NEW))
                    done.append(run)
    return done + list(open_runs.values())


def cause(old: str, view: str) -> str:
    """Why the old text was not found, when its characters say it: literal escapes (`\\n` typed as
    two characters where the file breaks the line), one line where the file spans two, spaces where
    the file indents with tabs (or the reverse), other whitespace. `view`: the file's latest view
    (its lines by their gutter numbers), "" when none was seen. "" when no such cause shows."""
    flat_old = _SPACE_RE.sub("", old)
    file_lines = numbered(view, raw=True) if view else {}
    body = "\n".join(file_lines[n] for n in sorted(file_lines)) if file_lines else view
    if body and old.strip() and old.strip() in body:
        return ""  # the text is there: refused for another reason (not unique, a stale read)
    flat_file = _SPACE_RE.sub("", body)
    for esc, real, name in (("\\n", "\n", "line breaks"), ("\\t", "\t", "tabs")):
        if esc not in old or real in old.strip():
            continue
        unescaped = _SPACE_RE.sub("", old.replace(esc, ""))
        if flat_file and unescaped in flat_file and flat_old not in flat_file:
            n = old.count(esc) + 1
            spans = f" (the file holds it on {n} lines)" if esc == "\\n" else ""
            return f"its old text held literal `{esc}` escapes, not {name}{spans}"
        if not flat_file and re.search(re.escape(esc) + r"[ \t]{2,}", old):  # an escape then indentation
            return f"its old text held literal `{esc}` escapes, not {name}"
    if not flat_file or len(flat_old) < 8 or flat_old not in flat_file:
        return ""
    first = old.strip().splitlines()[0].strip() if old.strip() else ""
    if "\n" not in old.strip() and not any(first == ln.strip() for ln in body.splitlines()):
        return "the file breaks that statement across lines; the old text put it on one"
    olds = [ln for ln in old.splitlines() if ln.strip()]
    tabs = sum(ln.startswith("\t") for ln in body.splitlines())
    if tabs and any(ln.startswith("  ") for ln in olds) and not any(ln.startswith("\t") for ln in olds):
        return "the file indents with tabs, the old text with spaces"
    if not tabs and any(ln.startswith("\t") for ln in olds):
        return "the old text indents with tabs, the file with spaces"
    return "its whitespace (indentation or line breaks) differs from the file's"


def _lines(text: str) -> list[str]:
    return [ln.strip() for ln in text.splitlines() if len(ln.strip()) > 2]


def _fact(run: _Run, own: list[tuple[int, int, str | None, str]], cwd: str | None) -> Fact | None:
    """The run's line: the latest refusal's missing line and the user's edits under it, then what ended
    it (`text`); every refusal's in `full_text`."""
    if not run.failures:
        return None
    path = display_path(run.path, cwd)
    fixed_old = set(_lines(run.fix[1])) if run.fix else set()
    pieces: list[str] = []
    causes = 0  # refusals whose old text shows why (an escape, a line break, tabs)
    known = False  # the run says why: a line the file lacked, the user's edits under it, the agent's conclusion
    for rnd, index, old, error, why in run.failures[-3:]:
        actual = _ACTUAL_RE.search(error)
        held = set(_lines(actual.group(1))) if actual else set()
        if why:
            causes += 1
            missing = _lines(old)[:1]
            what = f"searched `{_cut(missing[0])}`: {why}" if missing else why
            known = True
        elif held or fixed_old:
            missing = [ln for ln in _lines(old) if ln not in held and ln not in fixed_old]
            what = f"searched `{_cut(missing[0])}`, not in the file" if missing else ""
            known = known or bool(missing)
        else:
            missing = _lines(old)[:1]
            what = f"searched `{_cut(missing[0])}`" if missing else ""
        if pieces and what and what in pieces[-1]:  # the same line searched again
            what = ""
        # the harness's report right after the call: the user's edits it committed before applying
        commits = [msg for _r, m, p, msg in own if p and _same(p, run.path) and index < m <= index + 2]
        if commits:
            known = True
            what += f"{' ' if what else ''}(the user's edits “{commit_words(commits[-1], LINE_CHARS)}” auto-committed)"
        if what:
            pieces.append(f"r{rnd} {what}")
    n = len(run.failures)
    rounds = sorted({r for r, *_ in run.failures})
    head = f"`{path}`: {n} edit{'s' if n != 1 else ''} refused"
    end = short_end = ""
    if run.fix:
        last_old = set(_lines(run.failures[-1][2]))
        new = [ln for ln in _lines(run.fix[1]) if ln not in last_old]
        if new:
            # what the retry replaced, and by what: a different line than the one searched is the fix
            kind = "the comment line " if _COMMENT_RE.match(new[0]) else ""
            put = _lines(run.fix[2])
            if new[0] in put:  # kept: the retry only anchored on it
                end = short_end = f"the retry (r{run.fix[0]}) searched {kind}`{_cut(new[0])}` instead"
            else:
                by = [ln for ln in put if ln not in fixed_old and len(re.findall(r"\w", ln)) >= 3][:1]
                by_text = f" with `{_cut(by[0])}`" if by else ""
                end = short_end = f"the retry (r{run.fix[0]}) replaced {kind}`{_cut(new[0])}`{by_text} instead"
        else:
            end = f"applied (r{run.fix[0]}) once the old text left those lines out"
            short_end = f"applied (r{run.fix[0]}) without that line"
        rounds.append(run.fix[0])
    elif run.said:
        known = True
        first = re.split(r"(?<=[.!?])\s", run.said.replace("\n", " "), maxsplit=1)[0]
        end = f"the agent stopped: “{_cut(first, SAID_CHARS)}”"
        short_end = f"the agent stopped: “{_cut(first, SAID_CHARS // 2)}”"
    if not known:  # "failed, then applied" alone: the error record already says as much
        return None
    rounds = sorted(set(rounds))
    # The one line names the file by its base name (the change records give the path) and the latest
    # refusal only: several runs must fit beside the error records.
    short_head = f"`{path.rsplit('/', 1)[-1]}`: {n} edit{'s' if n != 1 else ''} refused"
    why = run.failures[-1][4]
    if why:  # the cause says it: the searched line and the agent's giving up stay in the full text
        text = short_head + f": {why}" + (f" — {short_end}" if run.fix else "")
    else:
        text = short_head + (f": {pieces[-1].split(' ', 1)[1]}" if pieces else "") + (f" — {short_end}" if short_end else "")
    full = head + (": " + "; ".join(pieces) if pieces else "") + (f" — {end}" if end else "")
    reasons = sum(1 for p in pieces if "not in the file" in p) + causes + sum(1 for p in pieces if "auto-committed" in p)
    resolved = 2 if run.fix and short_end.startswith(f"the retry (r{run.fix[0]}) ") else 0  # the retry's text said
    return Fact(Section.PROBLEMS, f"{text} {cite(rounds)}", rounds, score=34 + min(n, 4) + min(reasons, 3) + resolved,
                path=path,
                full_text=f"{full} {cite(rounds)}")


def _same(a: str, b: str) -> bool:
    """The same file named two ways (aider reports `src\\a.ts` where the reply wrote `src/a.ts`)."""
    return a.replace("\\", "/").rsplit("/", 1)[-1] == b.replace("\\", "/").rsplit("/", 1)[-1]


def _cut(text: str, limit: int = LINE_CHARS) -> str:
    text = " ".join(text.replace("`", "'").split())
    return text if len(text) <= limit else text[:limit - 1] + "…"
