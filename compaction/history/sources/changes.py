"""Change records: for each modified file, what changed — a created file's digest (what it defines,
the APIs and string keys it uses), each edit's enclosing definition and the identifiers it swapped
(`randomInRange`: `Math.random` → `crypto.getRandomValues`), then the removed and added lines that
matter, latest edit first. Failed attempts are counted, not shown; reverted and undone edits are
named as such, never as kept (see filelog).

Why beside the modified-files list rather than in it: the list is essential and short (every file,
always); a change record is longer and optional. Its text is one line (file, definitions touched, key
identifiers) so tight budgets still say what changed; `full_text` is the fuller record the filler
(history/fill.py) upgrades it to when the budget has room.
"""

from __future__ import annotations

import copy
import functools
import os
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from difflib import SequenceMatcher

from compaction import data_leaves
from compaction.edit_owner import known_code
from compaction.edits import (
    AFTER_EDIT,
    MAX_SETTINGS,
    Digest,
    Hunk,
    definitions,
    digest,
    each_definition,
    enclosing,
    is_comment_only,
    outline_first,
    pair_hunks,
    parse_unified,
    swapped,
    swapped_literals,
)
from compaction.edits import notable_identifiers as _identifiers_of
from compaction.edits import (
    replay as replayed,
)
from compaction.errors.classify import USER_REJECTED_SENTENCE
from compaction.events import Event, EventKind
from compaction.history.condense import cut_at_word
from compaction.history.facts import LEFTOVER_PRIORITY, Fact, cite, display_path
from compaction.history.sections import Section
from compaction.history.sources import behaviour, derived, placing
from compaction.history.sources.filelog import DELETED_THEN, RESTORES, FileLog, count_edits, creates, logs_of
from compaction.history.sources.registry import FactContext, fact_source
from compaction.lexical import holds_word
from compaction.line_views import bre
from compaction.memo import per_text
from compaction.transcripts._fences import outside_fences
from compaction.transcripts.user_feedback import words_after

MAX_LINES = 10  # diff lines shown per file
MAX_NET_LINES = 16  # of a final diff's changes said in one line each
MAX_LINE_CHARS = 200  # a longer line is left out whole (never cut mid-line) and counted
MAX_EDIT_LINES = 6  # per-edit summary lines in the full record (the rest counted)
SHORT_CHARS = 200  # the one-line form's length, cut at a part's boundary
LEAVES_CHARS = 120  # a data file's settings in the one line (the rest in the full record): a session
# writes many configurations, and a code file's line says more
LEAVES_MIN_CHARS = 60  # however long its path
LEAVES_FULL_CHARS = 600  # and in the full record
DOES_CHARS = 60  # more of it for a record that says what the code does (behaviour.py)
_NOISE_RE = re.compile(r"^[\s{}()\[\];,:.'\"`]*$|^\s*(?:/\*\*?|\*/?|\"\"\"|\'\'\')(?:\s|$)")
_DOCUMENT_RE = re.compile(r"\.(?:md|markdown|mdx|rst|txt|adoc)$", re.IGNORECASE)
_WORD_RE = re.compile(r"[\w$]+")
_CONFIG_EXTS = (".json", ".yaml", ".yml", ".toml", ".ini", ".cfg", ".conf", ".env")
_REPLAY_CHARS = 2_000_000  # a file's text is replayed only up to this size: bounded work


GIST_CHARS = 90  # the gist the modified-files line is upgraded to


@fact_source(Section.CHANGES)
def change_facts(ctx: FactContext) -> list[Fact]:
    """Each modified file's record: one line (`text`), upgraded to the fuller form (`full_text`)."""
    if not ctx.preset.code:
        return []
    carried = gists(ctx)
    # A record that says no more than its file's gist (`LICENSE` (created): “MIT License”) is left to the
    # modified-files line, which carries that gist for fewer tokens. The memo's facts stay as made.
    # Its counts still tell what the list line does not: the failed attempts before the edit took.
    return _opening_said_once([copy.copy(f) for path, f in records(ctx).items()
                   if f.full_text or path not in carried or re.sub(r"; \d+ lines$", "", _body(f.text)) != carried[path]
                   or " failed attempt" in f.text.split("): ", 1)[0]])


ALIKE_CHARS = 40  # two records' lines opening alike for this many characters say the opening once


def _opening_said_once(facts: list[Fact]) -> list[Fact]:
    """Records whose lines open alike (the same sections added to five rule files, the same rename made in two
    modules): each after the first of its kind says what it adds only ("same opening as `101-….mdc`, then + …";
    a line that is all the same, "as `101-….mdc`") and keeps its whole line as its full form, given back when
    there is room. Five copies of one opening cost a document the records it then had no room for (exam 61:
    ai-playbook's deleted `cursor-rules.md`)."""
    firsts: list[tuple[str, str, str]] = []  # (counts, body, file name) of each first record of its kind
    for f in facts:
        head, sep, rest = f.text.partition("): ")
        if not sep or "` (" not in head:
            continue
        body = _body(f.text)
        counts = head.split("` (", 1)[-1]
        for c, b, name in firsts:
            shared = _shared_opening(b, body) if c == counts else ""
            if len(shared) < ALIKE_CHARS:
                continue
            own = body[len(shared):].lstrip(",; ")
            line = f"{head}): {f'same opening as `{name}`, then {own}' if own else f'as `{name}`'}{rest[len(body):]}"
            if len(line) < len(f.text):
                f.full_text, f.text = f.full_text or f.text, line
            break
        else:
            firsts.append((counts, body, head.split("`")[1].rsplit("/", 1)[-1]))
    return facts


def _failed_attempts(n: int) -> str:
    """A record's count of failed attempts, for its counts' parentheses ("" for none)."""
    return f", {n} failed attempt{'s' if n != 1 else ''}" if n else ""


def _shared_opening(a: str, b: str) -> str:
    """The opening two record lines share, ending where an item of both ends (at `, ` or `; `); all of it
    when the lines are one."""
    if a == b:
        return a
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    cut = max(a.rfind(", ", 0, n + 1), a.rfind("; ", 0, n + 1))
    return a[:cut] if cut > 0 else ""


def _body(text: str) -> str:
    """A one-line record's parts: what follows the file and its counts, without the rounds."""
    return text.split("): ", 1)[-1].rsplit(" (r", 1)[0]


def records(ctx: FactContext) -> dict[str, Fact]:
    """Every modified file's full change record (its text the one-line form), by path; made once per
    compaction (this source and the modified-files list share it)."""
    return ctx.shared(("changes", "records"), lambda: _records(ctx))


def _records(ctx: FactContext) -> dict[str, Fact]:
    asked = " ".join(e.text for e in ctx.events if e.kind is EventKind.REQUEST).casefold()
    out: dict[str, Fact] = {}
    notes = _rejection_notes(ctx)
    final = final_diff(ctx.transcript.meta.get("final_patch"))
    for path, log in logs_of(ctx).items():
        read = None
        if log.existed and any(e.whole and e.hunks for e in log.kept):  # a file it read, then wrote whole
            read = functools.partial(derived.text_before, ctx, path)
        fact = file_record(path, log, n_rounds=ctx.n_rounds, asked=asked, notes=notes,
                           net=_net_of(final, path, ctx.cwd), read=read)
        if fact is not None:
            out[path] = _with_source(fact, path, log, ctx)
    return out


DERIVED_CHARS = 160  # what a copy changed from the file it was made from, in the record's line


def _with_source(fact: Fact, path: str, log: FileLog, ctx: FactContext) -> Fact:
    """A created file's record with the read file it was copied from and what the copy changed
    (`derived.source_of`), first in its line: the copy's definitions are the source's, not new code."""
    kept = log.kept
    if not kept or not (kept[0].kind is EventKind.WRITE or creates(kept[0])) or "): " not in fact.text:
        return fact
    whole = [e for e in kept if e.whole and e.hunks and e.hunks[0].added]
    if not whole:
        return fact
    src = derived.source_of(path, whole[-1].hunks[0].added, whole[-1].round, derived.read_texts(ctx))
    if src is None:
        return fact
    document = reads_as_markdown(path, kept) or bool(_DOCUMENT_RE.search(path))
    copy_edit = Event(EventKind.EDIT, whole[-1].round, whole[-1].message_index, path=path, hunks=src.hunks)
    what = _edit_summary(copy_edit, None, document).replace("`", "") if src.hunks else "unchanged"
    said = f"from `{display_path(src.path, ctx.cwd)}` ({round(100 * src.share)}% of lines alike)"
    said += f": {cut_at_word(what, DERIVED_CHARS)};" if what else ";"
    fact.text = fact.text.replace("): ", f"): {said} ", 1)
    if fact.full_text:
        fact.full_text = fact.full_text.replace("): ", f"): {said} ", 1)
    return fact


REBUILT_NOTE = " — made again by "  # a build output's record: a later build made the file again
DELETED_NOTE = ", then deleted (not kept) — "  # a project file's record: edited, then deleted
_OLD_UNSHOWN = " (the old text not shown)"  # an edit the export showed only after it was made
_HOLDS = "its text after the edit holds "


def gists(ctx: FactContext) -> dict[str, str]:
    """What each kept file's change comes to in a few words (its definitions, swapped identifiers,
    keys), for the modified-files line: the one thing a tight budget still shows about a file."""
    if not ctx.preset.code:
        return {}
    return ctx.shared(("changes", "gists"), lambda: _gists(ctx))


def _gists(ctx: FactContext) -> dict[str, str]:
    out: dict[str, str] = {}
    for path, fact in records(ctx).items():
        if DELETED_NOTE in fact.text:  # a project file edited, then deleted: what its edits had made of it
            what = fact.text.split(DELETED_NOTE, 1)[1].rsplit(" (r", 1)[0].replace(_OLD_UNSHOWN, "")
            out[path] = _first_names("edited first: " + what.replace(_HOLDS, "it then held "), GIST_CHARS)
            continue
        if fact.score <= 25 or "): " not in fact.text:  # scratch and reverted files: their own lines
            continue
        body = _body(fact.text.split(REBUILT_NOTE, 1)[0]).removesuffix(" …")  # the list line says it of its own
        parts = [p.strip() for p in body.split("; ") if not re.fullmatch(r"\d+ lines", p.strip())]
        # A swap's place (`randomInRange: `) mostly repeats a name the gist already gives: the swap alone.
        parts = [re.sub(r"^[\w$.]+: (?=.*→)", "", p) for p in parts]
        parts = [_fewer(p, 2 if len(parts) > 1 else 4) for p in parts]
        cut = _join("", parts, GIST_CHARS).lstrip(": ")
        if cut and cut != "…":
            out[path] = cut
    return out


def _first_names(text: str, limit: int) -> str:
    """`text` within `limit` characters: cut after the last name of its list that fits ("a, b …"), else at a
    word."""
    if len(text) <= limit:
        return text
    at = text.rfind(", ", 0, limit)
    return text[:at] + " …" if at >= 20 else cut_at_word(text, limit)


def _fewer_swap(part: str, n: int = 2) -> str:
    """A swap's new names cut to `n` (`f: Math.random → crypto.getRandomValues, Uint8Array (+4)`)."""
    if "; " in part:  # an edit's places: each cut
        return "; ".join(_fewer_swap(p, n) for p in part.split("; "))
    m = re.fullmatch(r"(.*? → )(.*?)(?: \(\+(\d+)\))?", part)
    if not m:
        return part
    names = m.group(2).split(", ")
    if len(names) <= n:
        return part
    return f"{m.group(1)}{', '.join(names[:n])} (+{len(names) - n + int(m.group(3) or 0)})"


def _without(part: str, names: set[str]) -> str:
    """`defines a, b, c (+9)` without the names in `names` (said elsewhere in the line)."""
    m = re.fullmatch(r"(\w+(?: \w+)? )(.*?)(?: \(\+(\d+)\))?", part)
    if not m:
        return part
    kept = [x for x in m.group(2).split(", ") if x.strip("`").split(" = ")[0] not in names]
    if not kept:
        return part
    return m.group(1) + ", ".join(kept) + (f" (+{m.group(3)})" if m.group(3) else "")


def _fewer(part: str, n: int) -> str:
    """A part's list of names cut to its first `n` (`defines a, b, c, d (+9)`)."""
    m = re.fullmatch(r"((?:defines|now defines|adds|sections|touched|[+−]) )(.*?)(?: \(\+(\d+)\))?", part)
    if not m or "→" in part:
        return part
    names = m.group(2).split(", ")
    if len(names) <= n:
        return part
    more = len(names) - n + int(m.group(3) or 0)
    return f"{m.group(1)}{', '.join(names[:n])} (+{more})"


# A harness's word that the user turned a call down, and what the user said instead:
# "The tool use was rejected … the user said:\nNo colon after at?".
_REJECTED_RE = re.compile(r"\b(?:rejected|denied|declined)\b.{0,300}?\b(?:the user said|user feedback|"
                          r"user's feedback|reason)\s*:\s*(\S[^\n]{0,160})", re.IGNORECASE | re.DOTALL)
# The harness's own rejection sentences (the error memory's), whose user words follow in a message of their own.
_REJECTED_SAYING_RE = re.compile(USER_REJECTED_SENTENCE)
_NOTE_ROUNDS = 2  # an edit this many rounds after a rejection still answers it
_REJECTION_WORDS = ("rejected", "denied", "declined")


def _rejection_notes(ctx: FactContext) -> dict[int, str]:
    """For the first edit after each call the user rejected with words of their own (a plan turned
    down, an edit refused): `after the user rejected ExitPlanMode: “No colon after at?”`, by the
    edit event's id. The edit is what the user asked for; the record says so."""
    found: list[tuple[int, int, str]] = []  # (round, message index, note)
    for rnd in ctx.transcript.rounds:
        names: dict[str, str] = {}
        for msg in rnd.messages:
            for call in msg.tool_calls:
                if call.id:
                    names[call.id] = call.name
            for res in msg.tool_results:
                text = res.content
                head = text[:2000]  # what the pattern reads: an ASCII head without a rejection word cannot match
                if head.isascii() and not any(map(head.lower().__contains__, _REJECTION_WORDS)):
                    continue  # (checked before the whole output is scanned below: most outputs leave here)
                if text.find("user") < 0 or not any(text.find(w) >= 0 for w in _REJECTION_WORDS):
                    continue
                m = _REJECTED_RE.search(head)
                rejected = m is not None or _REJECTED_SAYING_RE.search(head) is not None
                after = cut_at_word(words_after(ctx.transcript.messages, msg.index), 160) if rejected else ""
                words = after or (m.group(1) if m else "")
                if words:
                    tool = res.name or names.get(res.call_id or "", "")
                    said = words.strip().replace("`", "'")
                    found.append((rnd.number, msg.index, f"after the user rejected {f'`{tool}`' if tool else 'a call'}"
                                                         f": “{said}”"))
    if not found:
        return {}
    edits = sorted((e.round, e.message_index, id(e)) for e in ctx.events
                   if e.kind in (EventKind.EDIT, EventKind.WRITE) and e.hunks)
    out: dict[int, str] = {}
    for rnd, index, note in found:
        nxt = next((x for x in edits if (x[0], x[1]) > (rnd, index)), None)
        if nxt is not None and nxt[0] - rnd <= _NOTE_ROUNDS and nxt[2] not in out:
            out[nxt[2]] = note
    return out


def final_diff(patch: object) -> dict[str, tuple[Hunk, ...]]:
    """The hunks of the diff a harness printed of the final state (SWE-agent's and mini-swe-agent's
    submission, OpenHands' `git_patch`), by repository path. Why: an edit made by a script, by
    `sed 'Nr snippet.py'` or by a heredoc splice shows nothing of what it changed; the final diff
    shows the net change of every file, which is what a successor asks of it."""
    if not isinstance(patch, str) or not patch.strip():
        return {}
    return {change.path: change.hunks for change in parse_unified(patch[:_REPLAY_CHARS]) if change.hunks}


def _net_of(final: dict[str, tuple[Hunk, ...]], path: str, cwd: str | None = None) -> tuple[Hunk, ...]:
    """The final diff's hunks of `path`: the diff names files from the repository root, the session from
    its working directory or absolutely. Relative to the working directory, the same path; else the
    longest diff path `path` ends with, when no other diff path of that length does (`conftest.py` is
    not `tests/conftest.py`)."""
    if not final:
        return ()
    if cwd and path.startswith(cwd.rstrip("/") + "/"):
        path = path[len(cwd.rstrip("/")) + 1:]
    if path in final:
        return final[path]
    ends = sorted((rel for rel in final if path.endswith("/" + rel)), key=len, reverse=True)
    if not ends or (len(ends) > 1 and len(ends[1]) == len(ends[0])):
        return ()
    return final[ends[0]]


def file_record(path: str, log: FileLog, *, n_rounds: int = 0, asked: str = "",
                notes: dict[int, str] | None = None, net: tuple[Hunk, ...] = (),
                read: Callable[[int], str | None] | None = None) -> Fact | None:
    """One file's change record from its log (None when nothing it would show is known); `net`: the
    file's hunks in the harness's final diff, when it printed one; `read`: the file's text as the last
    whole read before a round showed it."""
    kept = log.kept
    thrown = log.thrown
    if log.deleted:  # created, then removed: what it held (a reproduction script), marked as gone
        made = kept and (kept[0].kind is EventKind.WRITE or creates(kept[0]))
        return _scratch_record(path, log) if made else _deleted_record(path, log)
    if not kept:
        return _thrown_record(path, log) if thrown else None
    fact = change_record(path, kept, log.failed, proposed=log.proposed, deleted=log.deleted, thrown=thrown, n_rounds=n_rounds, asked=asked,
                         notes=notes, renamed_from=log.renamed_from, net=net, existed=log.existed, read=read)
    if fact is not None and log.rebuilt:  # a build output made again since: what its edits did is gone
        gone = f"{REBUILT_NOTE}{log.rebuilt} since: these edits are gone"
        fact.text = f"{fact.text}{gone}"
        if fact.full_text and "\n" in fact.full_text:  # after the one line, before the lines that detail it
            head, _, body = fact.full_text.partition("\n")
            fact.full_text = f"{head}{gone}\n{body}"
        fact.score -= 20
        fact.priority = LEFTOVER_PRIORITY  # its edits are gone: what they held is worth only the room left
    return fact


def _counted(summary: str) -> str:
    """An edit's summary with a change it made several times said once ("raise TypeError.* → return
    NotImplemented", not twice: one `sed` line of substitutions alike). No count: a summary may hold only
    the first few of an edit's changes."""
    pieces = summary.split("; ")
    return summary if len(pieces) == len(set(pieces)) else "; ".join(dict.fromkeys(pieces))


def _net_drops(net: tuple[Hunk, ...], told: str = "") -> str:
    """The definitions the final diff removes and does not add back ("drops `__ne__` ×8"): the net change of
    line-addressed deletions, whose own calls hold no text. Counted by name: eight classes' `__ne__` are eight.
    `told`: what the record's drops and renames already say (a name they hold is not said again)."""
    removed = Counter(name for h in net for name in each_definition(h.removed))
    removed.subtract(name for h in net for name in each_definition(h.added))
    named = set(_WORD_RE.findall(told))
    gone = [(name, k) for name, k in removed.items() if k > 0 and name not in named]
    if not gone:
        return ""
    return "drops " + ", ".join(f"`{name}`" + (f" ×{k}" if k > 1 else "") for name, k in gone[:NET_DROPS_SHOWN]) + \
        (f" (+{len(gone) - NET_DROPS_SHOWN})" if len(gone) > NET_DROPS_SHOWN else "")


NET_DROPS_SHOWN = 4


def change_record(path: str, events: list[Event], failed: int = 0, reverted: bool = False,
                  deleted: bool = False, *, thrown: list | None = None, n_rounds: int = 0,
                  asked: str = "", notes: dict[int, str] | None = None, renamed_from: str | None = None,
                  net: tuple[Hunk, ...] = (), existed: bool = False, read: Callable[[int], str | None] | None = None,
                  proposed: int = 0) -> Fact | None:
    """One file's change record, or None when nothing it shows is known (no payloads, deleted).
    `existed`: the session read the file before its first change, so a first whole write rewrote it.
    `thrown`: earlier edits reverted or undone (counted and named as not kept, never shown as kept);
    `renamed_from`: the path the edits were made under, before a `mv`; `net`: the file's hunks in the
    final diff, whose lines stand for the edits' own (the final state, exactly) in an edited file;
    `proposed`: edits a reply proposed and the harness never applied (counted, no failure)."""
    if deleted or not events:
        return None
    thrown = thrown or []
    undone, again = reverted_counts(thrown, events)  # `again`: counted, never named as not kept
    made_again = _made_again(thrown, events)  # reverted, then made again by a kept edit: kept after all
    thrown = [ed for ed in thrown if id(ed) not in made_again]
    rounds = [e.round for e in events]
    n = count_edits(events)
    rewrites, before = 0, None
    if read is not None:  # a file rewritten whole whose text a read showed: each rewrite is what it changed
        before = read(events[0].round)
        events, rewrites = _rewrites_as_edits(events, before, read)
    created = events[0].kind is EventKind.WRITE or creates(events[0])
    made = "rewritten" if existed else "created"
    # its first text went with the file, deleted: the note says when
    anew = bool(undone) and all((ed.undone or "").startswith(DELETED_THEN) for ed in thrown)
    if anew and created:
        made += ", deleted and written anew"
    counts = (made + (f", then {n - 1} edit{'s' if n != 2 else ''}" if n > 1 else "") if created
              else f"{n} edit{'s' if n != 1 else ''}")
    if rewrites:
        counts += f", {'each' if rewrites == n > 1 else rewrites if rewrites > 1 else 'one'} by writing the whole file"
    unapplied = f", {proposed} not applied" if proposed else ""  # a reply's blocks aider never applied (/ask mode)
    counts += _failed_attempts(failed) + unapplied
    # told apart from failed attempts, they take no more of the line's room than counted among them would
    apart_room = max(0, len(_failed_attempts(failed) + unapplied) - len(_failed_attempts(failed + proposed)))
    if (undone or again) and not (anew and created):
        counts += f", {undone + again} earlier edit{'s' if undone + again != 1 else ''} reverted ({fate(undone, again)})"
    if renamed_from:
        counts += f", renamed from `{renamed_from}`"
    if reverted:
        return Fact(Section.CHANGES, f"`{path}`: {counts}, then reverted (not kept) {cite(rounds)}", rounds,
                    score=20, path=path)
    markdown = reads_as_markdown(path, events)
    document = markdown or bool(_DOCUMENT_RE.search(path))
    replay = _replay(events, document=document, prose=path.endswith(_CONFIG_EXTS), path=path,
                     before=before if rewrites else None)
    alive: set[int] = set()
    lines, skipped = _diff_lines(events, alive)
    if net and (not created or existed):
        # a diff header's context that is not a definition's name (`import py`) places nothing
        placed = tuple(h if h.context and _WORD_RE.fullmatch(h.context.replace(".", "")) else replace(h, context=None)
                       for h in net)
        final = Event(EventKind.EDIT, rounds[-1], events[-1].message_index, path=path, hunks=placed)
        touched = _touched([*events, final], replay)  # the final diff's places first
        lines, skipped = _net_lines(placed)
    else:
        touched = _touched(events, replay)
    # Final state wins: an edit whose every line a later edit took back (a debug print) is not shown;
    # an existing prose or config file's edits say what each left, a line a later edit rewrote said at that
    # edit. (A file the session wrote is told by its final text; its edits' lines are how it was drafted.)
    netted = _netted_summaries(events) if (document or path.endswith(_CONFIG_EXTS)) and len(events) > 1 \
        and not (created or _drafted(events[0], existed)) else None
    summaries = [(r, _counted(w)) for o, r, w in (replay.summaries if netted is None else netted)
                 if o in alive or not alive]
    said = [(e.round, note) for e in events if (note := (notes or {}).get(id(e)))]
    if said:  # the user's correction the edit answers: in the one line, and beside the edit
        summaries = [(r, f"{w} — {dict(said)[r]}" if r in dict(said) else w) for r, w in summaries]
    parts: list[str] = []  # the one-line form's parts, most telling first
    every_setting = False  # a small data file's settings all in the one line
    ranked = sorted((s for _, s in summaries), key=_telling)  # stable: latest first within a rank
    swaps = [s for s in ranked if "→" in s]
    digested = replay.final is not None and (created or bool(replay.final.names))
    prose = document or path.endswith(_CONFIG_EXTS)
    does = [] if prose else _does(events, replay, created)
    # a file written with no text the export kept (Cursor's bare "write"): its edits are all there is to say
    blank = created and events[0].kind is EventKind.WRITE and not events[0].hunks and events[0].inferred
    if prose and summaries and (not created or blank):
        # A prose file's lines rewritten (old → new) across all its edits first, then lines added:
        # what the one line can say of every edit, not only of the latest.
        edits = _prose_edits(events) if len(summaries) > 1 else None
        if edits is not None:  # latest wins: `a` → `b` then `b` → `c` reads `a` → `c`
            pieces = [p for p in _prose_pieces(*chained_prose_pairs(edits), 10**6) if not p.startswith("(+")]
            pieces += [p for _, s in summaries for p in s.split("; ") if not p.startswith(("'", "+ '", "− '", "(+"))]
        else:
            pieces = [p for _, s in summaries for p in s.split("; ") if not p.startswith("(+")]
        ranked = sorted(dict.fromkeys(pieces), key=_rewritten)
        size = []
        outline = _outline_changes(events) if markdown else ""
        if outline:  # its sections added, renamed, removed: the document's shape, each heading said once
            parts.append(outline)
            ranked = [p for p in ranked if not _HEADING_PIECE_RE.search(p)]
        parts += [_shorter(p) for p in ranked]
    elif digested and created:
        # a data file's settings: as many as the line's room holds; a small one's all, if they fit the
        # room a record that says what its code does gets
        head_room = SHORT_CHARS - len(f"`{path}` ({counts}): sets ")
        room = max(min(head_room, LEAVES_CHARS), LEAVES_MIN_CHARS)
        if replay.final.leaves and len(data_leaves.render(list(replay.final.leaves), 10**6)) <= head_room + DOES_CHARS:
            room, every_setting = head_room + DOES_CHARS, True
        d = _digest_parts(replay.final, created, room=room)
        first = [p for p in d if not p.startswith(("uses ", "keys ", "imports ", "notes ")) and not p.endswith(" lines")]
        rest = [p for p in d if p not in first and not (p.endswith(" lines") and len(d) > 1)]
        # What it does (re-exports, throws, values, callers) and its keys before what an edit swapped.
        if any(p.startswith("re-exports ") for p in does):  # its first line is one of them
            first = [p for p in first if not p.startswith("“")]
        sets = [p for p in does if p.startswith("sets ")]
        called = {n for p in does if " called in " in p for n in p.split(" called in ")[0].split(", ")}
        if called:  # a function said with where it is called is not listed again among the definitions
            first = [_without(p, called) if p.startswith("defines ") else p for p in first]
        # an edit's swap alone (its other pieces are in its own line below): room for the keys
        swaps_ = [_fewer_swap("; ".join(q for q in p.split("; ") if "→" in q)) for p in ranked[:2] if "→" in p
                  and not replay.final.leaves]  # a data file's settings say each changed value (was …)
        keys = sorted((p for p in rest if p.startswith(("keys ", "notes "))), key=lambda p: p.startswith("notes "))
        # (its keys, then what it says it does)
        parts += first + [p for p in does if p not in sets] + swaps_[:1] + keys
        parts += [p for p in ranked[:2] if "→" not in p] + sets + swaps_[1:] + [p for p in rest if p not in keys]
        size = [p for p in d if p.endswith(" lines") and len(d) > 1]  # only when all else fits
    else:
        size = []
        added = [p for p in does if p.startswith("adds ")]
        if added:  # the definitions every edit added, said once: not again in each edit's summary
            ranked = [r for r in ("; ".join(q for q in x.split("; ") if not q.startswith("adds ")) for x in ranked) if r]
        parts += added + ranked[:1] + [p for p in does if p not in added] + ranked[1:3]
        places = _insert_places(events)
        if places and not created:  # where new code went (an insert names a line, no neighbouring text)
            parts.insert(len(added), f"inserted after line {places}")
        parts += _digest_parts(replay.final, created) if digested else []
    key = _key_line(lines) if lines else ""
    if key and not digested and not any(_telling(p) < 2 for p in ranked[:3]) \
            and _quoted_key(key) not in " ".join(parts):  # a heading the outline names, a line a piece quotes
        parts.insert(min(1, len(parts)), key)  # no swap or new definition says it: a line does
    if said:  # the edit that answers the user's correction leads, with it
        answer = next((w for _, w in summaries if w.endswith(said[-1][1])), said[-1][1])
        parts = [answer] + [p for p in parts if p != answer]
    if net and not created and (dropped := _net_drops(net, " ".join(p for p in parts if "drops " in p or "renames " in p))):
        parts.insert(0, dropped)  # definitions the final diff shows gone (a `sed '692,694d'` names none)
    # one line, few tokens: identifiers read without ticks; two edits said alike are said once
    parts = list(dict.fromkeys(_counted(p.replace("`", "")) for p in parts))
    said = set(_WORD_RE.findall(" ".join(parts)))
    fresh = [t for t in touched if t not in said] if not document else []
    if fresh:
        parts.append("touched " + ", ".join(f"`{t}`" for t in fresh[:6]))
    note = _thrown_note(thrown) if thrown else ""
    if note:  # what was thrown away, and how, right after what most tells what stays: read as kept, it misleads
        parts.insert(1, note)
    gap = _placeholder(replay.lines)
    if gap:  # a file written with a stand-in for what the agent did not write out: it is not done
        parts.insert(0, gap)
    if not parts and not lines:
        return None
    head = f"`{path}` ({counts})"
    # Room for what the code does beside its names: the line now stands in its file's list line too.
    limit = SHORT_CHARS + len(note) + len(gap) + apart_room + (DOES_CHARS if every_setting or any(p in parts for p in does) else 0)
    one_line = _join(head, parts, limit)
    if size and not one_line.endswith(" …"):
        one_line = _join(head, parts + size, limit).removesuffix(" …")
    # The full record: the one line, then lines in value order (a budget may keep only the first few).
    # What the text does, when the one line had no room for it: first, it is the distilled part.
    body = ["; ".join(missed)] if (missed := [p for p in does if p.replace("`", "") not in one_line]) else []
    body += [f"r{r} {s}" for r, s in summaries[:MAX_EDIT_LINES]]
    if len(summaries) > MAX_EDIT_LINES:
        more = len(summaries) - MAX_EDIT_LINES
        body.append(f"(… {more} earlier edit{'s' if more > 1 else ''})")
    netted = bool(net) and not created  # the lines below are the harness's final diff: the net change
    if thrown and not netted:
        body += _thrown_lines(thrown)
    if digested:  # the fuller digest, when it says more than the one line's
        fuller = _join("", _digest_parts(replay.final, created, full=True), 10**6).lstrip(": ")
        said = one_line.replace("`", "")
        if any(p.replace("`", "") not in said for p in fuller.split("; ") if not p.endswith(" lines")):
            body.append(fuller)
    if prose and summaries:  # a prose file's edits already show their lines, old → new
        lines, skipped = [], 0
    body += lines
    if skipped:
        body.append(f"(… {skipped} more changed lines)")
    if thrown and netted:  # after the final state: read under a NOT KEPT line, the final lines read as thrown away
        body += _thrown_lines(thrown)
    body = [line for i, line in enumerate(body) if line and (not _retells(line, one_line) or _inside_block(body, i, lines))]
    if netted and (first := next((i for i, line in enumerate(body) if line in lines), None)) is not None:
        body[first] = f"final diff: {body[first]}"  # labelled once kept: a label hides a line the one line retells
    text = f"{one_line} {cite(rounds)}"
    full = text + "\n" + "\n".join(f"  {line}" for line in body)
    code = bool(touched or (replay.final and (replay.final.names or replay.final.calls)) or swaps)
    last = max(rounds) / n_rounds if n_rounds else 0.0
    telling = [p for p in does if not p.startswith("adds ") and " signature: " not in p]
    mentioned = bool(asked) and path.rsplit("/", 1)[-1].casefold() in asked
    # What the code does (its values, re-exports, a stub's throw, where new functions are called) is
    # what a successor asks of a change: a record that says it ranks above one that lists names.
    score = (40 + min(n, 8) + (8 if code else 0) + (4 if mentioned else 0) + (3 if telling or (replay.final and replay.final.values) else 0)
             + round(6 * last, 2))
    return Fact(Section.CHANGES, text, rounds, score=score, path=path, full_text=full if body else None)


def _does(events: list[Event], replay: _Replay, created: bool) -> list[str]:
    """What the file's text does beyond its definitions (behaviour.py): of a created file its final
    text, of an edited one the lines its edits added; and where the functions later edits added are
    called from."""
    out: list[str] = []
    if created and replay.lines is not None:
        lines = replay.lines
    else:  # the lines the edits added net (a block re-sent whole adds only what it changed)
        removed = {ln.strip() for e in events for h in e.hunks for ln in h.removed}
        lines = [ln for e in events for h in e.hunks for ln in h.added if ln.strip() not in removed]
    if not lines:
        return []
    if not created:  # the definitions the edits added and still there, and signatures reworded
        pre: set[str] = set()  # definitions the file had before the session: removed before any edit added them
        ours: set[str] = set()
        for e in events:
            for h in e.hunks:
                pre.update(d for d in _defs(h.removed) if d not in ours)
                ours.update(_defs(h.added))
        final = set(replay.final.names) if replay.final else None
        new = [d for d in definitions(lines) if d not in pre and (final is None or d in final)]
        if len(new) > 1:
            out.append("adds " + ", ".join(new[:6]) + (f" (+{len(new) - 6})" if len(new) > 6 else ""))
        out += behaviour.signature_changes(events)
    if mods := behaviour.reexports(lines):
        out.append("re-exports " + ", ".join(mods[:behaviour.MAX_EXPORTS])
                   + (f" (+{len(mods) - behaviour.MAX_EXPORTS})" if len(mods) > behaviour.MAX_EXPORTS else ""))
    if thrown := behaviour.throws(lines):
        out.append("throws " + ", ".join(thrown))
    said = {name for name, _ in replay.final.values} if replay.final else set()
    born = replay.born if replay.lines is not None and len(events) > 1 else frozenset()  # computed once: a property
    if born:
        added = [n for n in definitions(replay.lines[:behaviour.SCAN_LINES]) if n not in born]
        out += behaviour.callers(replay.lines, added)
    if vals := behaviour.values(lines, said):
        out.append("sets " + ", ".join(vals))
    return out


def _join(head: str, parts: list[str], limit: int) -> str:
    """`head: part; part …` within `limit` characters: a part that does not fit is left out whole
    (a shorter one after it may still fit), and the cut is marked."""
    out = head
    sep = ": "
    cut = False
    for part in parts:
        if not part:
            continue
        room = limit - len(out) - len(sep)
        if len(part) > room and "; " in part:  # a part of parts (an edit's places): as many as fit
            pieces = part.split("; ")
            fit = pieces[0]
            for piece in pieces[1:]:
                if len(fit) + 2 + len(piece) > room:
                    break
                fit += "; " + piece
            if fit != part:
                cut = True
            part = fit
        if len(part) > room and ", " in part and out != head:  # a list of names: its first ones
            at = part.rfind(", ", 0, max(room, 0))
            if at >= 20:
                part = part[:at] + " …"
        if len(part) > room and out != head:
            cut = True
            continue
        out += sep + part
        sep = "; " if not part.endswith(";") else " "  # a code line's own `;` separates it already
    return out + (" …" if cut and not out.endswith(" …") else "")


def _keys(d: Digest, n: int) -> str:
    """The first `n` string keys, each run of keys handed to one receiver followed by it once:
    `'random-min', 'random-max' (localStorage)` says where the file keeps what."""
    receivers = d.key_receivers or ("",) * len(d.keys)
    out: list[str] = []
    for i, (key, via) in enumerate(zip(d.keys[:n], receivers[:n], strict=False)):
        nxt = receivers[i + 1] if i + 1 < min(n, len(d.keys)) else None
        out.append(f"'{key}'" + (f" ({via})" if via and nxt != via else ""))
    return ", ".join(out)


def _ticks(names: tuple[str, ...] | list[str], n: int) -> str:
    shown = ", ".join(f"`{x}`" for x in names[:n])
    return shown + (f" (+{len(names) - n})" if len(names) > n else "")


def _digest_parts(d: Digest, created: bool, full: bool = False, room: int = LEAVES_CHARS) -> list[str]:
    """A digest as record parts: definitions, what its comments and docstrings say, string keys, APIs
    used, length (a text with none of these: its first line). A data file: the values it sets, within
    `room` characters (more in the full form)."""
    parts = []
    if d.leaves:
        parts.append("sets " + data_leaves.render(list(d.leaves), LEAVES_FULL_CHARS if full else room,
                                                  tables=d.document))  # TOML: its tables by their headers
        return parts + ([f"{d.lines} lines"] if full or created else [])
    if d.names:
        verb = "sections" if d.document else ("defines" if created else "now defines")
        values = dict(d.values)  # a constant with its value: `BASE_CONFIDENCE = 0.4` is what a reader asks
        shown = 16 if full else (4 if d.document or d.keys or d.calls else 6)
        names = [f"{x} = {values[x]}" if x in values else x for x in outline_first(d.names, d.levels, shown)]
        parts.append(f"{verb} " + _ticks(names, shown))
    if d.pins:
        parts.append("pins " + _ticks(d.pins, 16 if full else 6))
    if d.notes:  # what the code says it does (“Attempts providers in order of fallback”), in its own words
        parts.append("notes " + " · ".join(f"“{n}”" for n in d.notes[:3 if full else 1]))
    if d.keys:
        parts.append("keys " + _keys(d, 6 if full else 3))
    if d.calls:
        parts.append("uses " + _ticks(d.calls, 8 if full else 3))
    if d.imports:
        parts.append("imports " + _ticks(d.imports, 10 if full else 4))
    if not parts and d.settings:  # a configuration: the lines that set its values
        parts.append("holds " + " · ".join(f"`{x}`" for x in d.settings[:MAX_SETTINGS if full else 1]))
    if not parts and d.title:
        parts.append(f"“{d.title}”")
    if full or created:
        parts.append(f"{d.lines} lines")
    return parts


_LOGIC_RE = re.compile(r"^[+-] .*(?:\b(?:if|elif|while|return|raise|throw|for|case|switch|assert)\b|\w\()")
_COMMENT_LINE_RE = re.compile(r"^[+-] (?://|#|/\*|\*|--|<!--)")


_LINE_MARK_RE = re.compile(r"^(?:r\d+ |[+-] )")
RETOLD_MIN_CHARS = 8


_MORE_LINES_RE = re.compile(r";? \(\+\d+ more lines\)$")


def _retells(line: str, one_line: str) -> bool:
    """Whether a full record's line (an edit's summary `rN …`, a diff line `+ …`/`- …`) only repeats
    what the record's one line already quotes word for word (a file edited once: its one edit's
    summary and key line are the one line): shown twice, it costs the room of another answer."""
    said = line.replace("`", "")
    said = (said[m.end():] if (m := _LINE_MARK_RE.match(said)) else said).strip()
    said = _MORE_LINES_RE.sub("", said)  # "…; (+3 more lines)": what it shows is what the one line quotes
    if len(said) < RETOLD_MIN_CHARS:  # `}`, `return`: a short line is in most one-liners by chance
        return False
    return holds_word(one_line.replace("`", ""), said)


def _quoted_key(key: str) -> str:
    """The key line as a prose piece would quote it: no sign, heading or list mark, no ticks, its opening."""
    return re.sub(r"^(?:[-*+]|\d+[.)])\s+", "", key[2:].strip().lstrip("#").strip()).replace("`", "")[:40]


def _key_line(lines: list[str]) -> str:
    """The diff line that best says what an edit does: the latest added line with logic (a
    condition, a return, a call), else the latest added line, else the first."""
    added = [ln for ln in lines if ln.startswith("+ ") and not _COMMENT_LINE_RE.match(ln)]
    return next((ln for ln in added if _LOGIC_RE.match(ln)), added[0] if added else lines[0])


def _telling(summary: str) -> int:
    """How much an edit's summary says: swapped identifiers, then new or dropped definitions, then
    identifiers added or removed, then comment-only changes."""
    if "→" in summary and not _strings_only(summary):
        return 0
    if "adds " in summary or "drops " in summary:
        return 1
    if "→" in summary:
        return 2
    return 4 if summary.split(": ", 1)[-1].startswith("comment only") else 3


def reverted_counts(thrown: list, kept: list[Event]) -> tuple[int, int]:
    """(not kept, made again) of a file's edits thrown away (`thrown`, its log's), each counted once per call:
    an edit a kept edit made again after the revert is one the session ran and threw away all the same."""
    made_again = _made_again(thrown, kept)
    lost = count_edits([ed.event for ed in thrown if id(ed) not in made_again])
    return lost, max(0, count_edits([ed.event for ed in thrown]) - lost)


def fate(lost: int, again: int) -> str:
    """What became of reverted edits: "not kept", "then redone" (a kept edit made their changes again), or
    both counted. Why: sympy's numbers.py ran twelve edits, ten reverted by two `git checkout`s and nine of
    those made again by the two kept ones; counting only the one not made again read as "2 edits, 1 earlier
    edit reverted"."""
    if not again:
        return "not kept"
    if not lost:
        return "then redone"
    return f"{again} redone, {lost} not kept"


def _made_again(thrown: list, kept: list[Event]) -> set[int]:
    """The thrown-away edits (by id) whose every change a kept edit made again (sympy: `git checkout` of
    numbers.py, then the same `sed` substitutions run again): what they did is in the file after all."""
    if not thrown:
        return set()
    again = {_change_key(h) for e in kept for h in e.hunks if h.removed or h.added}
    return {id(ed) for ed in thrown if ed.event.hunks and all(_change_key(h) in again for h in ed.event.hunks)}


def _change_key(h: Hunk) -> tuple:
    """A change by its lines, and a substitution inside a line by that line too (`10s/None/[]/` is not `50s/…`);
    lines spliced in stay one change wherever they landed."""
    return h.removed, h.added, h.context if h.fragment else None


def _thrown_note(thrown: list) -> str:
    """The latest edit thrown away in a few words — where it landed, what it did, how it went
    (`not kept: r38 unionIterablesAsyncGen: + items.push — undone by /undo of “Collect items…” (r39)`)."""
    said = [(ed, w) for ed in thrown if ed.event.hunks and (w := _thrown_what(ed.event))]
    # of an edit and the one that put its text back, the edit: "r133 … — put back by the edit of r138" reads
    # as what happened; "r138 … — restores the text before r133" reads as r138 itself being lost
    said = [(ed, w) for ed, w in said if not (ed.undone or "").startswith(RESTORES)] or said
    last, what = said[-1] if said else (thrown[-1], "")
    if "“" in (last.undone or "") and what.startswith("`"):  # the commit's own words say what it did: the place will do
        what = what.split(":", 1)[0] + " edit"
    more = count_edits([ed.event for ed in thrown]) - 1
    if (last.undone or "").startswith(DELETED_THEN):  # its text is the file's before: what it held, the new text says
        first = min(ed.event.round for ed in thrown)
        return f"not kept: its text of r{first}{f' (+{more} edits)' if more > 0 else ''} — {last.undone}"
    if (last.undone or "").startswith(RESTORES):  # the pair, led by the edit whose text went
        return f"not kept: the r{last.undone[len(RESTORES):]} edit, put back by the edit of r{last.event.round}" \
            + (f" (+{more - 1} more)" if more > 1 else "")
    return (f"not kept: r{last.event.round} {what.replace('`', '')}{' ' if what else ''}— {last.undone}"
            + (f" (+{more} more)" if more > 0 else ""))


def _thrown_what(e: Event) -> str:
    """One thrown-away edit's summary, led by the definition it landed in when the summary does not
    name one (a SEARCH block's own text says which function it rewrote)."""
    what = _edit_summary(e, None)
    if what and not re.match(r"`?[\w$.]+`?: ", what):
        names = [n for h in e.hunks if h.source for n in definitions(h.source[0].splitlines())]
        if names:
            what = f"`{names[0]}`: {what}"
    return _fewer_parts(what)


def _fewer_parts(what: str, n: int = 2) -> str:
    """A summary's first `n` parts (`; `-separated), its lists of names cut to two."""
    return "; ".join(_fewer(p, 2) for p in what.split("; ")[:n])


def _thrown_lines(thrown: list) -> list[str]:
    """Edits thrown away, one line per way they went (what they did, when it says something)."""
    by_how: dict[str, list] = {}
    for ed in thrown:
        by_how.setdefault(ed.undone, []).append(ed)
    out = []
    for how, eds in list(by_how.items())[-3:]:
        whats = list(dict.fromkeys(w for ed in eds if (w := _edit_summary(ed.event, None))))
        rounds = cite([ed.event.round for ed in eds])
        out.append(f"NOT KEPT {rounds} {'; '.join(whats[-2:]) or 'edits'} — {how}")
    return out


def _thrown_record(path: str, log: FileLog) -> Fact:
    rounds = [ed.event.round for ed in log.thrown]
    n = count_edits([ed.event for ed in log.thrown])
    hows = list(dict.fromkeys(ed.undone for ed in log.thrown))
    what = next((w for ed in reversed(log.thrown) if ed.event.hunks and (w := _thrown_what(ed.event))), "")
    what = f" — {what.replace('`', '')}" if what else ""  # what the edits did: a successor may want it back
    text = f"`{path}`: {n} edit{'s' if n != 1 else ''}, then reverted (not kept): {'; '.join(hows[:2])}{what} {cite(rounds)}"
    lines = [ln for ln in _thrown_lines(log.thrown) if not ln.endswith(f"edits — {hows[-1]}")]
    full = text + "\n" + "\n".join(f"  {ln}" for ln in lines) if lines else None
    return Fact(Section.CHANGES, text, rounds, score=20, path=path, full_text=full)


def _deleted_record(path: str, log: FileLog) -> Fact | None:
    """A file the session edited, then deleted: what the edits had made of it (the first fix a later
    approach replaced), marked as gone. None when no edit showed what it changed. Unlike a scratch
    script's, its record competes in the changes' share: the project lost a file, and "how was it
    first fixed" asks for that edit (npm-publish's `compile-runes.mjs`, missed in three exams when it
    got only the leftover room)."""
    edited = [e for e in log.kept if e.kind is EventKind.EDIT and e.hunks]
    what = next((w for e in reversed(edited) if (w := _thrown_what(e))), "")
    if not what:
        return None
    rounds = sorted({e.round for e in log.kept})
    n = count_edits(edited)
    text = f"`{path}`: {n} edit{'s' if n != 1 else ''}{DELETED_NOTE}{what.replace('`', '')} {cite(rounds)}"
    return Fact(Section.CHANGES, text, rounds, score=20, path=path)


def _scratch_record(path: str, log: FileLog) -> Fact | None:
    """A file created then removed (a reproduction script): what it held, marked as gone."""
    events = log.kept or [ed.event for ed in log.edits]
    replay = _replay(events, document=reads_as_markdown(path, events) or bool(_DOCUMENT_RE.search(path)), path=path)
    if replay.final is None or not (replay.final.names or replay.final.calls or replay.final.keys):
        return None
    rounds = [e.round for e in events]
    # A script's calls and imports are what it does (a model made `connection.schema_editor`, a view
    # called through `RequestFactory`): before its string keys and its length.
    order = ("defines", "sections", "uses", "imports", "keys")
    d = _digest_parts(replay.final, True)
    parts = [p.replace("`", "") for p in sorted(d, key=lambda p: next(
        (i for i, w in enumerate(order) if p.startswith(w)), len(order)))]
    text = f"{_join(f'`{path}` (created, later removed)', parts, SHORT_CHARS)} {cite(rounds)}"
    fuller = _join("", _digest_parts(replay.final, True, full=True), 10**6).lstrip(": ")
    missing = [p for p in fuller.split("; ") if p.replace("`", "") not in text]
    full = f"{text}\n  {fuller}" if missing else None
    return Fact(Section.CHANGES, text, rounds, score=25, path=path, full_text=full, priority=LEFTOVER_PRIORITY)


@dataclass(slots=True)
class _Replay:
    final: Digest | None  # the file's final text digested, when the session showed all of it
    summaries: list[tuple[int, int, str]]  # (edit order, round, what the edit did), latest first
    contexts: list[str]  # definitions the edits landed in, latest first
    lines: list[str] | None = None  # the final text's lines, when known
    first: str | None = None  # the file's text when it first became known

    @property
    def born(self) -> frozenset[str]:
        """The definitions the file held when its text first became known: read only when asked (a
        record of several edits asks), not for every file replayed."""
        return frozenset(definitions(self.first.splitlines())) if self.first is not None else frozenset()


def _replay(events: list[Event], *, document: bool, prose: bool = False, path: str = "",
            before: str | None = None) -> _Replay:
    """Replay the edits on the file's text when a write showed it whole (so an edit's enclosing
    definition is known even when its old text does not show it, and the digest is of the final
    state), and say what each edit did. `path` names a data file whose settings the digest then holds;
    `before` is the file's text before the first edit, when a read showed it."""
    content: str | None = before if before is not None and len(before) <= _REPLAY_CHARS else None
    summaries: list[tuple[int, int, str]] = []
    contexts: list[str] = []
    first: str | None = content
    for order, e in enumerate(events):
        where: dict[int, str] = {}  # hunk index -> enclosing definition found by the replay
        if e.whole and e.hunks and content is not None:  # a file written whole again: what the rewrite changed
            what = _rewrite_summary(e, content, document or prose)
            if what:
                summaries.append((order, e.round, what))
        if (e.whole and e.hunks) or (content is None and e is events[0] and creates(e)):
            content = "\n".join(e.hunks[0].added) if e.whole else e.hunks[0].source[1]
            if len(content) > _REPLAY_CHARS:
                content = None
            elif first is None:
                first = content
        elif content is not None and e.hunks:
            content = _apply(content, e.hunks, where)
        for name in where.values():
            if name not in contexts:
                contexts.append(name)
        if not e.whole and not (e is events[0] and creates(e)):
            what = _edit_summary(e, where, document or prose)
            if what:
                summaries = [x for x in summaries if x[2] != what]  # the same change again: latest only
                summaries.append((order, e.round, what))
    final = None
    lines: list[str] | None = None
    if content is not None:
        lines = content.splitlines()
        final = digest(lines, document=document)
    else:
        whole = [e for e in events if e.whole and e.hunks]
        if whole and whole[-1] is events[-1]:
            lines = list(whole[-1].hunks[0].added)
            final = digest(lines, document=document)
    if final is not None and lines is not None and data_leaves.kind_of(path) \
            and (found := data_leaves.leaves(path, "\n".join(lines))):
        was = data_leaves.changed(data_leaves.leaves(path, first), found) if first is not None and first != content \
            else {}
        final = replace(final, leaves=tuple((k, f"{v} (was {was[k]})" if k in was else v) for k, v in found))
    summaries.reverse()
    contexts.reverse()
    return _Replay(final, summaries, contexts, lines, first)


# A line an agent writes in place of text it did not write out ("--- (truncated for brevity) ---",
# "# rest of the file unchanged"): the file on disk holds that line, not the rest.
_MARKS = r"[\s#/*;<>!\-–—=.…()\[\]{}]*"  # comment leaders, rules, ellipses, brackets: what frames a stand-in
_PLACEHOLDER_RE = re.compile(
    rf"^{_MARKS}(?:(?:code|content|output|text|lines?|section|rest)\s+)?(?:truncated|omitted|abbreviated|shortened"
    rf"|elided)(?: here)? for (?:brevity|space){_MARKS}$|"
    rf"^{_MARKS}(?:the )?(?:rest|remainder) of (?:the )?(?:code|file|script|content|implementation)"
    rf"(?: (?:is |remains |stays )?(?:unchanged|omitted|the same|as before))?{_MARKS}$", re.IGNORECASE)
_PLACEHOLDER_CHARS = 60  # the stand-in line as quoted


_PLACEHOLDER_WORDS = ("for brevity", "for space", "rest of ", "remainder of ")  # one of them in every match


def _may_hold_placeholder(lines: list[str]) -> bool:
    """Whether a line may be a stand-in: an ASCII text (where `_PLACEHOLDER_RE`'s IGNORECASE is plain
    lower-casing) lacking all of its words holds none, found by a few searches instead of a match per
    line (files run to thousands of lines, and hardly any holds one)."""
    text = "\n".join(lines)
    if not text.isascii():
        return True
    low = text.lower()
    return any(w in low for w in _PLACEHOLDER_WORDS)


def _placeholder(lines: list[str] | None) -> str:
    """"left incomplete: “line” (line n of m)" when the file's final text (known whole) holds a line
    that is only a stand-in (framed by comment marks, rules or brackets, nothing else: a string that
    says "truncated for brevity" is code); "" otherwise (an edit's own "… existing code …" marks are
    its tool's format, not read)."""
    if lines and not _may_hold_placeholder(lines):
        return ""
    for i, line in enumerate(lines or ()):
        if len(line) <= 200 and _PLACEHOLDER_RE.match(line):
            said = line.strip()
            said = said if len(said) <= _PLACEHOLDER_CHARS else said[:_PLACEHOLDER_CHARS - 1] + "…"
            return f"left incomplete: “{said}” (line {i + 1} of {len(lines or ())})"
    return ""


REWRITE_SHARE = 0.3  # of a rewrite's distinct lines, the share the text before must hold: else a new file


def _rewrites_as_edits(events: list[Event], before: str | None,
                       read: Callable[[int], str | None]) -> tuple[list[Event], int]:
    """The file's whole writes whose text before is known (the replay of the session's own writes and
    edits since a read showed it, else the last read before the write) as the edits they were: the line
    diff of the two texts, so the record says what each rewrite changed, not every definition the file
    already had. A rewrite that keeps little of the text before stays a write. Also how many were turned."""
    out: list[Event] = []
    content: str | None = before
    turned = 0
    for e in events:
        if e.whole and e.hunks:
            new = "\n".join(e.hunks[0].added)
            if content is None:
                content = read(e.round)
            if content is not None and len(content) + len(new) <= _REPLAY_CHARS:
                old_set = {ln.strip() for ln in content.splitlines() if ln.strip()}
                new_set = {ln.strip() for ln in e.hunks[0].added if ln.strip()}
                if new_set and len(old_set & new_set) >= REWRITE_SHARE * len(new_set):
                    hunks = tuple(pair_hunks(content, new))
                    if hunks:
                        out.append(replace(e, kind=EventKind.EDIT, whole=False, hunks=hunks))
                        turned += 1
                        content = new
                        continue
            content = new
        elif content is not None:
            content = replayed(content, e.hunks) if e.hunks else None
        out.append(e)
    return out, turned


MAX_REWRITE_LINES = 1500  # the two versions' lines diffed at most
MAX_REWRITE_HUNKS = 6  # a rewrite that changes more places than this is told by its first ones


def _rewrite_summary(e: Event, before: str, document: bool) -> str:
    """What a whole write changed in a text the replay knew: its lines diffed with the text before,
    then said as an edit's would be (a rewrite's summary was only "created" again)."""
    old, new = before.splitlines(), list(e.hunks[0].added)
    if len(old) + len(new) > MAX_REWRITE_LINES:  # difflib is quadratic or worse on long files with repeated lines
        return ""
    changed = [op for op in SequenceMatcher(None, old, new, autojunk=False).get_opcodes() if op[0] != "equal"]
    hunks = tuple(Hunk(tuple(old[i1:i2]), tuple(new[j1:j2])) for _, i1, i2, j1, j2 in changed[:MAX_REWRITE_HUNKS])
    what = _edit_summary(replace(e, hunks=hunks, whole=False), None, document) if hunks else ""
    if hunks and not what:  # no name came or went: the line it added says what changed
        line = next((ln for h in hunks for ln in h.added if _informative(ln)), "")
        what = f"+ {_code(_trim(line, 100))}" if line else ""
    return what


def _apply(content: str, hunks: tuple[Hunk, ...], where: dict[int, str], strict: bool = False) -> str | None:
    """`content` after the edit's hunks, None when an old text is not found (the replay lost track);
    `where` gets each hunk's enclosing definition in the replayed text. `strict`: a hunk that only shows the
    tool's view of the file after it (its change unknown) loses track too (`final_lines`)."""
    in_pair = False
    cursor = 0  # the line after the last unified hunk placed
    text: placing.Lines | None = None  # the text as lines while unified hunks are placed (`content` then stale)
    for i, h in enumerate(hunks):
        if h.source is not None or h.fragment and h.removed:
            if text is not None:
                content, text = text.text(), None
        if h.source is not None:
            old, new = h.source
            at = content.find(old) if old else -1
            if at < 0:
                return None
            in_pair = True
            above = content[:at].splitlines()
            pair_old = old.splitlines()
            first = (h.removed or h.added or ("",))[0]
            name = enclosing(above + pair_old[:h.offset], first)
            if name:
                where[i] = name
            content = content[:at] + new + content[at + len(old):]
        elif h.fragment and h.removed:
            in_pair = False
            old, new = h.removed[0], (h.added[0] if h.added else "")
            if old not in content:
                return None
            content = content.replace(old, new) if h.every else content.replace(old, new, 1)
        elif h.shown and not (h.removed or h.added):
            if strict:
                return None
            continue  # only the result's view of the file: its definitions are most likely still there
        elif _addressed_hunk(h):
            if i and _addressed_hunk(hunks[i - 1]):
                continue  # applied with the first of its run: one sed script, one pass
            if text is not None:
                content, text = text.text(), None
            run = []
            for g in hunks[i:]:
                if not _addressed_hunk(g):
                    break
                run.append(g)
            content = _addressed(content, run)
            if content is None:
                return None  # an address that names no line, or a pattern not understood: the replay lost track
        elif in_pair:
            if h.context:
                where[i] = h.context
            continue  # a later hunk of the same pair: its place is within the text just replaced
        else:  # a unified diff's hunk, found by its lines and the context around them
            text = text or placing.Lines(content)
            placed = placing.place(text, h, cursor)
            if placed is None:
                return None  # a line-numbered or unanchored change: the text is no longer known
            cursor = placed
            if h.context:
                where[i] = h.context
    return text.text() if text is not None else content


# sed's line commands by address (`/DEBUG/i …`, `1i …`, `$a …`): the hunk's context as `edits.sed_hunks` words it
_ADDRESSED_RE = re.compile(r"^(insert|append) at (\d+|\$|/.*/)$")
_BRE_OPERATORS = frozenset("(){}|+?")  # operators in a basic regular expression only after a backslash


def _addressed_hunk(h: Hunk) -> bool:
    return bool(h.deletes_matching) or bool(_ADDRESSED_RE.match(h.context or "") and h.added and not h.removed
                                            and h.reads_in is None)


def _bre(pattern: str) -> re.Pattern[str] | None:
    """A sed basic regular expression as Python's (`line_views.bre`), only one a search runs in linear time on:
    None for one that repeats or groups (`*` past the start, `\\+`, `\\{`, `\\(`) or uses GNU's escapes (`\\w`):
    the pattern is the transcript's, and a nested repetition matched against the replayed lines could run for
    hours. A leading `*` is a literal star."""
    if not pattern:
        return re.compile("")
    i = 0
    while i < len(pattern):
        if pattern[i] == "\\":
            if i + 1 == len(pattern) or pattern[i + 1] in _BRE_OPERATORS or pattern[i + 1].isalnum():
                return None  # a trailing backslash, an operator, a back-reference or a GNU escape (`\\w`)
            i += 2
            continue
        if pattern[i] == "*" and i:
            return None
        i += 1
    return bre("\\" + pattern if pattern.startswith("*") else pattern)


def _addressed(content: str, run: list[Hunk]) -> str | None:
    """`content` after one sed script's line commands, as sed runs them: line by line, each command whose
    address names the line (its number, `$`, a pattern it holds) inserting before it, appending after it or
    deleting it; None when a command's address names no line, or its pattern is none Python can read."""
    lines = content.split("\n")
    ends_in_newline = len(lines) > 1 and lines[-1] == ""
    if ends_in_newline:
        lines.pop()
    n = len(lines)
    commands: list[tuple[str, Callable[[int, str], bool], tuple[str, ...]]] = []
    for h in run:
        if h.deletes_matching:
            if h.deletes_pattern is None:  # a delete built from its text alone: the lines holding it
                literal = h.deletes_matching
                commands.append(("delete", lambda _i, ln, lit=literal: lit in ln, ()))
                continue
            pattern = _bre(h.deletes_pattern)
            if pattern is None:
                return None
            commands.append(("delete", lambda _i, ln, p=pattern: p.search(ln) is not None, ()))
            continue
        verb, address = _ADDRESSED_RE.match(h.context or "").groups()  # type: ignore[union-attr]
        if address.startswith("/"):
            pattern = _bre(address[1:-1])
            if pattern is None or not address[1:-1]:
                return None
            commands.append((verb, lambda _i, ln, p=pattern: p.search(ln) is not None, h.added))
        else:
            at = n - 1 if address == "$" else int(address) - 1
            if not 0 <= at < n:
                return None
            commands.append((verb, lambda i, _ln, at=at: i == at, h.added))
    out: list[str] = []
    hit = [False] * len(commands)
    for i, ln in enumerate(lines):
        after: list[str] = []
        deleted = False
        for k, (verb, names, added) in enumerate(commands):
            if not names(i, ln):
                continue
            hit[k] = True
            if verb == "insert":
                out.extend(added)
            elif verb == "append":
                after.extend(added)
            else:
                deleted = True
                break  # `d` ends the line's cycle: no later command sees it (the appends queued still print)
        if not deleted:
            out.append(ln)
        out.extend(after)
    if not all(hit):
        return None
    return "\n".join(out) + ("\n" if ends_in_newline else "")


def _edit_summary(e: Event, where: dict[int, str] | None, document: bool = False) -> str:
    """What one edit did, in a line: where (the definitions it landed in) and what — the identifiers
    it swapped, the definitions it added or dropped, or that it changed comments only; each place
    apart (one edit touching two functions says what went where, not one pooled list). A prose or
    config file: its changed lines themselves, old → new."""
    fragments = [h for h in e.hunks if h.fragment and h.removed]
    seen = [h for h in e.hunks if h.shown]
    whole_lines = [h for h in e.hunks if not h.fragment and (h.removed or h.added)]
    if seen and not (whole_lines or fragments):  # only the result's view of the file after the edit
        h = seen[0]
        defs = definitions(h.shown)
        names = _identifiers_of(h.shown)
        around = ", ".join(f"`{x}`" for x in (defs + [n for n in names if n not in defs])[:6])
        if h.context == AFTER_EDIT:  # the export kept the text after the edit only: what it holds, not what it added
            return f"{_HOLDS}{around}{_OLD_UNSHOWN}" if around else ""
        return f"edited {h.context}" + (f" (around {around})" if around else "")
    bits: list[str] = []
    for h in fragments[:2]:
        new = h.added[0] if h.added else ""
        if len(h.removed[0]) + len(new) <= 60:
            bits.append(f"{_code(h.removed[0])} → {_code(new)}" if new else f"removed {_code(h.removed[0])}")
        elif len(h.removed[0]) + len(new) <= 240:  # a long shared beginning said once
            bits.append(_code_rewrite(h.removed[0], new) if new else f"removed `{_trim(h.removed[0])}`")
    if document and whole_lines:
        removed = [ln for h in whole_lines for ln in h.removed]
        added = [ln for h in whole_lines for ln in h.added]
        bits += prose_changes(removed, added)
        return "; ".join(bits)
    groups: dict[str, list[int]] = {}  # the place (enclosing definition, "" unknown) -> hunk indexes
    for i, h in enumerate(e.hunks):
        if h.fragment or not (h.removed or h.added):
            continue
        name = (where or {}).get(i) or h.context or ""
        if name.startswith(("line ", "after ", "insert ", "append ")):
            name = ""
        groups.setdefault(name, []).append(i)
    placed: list[str] = []
    for name, idx in groups.items():
        removed = [ln for i in idx for ln in e.hunks[i].removed]
        added = [ln for i in idx for ln in e.hunks[i].added]
        what = _lines_summary(removed, added)
        if what:
            placed.append((f"`{name}`: " if name else "") + what)
    placed.sort(key=lambda x: "→" not in x or _strings_only(x))  # a swap of names says most: first
    if len(placed) == 1 and not bits:
        return placed[0]
    return "; ".join(bits + placed[:3])


def _lines_summary(removed: list[str], added: list[str]) -> str:
    """Code lines removed and added at one place, in a few words."""
    if is_comment_only(removed, added):
        said = next((ln.strip() for ln in (*added, *removed) if re.search(r"\w{3}", ln)), "")
        return "comment only" + (f": {said}" if said and len(said) <= 100 else "")
    bits = []
    added_defs, removed_defs = definitions(added), definitions(removed)  # once each, not once per name
    new_defs = [d for d in added_defs if d not in removed_defs]
    gone_defs = [d for d in removed_defs if d not in added_defs]
    gone, new = swapped(removed, added)
    gone = [g for g in gone if g not in gone_defs]
    new = [x for x in new if x not in new_defs]
    renamed = _renames(gone_defs, new_defs)
    if renamed:  # a definition dropped and one of a like name added: one renamed
        bits.append("renames " + ", ".join(f"`{a}` → `{b}`" for a, b in renamed[:3]))
        new_defs = [d for d in new_defs if d not in {b for _, b in renamed}]
        gone_defs = [d for d in gone_defs if d not in {a for a, _ in renamed}]
    if new_defs:
        bits.append("adds " + _ticks(new_defs, 6))
    if gone_defs:
        bits.append("drops " + _ticks(gone_defs, 6))
    if gone and new:
        bits.append(f"{_ticks(gone, 3)} → {_ticks(new, 4)}")
    elif new:
        bits.append("+ " + _ticks(new, 4 if not new_defs else 3))
    elif gone:
        bits.append("− " + _ticks(gone, 4))
    old_text, new_text = swapped_literals(removed, added)
    named = {w for t in (*gone, *new, *gone_defs, *new_defs, *(n for p in renamed for n in p)) for w in t.split(".")}
    if old_text and new_text and max(len(old_text), len(new_text)) <= MAX_LITERALS_SWAPPED \
            and _unnamed(old_text, named) != _unnamed(new_text, named):  # not the names' swap again (`'../A'` → `'../B'`)
        bits.append(f"{_ticks(old_text, 2)} → {_ticks(new_text, 2)}")  # a path or key changed inside a line
    return "; ".join(bits)


def _unnamed(literals: list[str], named: set[str]) -> list[str]:
    """The literals with the names an edit swapped blanked: `'../validators/PoIValidator'` and
    `'../validators/SignalScorer'` read alike once `PoIValidator` → `SignalScorer` is said."""
    return [_WORD_RE.sub(lambda m: "§" if m.group(0) in named else m.group(0), x) for x in literals]


_STRINGS_SWAPPED_RE = re.compile(r"`['\"][^`]*` → `['\"]")  # `'a'` → `'b'`: a string swapped, not a name


def _strings_only(summary: str) -> bool:
    """Whether every swap a code edit's summary says is a string's (`'client'` → `'../dist-client'`): it
    ranks after the definitions an edit added, a swap of names before them."""
    return summary.count("→") == len(_STRINGS_SWAPPED_RE.findall(summary))


MAX_LITERALS_SWAPPED = 3  # an edit that changed more strings than this rewrote text: its lines say it
RENAME_RATIO = 0.8  # a dropped and an added definition this alike (or equal but for case and `_`) are one renamed


_FIRST_WORD_RE = re.compile(r"_*[A-Za-z][a-z]*|\d+")  # `get` of `get_user`/`getUser`, `Signal` of `SignalScorer`
_NO_DIGITS = str.maketrans("", "", "0123456789")


def _renames(gone: list[str], new: list[str]) -> list[tuple[str, str]]:
    """(old, new) pairs of definitions an edit renamed (`describe_mixed_situtations` →
    `describe_mixed_situations`): alike names that open with the same word and differ in more than
    digits (`get_user` → `set_user`, `test_case_1` → `test_case_2` are two definitions); each paired
    once, the most alike first; a few of each side compared."""
    if not gone or not new:
        return []
    matcher = SequenceMatcher(autojunk=False)
    scored: list[tuple[float, str, str]] = []
    for b in new[:12]:
        matcher.set_seq2(b)
        head = _FIRST_WORD_RE.match(b)
        for a in gone[:12]:
            if head is None or not a.startswith(head.group(0)) or a.translate(_NO_DIGITS) == b.translate(_NO_DIGITS):
                continue
            if a.replace("_", "").casefold() == b.replace("_", "").casefold():
                scored.append((2.0, a, b))
                continue
            matcher.set_seq1(a)
            if matcher.real_quick_ratio() >= RENAME_RATIO and matcher.quick_ratio() >= RENAME_RATIO \
                    and (ratio := matcher.ratio()) >= RENAME_RATIO:
                scored.append((ratio, a, b))
    out: list[tuple[str, str]] = []
    used: set[str] = set()
    for _, a, b in sorted(scored, key=lambda x: -x[0]):
        if a not in used and b not in used:
            used.update((a, b))
            out.append((a, b))
    return out


_PAIR_LINES = 40  # removed lines paired with added ones (twice as many) at most, per edit
PROSE_CHARS = 70  # one side of a prose line's change, trimmed to where it differs


def prose_changes(removed: list[str], added: list[str], limit: int = 2) -> list[str]:
    """A prose or config edit as its lines: each removed line paired with the added line most like it
    (`'Follow airbnb style' → 'Adhere to ESLint, Oxlint, dprint'`), then the added lines no removed
    line matches; a pair that differs only in punctuation or spacing says nothing and is left out."""
    return _prose_pieces(*prose_pairs(removed, added), limit)


def prose_pairs(removed: list[str], added: list[str]) -> tuple[list[tuple[str, str | None]], list[str], int]:
    """(each informative removed line with the added line it became, None when none; the added lines
    no removed line became; how many lines the bounded pairing did not look at)."""
    rem = [ln.strip() for ln in removed if _informative(ln)]
    add = [ln.strip() for ln in added if _informative(ln)]
    add_set, rem_set = set(add), set(rem)
    rem = [ln for ln in rem if ln not in add_set]
    add = [ln for ln in add if ln not in rem_set]
    unseen = max(0, len(rem) - _PAIR_LINES) + max(0, len(add) - 2 * _PAIR_LINES)
    rem, add = rem[:_PAIR_LINES], add[:2 * _PAIR_LINES]  # bounded pairing: a rewrite of a whole file stays cheap
    pairs: dict[int, int] = {}  # removed index -> added index
    used: set[int] = set()
    # Each added line's words, read once: every removed line is compared with every added line.
    add_words = [set(_WORD_RE.findall(new.casefold())) for new in add]
    for i, old in enumerate(rem):
        old_words = set(_WORD_RE.findall(old.casefold()))
        best, best_score = -1, 0.0
        for j, new_words in enumerate(add_words):
            shared = len(old_words & new_words)
            if not shared or j in used:  # no word in common scores 0: never the best
                continue
            score = shared / (len(old_words) + len(new_words) - shared)  # the union's size: no third set per pair
            if score > best_score:
                best, best_score = j, score
        if best >= 0 and best_score >= 0.2:
            pairs[i] = best
            used.add(best)
    # A line rewritten in other words (`Name every function` → `Prefer named functions`): the rest
    # pair up in order, as an edit's replaced lines are.
    lone = [i for i in range(len(rem)) if i not in pairs]
    spare = [j for j in range(len(add)) if j not in used]
    if len(lone) == len(spare) <= 4:  # as many left on each side: one replaced the other
        for i, j in zip(lone, spare, strict=True):
            pairs[i] = j
            used.add(j)
    became = [(old, add[pairs[i]] if i in pairs else None) for i, old in enumerate(rem)]
    return became, [new for j, new in enumerate(add) if j not in used], unseen


def chained_prose_pairs(edits: list[tuple[list[str], list[str]]]
                        ) -> tuple[list[tuple[str, str | None]], list[str], int]:
    """`prose_pairs` over a file's edits in order, latest wins: a line an edit rewrote and a later one
    rewrote again reads from its first text to its last (`"main": "dist/index.js"` → `./dist-client/index.js`,
    not the `dist/client/index.js` in between); one put back as it was, or an added line removed again,
    says nothing. Each edit is paired apart (its lines replace each other), so a document's rewrites keep
    their own pairs. A short line (`restart: "no"`) may stand at several places of a file: it is chained to
    nothing. Lines are looked up by their text (a file of thousands of edits stays linear)."""
    became: list[list] = []  # [old, new, alive], in order of their (last) change
    fresh: list[list] = []  # [line, alive]: lines the session added
    by_new: dict[str, list[list]] = {}  # a rewrite's new text -> its live entries
    by_gone: dict[str, list[list]] = {}  # a removed line's text -> its live entries
    fresh_by: dict[str, list[list]] = {}
    unseen = 0

    def pop(index: dict[str, list[list]], text: str) -> list | None:
        entries = index.get(text)
        while entries:
            entry = entries.pop()
            if entry[-1]:
                entry[-1] = False
                return entry
        return None

    def add_change(old: str, new: str | None) -> None:
        entry = [old, new, True]
        became.append(entry)
        (by_new.setdefault(new, []) if new is not None else by_gone.setdefault(old, [])).append(entry)

    def add_fresh(line: str) -> None:
        entry = [line, True]
        fresh.append(entry)
        fresh_by.setdefault(line, []).append(entry)

    for removed, added in edits:
        pairs, new_lines, skipped = prose_pairs(removed, added)
        unseen += skipped
        for old, new in pairs:
            chained = len(old) >= CHAIN_CHARS
            earlier = pop(by_new, old) if chained else None
            if earlier is not None:  # a line this session wrote, rewritten again
                if new != earlier[0]:
                    add_change(earlier[0], new)
            elif chained and pop(fresh_by, old) is not None:  # a line this session added, rewritten or removed
                if new is not None:
                    add_fresh(new)
            else:
                add_change(old, new)
        for new in new_lines:
            if len(new) < CHAIN_CHARS or pop(by_gone, new) is None:  # else a removed line put back
                add_fresh(new)
    return ([(old, new) for old, new, alive in became if alive], [line for line, alive in fresh if alive], unseen)


CHAIN_CHARS = 20  # a shorter line may be any of several alike in the file: no edit's line is chained to it


def _prose_pieces(became: list[tuple[str, str | None]], fresh: list[str], unseen: int, limit: int) -> list[str]:
    out: list[str] = []
    for old, new in became:
        if new is None:
            out.append(f"− '{_trim(old)}'")
            continue
        if _WORD_RE.findall(old.casefold()) == _WORD_RE.findall(new.casefold()):
            continue  # punctuation or spacing only
        out.append(_rewrite(old, new))
    out += [f"+ '{_trim(new)}'" for new in fresh]
    # Rewritten lines first (what a reader asks "became what"), then additions, then removals.
    out.sort(key=lambda x: 0 if "→" in x else (1 if x.startswith("+") else 2))
    if len(out) + unseen > limit:
        out = out[:limit] + [f"(+{len(out) + unseen - limit} more lines)"]
    return out


_MD_HEADING_RE = re.compile(r"^(#{1,6})[ \t]+(\S[^\n]*)$")  # no lazy group before `\s*$`: linear on any line
_MARKDOWN_RE = re.compile(r"\.(?:md|markdown|mdx)$", re.IGNORECASE)
_HEADING_PIECE_RE = re.compile(r"(?:^|→ |\+ |− )'#{1,6} ")  # a prose piece that rewrites or adds a heading line
_COUNTER_RE = re.compile(r"^(?:(?:phase|step|part|chapter|section|stage)\s+)?\d+[.:)]?\s*(?:[-–—:]\s*)?", re.IGNORECASE)
MAX_OUTLINE = 6  # headings said in a document's record line
MAX_MOVES_SAID = 2  # renumbered headings said one by one
OUTLINE_CHARS = 60


# A line of code, not of prose: a statement's end, a block's brace, a keyword opening it, an assignment.
_CODE_LINE_RE = re.compile(r"[;{}][ \t]*$|^[ \t]*(?:def|class|import|from|function|const|let|var|return|if|for|while)\b|"
                           r"\w[ \t]*(?:=|<-)[ \t]*\S")
# Markdown's own marks: a list item, emphasis, a link, a table row.
_MARKDOWN_MARK_RE = re.compile(r"^[ \t]*(?:[-*+] \S|\d+\. \S|\|)|\*\*\S|\]\(")
# A list item that bolds its label or links (`- **Reflection & Templates**:`, `1. [Guide](guide.md)`).
_EMPHASIS_ITEM_RE = re.compile(r"^[ \t]*(?:[-*+]|\d+\.) +.*(?:\*\*\S[^*]*\*\*|\]\([^)\s\]]+\))")


def reads_as_markdown(path: str, events: list[Event]) -> bool:
    """A Markdown file by its name, or one whose name no language claims (Cursor's `.mdc` rules) and
    whose edited lines read as Markdown: a heading below the title, Markdown's own marks (a list item,
    emphasis, a link), few lines of code (an R script's `## Load the data` is a comment)."""
    if _MARKDOWN_RE.search(path):
        return True
    if known_code(path) or path.endswith(_CONFIG_EXTS) or _DOCUMENT_RE.search(path):
        return False
    body = [ln for _, ln in outside_fences([ln for e in events for h in e.hunks for ln in (*h.added, *h.removed)])
            if ln.strip()]
    headings = sum(1 for ln in body if ln.startswith("##") and _heading(ln))
    code = sum(1 for ln in body if _CODE_LINE_RE.search(ln))
    if headings:
        return any(_MARKDOWN_MARK_RE.search(ln) for ln in body) and 5 * code < len(body)
    # An edit inside one section shows no heading: list items that bold their label or link, two at least,
    # and not one line of code (`f(**kwargs)` is no list item)
    return not code and sum(1 for ln in body if _EMPHASIS_ITEM_RE.match(ln)) >= 2


def _heading(line: str) -> tuple[str, str] | None:
    """(level, title) of a Markdown heading line, its closing `#`s dropped (not a title's own: `## C#`)."""
    m = _MD_HEADING_RE.match(line)
    if m is None:
        return None
    title = m.group(2).rstrip()
    bare = title.rstrip("#")
    if bare != title and bare[-1:] in (" ", "\t"):
        title = bare.rstrip()
    return (m.group(1), title) if title else None


def _headings(lines: tuple[str, ...]) -> list[tuple[str, str]]:
    """The headings among a hunk's lines, not a `#` comment inside a fenced block the hunk holds."""
    return [h for _, ln in outside_fences(lines) if ln.startswith("#") and (h := _heading(ln))]


def _outline_changes(events: list[Event]) -> str:
    """"sections + 'GTM', 'Phase 4 - Later' moved to 'Phase 5 - Later', 'Intro' → 'Intro (beta)'": the Markdown
    headings the edits added, moved (the same title under another number), renamed (the same level and
    opening words, in one hunk) and removed; the lines around them say the rest. "" when no edit
    touched a heading."""
    added: list[tuple[str, str]] = []
    removed: list[tuple[str, str]] = []
    reworded: list[tuple[tuple[str, str], tuple[str, str]]] = []  # (was, now) in one hunk
    for e in events:
        for h in e.hunks:
            new, old = _headings(h.added), _headings(h.removed)
            new, old = [x for x in new if x not in old], [x for x in old if x not in new]
            for x in list(new):  # a title reworded in place: same level, same first two words
                was = next((r for r in old if r[0] == x[0] and r[1].split()[:2] == x[1].split()[:2]
                            and _COUNTER_RE.sub("", r[1]) != _COUNTER_RE.sub("", x[1])), None)
                if was is not None:
                    old.remove(was)
                    new.remove(x)
                    reworded.append((was, x))
            added += new
            removed += old
    renamed: list[tuple[str, str]] = []
    moved_titles = {_COUNTER_RE.sub("", t) for _, t in added}
    for was, x in reworded:  # a title that reappears under another number moved; its old place was reused
        if _COUNTER_RE.sub("", was[1]) in moved_titles:
            added.append(x)
            removed.append(was)
        else:
            renamed.append((was[1], x[1]))
    gone = [x for x in dict.fromkeys(removed) if x not in added]
    added = [x for x in dict.fromkeys(added) if x not in removed]
    out: list[str] = []
    renumbered = 0
    added = outline_first(added, [len(level) for level, _ in added], MAX_OUTLINE)
    for level, title in added:  # the same title under another number: moved, not new
        was = next((r for r in gone if r[0] == level and r[1] != title
                    and _COUNTER_RE.sub("", r[1]) == _COUNTER_RE.sub("", title)), None)
        if was is not None:
            gone.remove(was)
            renumbered += 1
            if renumbered > MAX_MOVES_SAID:  # a list of sections shifted by one insertion: counted
                continue
        out.append(f"'{_title(was[1])}' moved to '{_title(title)}'" if was else f"+ '{_title(title)}'")
    out += [f"'{_title(a)}' → '{_title(b)}'" for a, b in renamed]
    out += [f"− '{_title(title)}'" for _, title in gone]
    if not out:
        return ""
    more = f" (+{len(out) - MAX_OUTLINE})" if len(out) > MAX_OUTLINE else ""
    moved = f" ({renumbered - MAX_MOVES_SAID} more renumbered)" if renumbered > MAX_MOVES_SAID else ""
    return "sections " + ", ".join(out[:MAX_OUTLINE]) + more + moved


def _title(title: str) -> str:
    """A heading's title cut to OUTLINE_CHARS at a word boundary, its own number kept (`2. Start Small`)."""
    title = title.replace("`", "").replace("; ", ", ")
    return title if len(title) <= OUTLINE_CHARS else title[:OUTLINE_CHARS].rsplit(" ", 1)[0] + "…"


def _prose_edits(events: list[Event]) -> list[tuple[list[str], list[str]]] | None:
    """A prose or config file's edits as (lines removed, lines added), in order, for `chained_prose_pairs`;
    None when one is not whole lines (a rewrite of the whole file, a substitution inside a line): those the
    edits' own summaries tell. A view of the text after an edit holds no lines of its own: passed over."""
    out: list[tuple[list[str], list[str]]] = []
    for e in events:
        if e.whole:
            return None
        removed: list[str] = []
        added: list[str] = []
        for h in e.hunks:
            if h.shown and not (h.removed or h.added):
                continue
            if h.fragment or h.deletes_matching:
                return None
            removed += h.removed
            added += h.added
        if removed or added:
            out.append((removed, added))
    return out


def _drafted(first: Event, existed: bool) -> bool:
    """The session's first change of a file it had not read only added lines (a patch's `*** Add File`,
    an append to nothing): the session wrote the file, whatever the tool called it."""
    return not existed and bool(first.hunks) and all(h.added and not h.removed and not h.fragment for h in first.hunks)


def _netted_summaries(events: list[Event]) -> list[tuple[int, int, str]] | None:
    """A prose or config file's edits said as `_replay` says them ((edit order, round, what), latest first),
    latest wins: the lines an edit added that a later edit rewrote or removed are no change of the first,
    and the later edit's old line reads as the text the first had replaced (`"main": "dist/index.js"` →
    `"./dist-client/index.js"` at the later edit, not `dist/client/index.js` at the first: a successor
    looking for the in-between path finds nothing). None when an edit is not whole lines (a rewrite of
    the whole file, a substitution inside a line): their own summaries say those. Linear in the lines: a
    file ticked off once a round for thousands of rounds stays cheap."""
    edits: list[tuple[list[str], list[str]] | None] = []
    for k, e in enumerate(events):
        if e.whole or any(h.fragment or h.deletes_matching for h in e.hunks):
            return None
        if k == 0 and creates(e):
            edits.append(None)  # the file's first text: no change of its own to say (as `_replay`)
            continue
        edits.append(([ln for h in e.hunks for ln in h.removed], [ln for h in e.hunks for ln in h.added]))
    dropped_added: list[set[str]] = [set() for _ in edits]  # per edit: its added lines a later edit took back
    dropped_removed: list[set[str]] = [set() for _ in edits]  # per edit: its old lines said at a later edit
    alive: dict[str, tuple[int, str | None]] = {}  # a line an edit added → (that edit, the line it replaced)
    for j, edit in enumerate(edits):
        if edit is None:
            continue
        removed, added = edit
        rewritten: list[str] = []
        for ln in removed:
            source = alive.pop(ln.strip(), None)
            if source is None:
                rewritten.append(ln)
                continue
            i, first = source  # added by edit i: no change of its; this edit's old line is what i replaced
            dropped_added[i].add(ln.strip())
            if first is not None:
                dropped_removed[i].add(first)
                rewritten.append(first)
        edits[j] = (rewritten, added)
        origin = {new: old for old, new in prose_pairs(rewritten, added)[0] if new is not None}
        for ln in added:
            if _informative(ln):
                alive[ln.strip()] = (j, origin.get(ln.strip()))
    latest: dict[str, tuple[int, int, str]] = {}  # the same change said again: latest only
    for k, (e, edit) in enumerate(zip(events, edits, strict=True)):
        if edit is None:
            continue
        removed = [ln for ln in edit[0] if ln.strip() not in dropped_removed[k]]
        added = [ln for ln in edit[1] if ln.strip() not in dropped_added[k]]
        what = "; ".join(prose_changes(removed, added))
        if what:
            latest.pop(what, None)
            latest[what] = (k, e.round, what)
    return list(reversed(latest.values()))


def _rewritten(piece: str) -> tuple[bool, float]:
    """Rank of a prose piece: lines rewritten first, the most reworded first (`'Name every function'
    → 'Prefer named functions'` says more than a word added to a line), then lines added."""
    if " → " not in piece:
        return True, 0.0
    old, new = (set(_WORD_RE.findall(x.casefold())) for x in piece.split(" → ", 1))
    return False, len(old & new) / (len(old | new) or 1)


def _shorter(piece: str, side: int = 45) -> str:
    """A prose piece (`'old' → 'new'`, `+ 'line'`) with each quoted side cut to `side` characters."""
    return re.sub("'([^']{" + str(side + 2) + ",})'", lambda m: f"'{_trim(m.group(1), side)}'", piece)


def _rewrite(old: str, new: str) -> str:
    """`'old' → 'new'`, a long shared beginning said once: a line extended reads
    `'Avoid special handling…' → '…; prefer arrow functions'`."""
    old, new = _trim(old, 10**6), _trim(new, 10**6)
    cut = _shared_head(old, new)
    if cut:
        head = " ".join(old[:cut].split()[:3])
        return f"'{_trim(head + ' …' + old[cut:])}' → '…{_trim(new[cut:])}'"
    return f"'{_trim(old)}' → '{_trim(new)}'"


def _code_rewrite(old: str, new: str) -> str:
    """`` `old` → `new` `` for a code line changed inside it (a `sed s/…/…/`), a long shared beginning said
    once; the code as written: its quotes are code (`'..' in host` had read `.. in host`)."""
    old, new = old.strip(), new.strip()
    cut = _shared_head(old, new)
    if cut:
        old, new = "…" + old[cut:], "…" + new[cut:]
    return f"{_code(old)} → {_code(new)}"


def _shared_head(old: str, new: str) -> int:
    """Where a long (30+ characters) shared beginning of two lines ends, at a space; 0 when they share less."""
    n = len(os.path.commonprefix([old, new]))
    cut = old[:n].rfind(" ")
    return cut if n >= 30 and cut > 0 else 0


def _code(text: str) -> str:
    """A code span around `text`, a longer fence when it holds backticks (`` a`b ``)."""
    return f"`` {text} ``" if "`" in text else f"`{text}`"


def _trim(line: str, limit: int = 0) -> str:
    """A prose line cut to PROSE_CHARS at a word boundary, list markers and ticks dropped."""
    limit = limit or PROSE_CHARS
    line = re.sub(r"^(?:[-*+]|\d+[.)])\s+", "", line.strip()).replace("`", "").replace("; ", ", ")
    if len(line) <= limit:
        return line
    # A path or a name the cut falls in is kept whole when it ends soon after: halved, or dropped with the
    # words after it, it was the one part of the line that said which file or what it names.
    start, end = line.rfind(" ", 0, limit) + 1, line.find(" ", limit)
    end = len(line) if end < 0 else end
    word = line[start:end]
    if start < limit < end and end - limit <= WORD_OVERRUN and word.isascii() and _PATHLIKE_RE.search(word) \
            and "://" not in word:  # a link's address is not what the line says; CJK prose has no spaces to end a word
        return line[:end].rstrip(",;:") + ("…" if end < len(line) else "")
    if end == limit:  # the cut falls on a space: the word before it is whole
        return line[:limit].rstrip(",;:") + "…"
    return line[:limit].rsplit(" ", 1)[0] + "…"


WORD_OVERRUN = 40  # characters a cut may run on to end the path or name it falls in
_PATHLIKE_RE = re.compile(r"\w[/._]\w|\w\(")  # `docs/a-b.md`, `Foo.bar`, `snake_case`, `call(`


@per_text(maxsize=4096)
def _defs(lines: tuple[str, ...]) -> tuple[str, ...]:
    """`definitions` of a hunk's lines, found once: `_touched` and `_does` both read every hunk."""
    return tuple(definitions(lines))


def _touched(events: list[Event], replay: _Replay | None = None) -> list[str]:
    """Definitions touched, latest edit first: where the replay placed the edits, hunk contexts, then
    definitions in the changed lines."""
    out: list[str] = list(replay.contexts) if replay else []
    for e in reversed(events):
        for hunk in e.hunks:
            names = [hunk.context] if hunk.context and not hunk.context.startswith(("line ", "after ", "insert ",
                                                                                     "append ")) else []
            names += [*_defs(hunk.added), *_defs(hunk.removed)]
            for name in names:
                name = name.strip()
                if name and len(name) <= 60 and name not in out:
                    out.append(name)
    return out


def _informative(line: str) -> bool:
    return bool(line.strip()) and not _NOISE_RE.match(line) and len(line) <= MAX_LINE_CHARS


def _diff_lines(events: list[Event], alive: set[int] | None = None) -> tuple[list[str], int]:
    """The file's net change as informative lines, latest edit first, at most MAX_LINES whole lines;
    and how many informative lines were left out. A line one edit added and a later one removed
    (a debug print, a reverted attempt) cancels out: the final state wins. A whole-file write shows
    its definitions, not its body."""
    entries: list[tuple[int, str, str]] = []  # (edit order, sign, text)
    inserted: dict[str, str] = {}  # "line N" -> the last line inserted there (`sed 'Ni …'`)
    # (sign, text) of the entries, kept current at every change of `entries` (not rebuilt per edit, which
    # was quadratic in a file's edits): most lines have no opposite to cancel, and this says so in O(1).
    live: Counter[tuple[str, str]] = Counter()
    rewritten_to: list[tuple[str, str]] = []  # a rewrite's new line counts from the next edit on (as it always did)
    rewrites: list[tuple[int, str]] = []  # (edit order, the line it rewrote in place)
    for order, e in enumerate(events):
        if e.whole and e.hunks:
            entries.clear()  # the file was rewritten whole: what came before is not its state
            live.clear()
            rewritten_to.clear()
            continue  # its digest (the record's first line) says what it holds
        live.update(rewritten_to)
        rewritten_to.clear()
        for hunk in e.hunks:
            if hunk.deletes_matching:
                pattern = hunk.deletes_matching
                kept = [x for x in entries if not (x[1] == "+" and pattern in x[2])]
                if len(kept) == len(entries):
                    entries.append((order, "=", f"~ removed lines matching `{pattern}`"))
                    live[("=", entries[-1][2])] += 1
                else:
                    for x in entries:
                        if x[1] == "+" and pattern in x[2]:
                            live[("+", x[2])] -= 1
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
                        live[entries[undo][1:]] -= 1
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
                            live[(sign, text)] -= 1
                            rewritten_to.append((sign, entries[i][2]))
                            rewrites.append((order, entries[i][2]))
                            if text == at:
                                inserted[hunk.context or ""] = entries[i][2]
                            rewritten = True
                    if rewritten:
                        continue
                entries.append((order, "=", line))
                live[("=", line)] += 1
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
    if alive is not None:  # the edits whose change is still in the final state
        alive.update(o for o, _, _ in entries)
        final = {text for _, _, text in entries}
        alive.update(o for o, text in rewrites if text in final)
    return out, skipped


def _inside_block(body: list[str], i: int, diff: list[str]) -> bool:
    """Whether body line `i` is the body of a block the diff line before it opens (`if result is
    NotImplemented:` / `return NotImplemented` / `return not result`), with a line of its sign after:
    the block read without it says other code, even when the record's one line already tells it."""
    line = body[i]
    return (_block_body(body, i) and line in diff and body[i - 1] in diff and body[i + 1] in diff
            and body[i - 1][:1] == line[:1] == body[i + 1][:1])


def _block_body(lines: list[str], i: int) -> bool:
    """Line `i` follows a line that opens a block (`if x:`, `function f() {`), and more lines follow it."""
    return 0 < i < len(lines) - 1 and lines[i - 1].rstrip().endswith((":", "{"))


def _net_lines(net: tuple[Hunk, ...]) -> tuple[list[str], int]:
    """A final diff's informative lines, at most MAX_LINES, or as many of its one-line changes as there are up
    to MAX_NET_LINES, shared fairly between its changes (one long hunk must not hide the others'); within a
    change a definition first, then what it added, then what it removed, shown in the diff's order. Changes
    alike are said once with their count and places (`_alike`), a one-line substitution or a short removal as
    one line (`_change_line`): sympy's numbers.py made 42 changes of 13 kinds, and ten lines of its `- …`/`+ …`
    fragments left which line replaced which, and how often, unsaid."""
    per_hunk: list[list[tuple[int, int, str]]] = []  # (rank, place, line) of each change
    where: list[str | None] = []  # the definition each change is in (git's hunk header), beside per_hunk
    seen: set[str] = set()  # a line said once (`+ return NotImplemented` in forty hunks)
    for hunk, places in _alike(net):
        if one := _change_line(hunk, places):
            per_hunk.append([(0, 0, one)])
            where.append(None)  # its line says where, when it was made in several places
            continue
        said: list[str] = []
        in_hunk: set[str] = set()
        for sign, side in (("-", hunk.removed), ("+", hunk.added)):
            kept = [f"{sign} {ln.strip()}" for ln in side if _informative(ln)]
            for i, x in enumerate(kept):
                # a line said before is left out, unless it is the body of a block the line before opens, with
                # more after it (`if result is NotImplemented:` / `return NotImplemented` / `return not result`):
                # the block read without it says other code
                if (x not in in_hunk and x not in seen) or _block_body(kept, i):
                    said.append(x)
                    in_hunk.add(x)
        seen.update(said)
        if said:
            ranked = sorted(((0 if definitions([x[2:]]) else 1 if x[0] == "+" else 2), i, x)
                            for i, x in enumerate(said))
            if len(places) > 1:  # the change made at several places: said by its first line shown
                rank, i, x = ranked[0]
                ranked[0] = (rank, i, x + _times(places))
            per_hunk.append(ranked)
            where.append(places[0] if len(places) == 1 else None)
    room = [0] * len(per_hunk)
    # a change said in one line each: up to MAX_NET_LINES of them (the engine cuts the record by lines)
    left = max(MAX_LINES, min(MAX_NET_LINES, sum(1 for ranked in per_hunk if ranked[0][2].startswith("~ "))))
    while left and any(room[i] < len(ranked) for i, ranked in enumerate(per_hunk)):
        for i, ranked in enumerate(per_hunk):
            if left and room[i] < len(ranked):
                room[i] += 1
                left -= 1
    shown: list[str] = []
    last: str | None = None  # the definition of the change shown before
    for i, ranked in enumerate(per_hunk):
        lines = [x for _, _, x in sorted(ranked[:room[i]], key=lambda r: r[1])]
        if lines and shown and where[i] and where[i] != last:
            # another definition's change: said where, or its first line reads as the lines' above (matplotlib's
            # `disconnect` guard `+ if self.canvas is None:` read as the body of `__setstate__`: reader review 63)
            lines[0] += f"  (in `{where[i]}`)"
        if lines:
            last = where[i]
        shown += lines
    return shown, sum(len(ranked) for ranked in per_hunk) - len(shown)


def _alike(net: tuple[Hunk, ...]) -> list[tuple[Hunk, list[str | None]]]:
    """The diff's changes, those with the same lines (indentation aside) as one, in the order of the first,
    with the definition each landed in: seven methods' `raise TypeError(…)` → `return NotImplemented`."""
    out: dict[tuple[tuple[str, ...], tuple[str, ...]], tuple[Hunk, list[str | None]]] = {}
    for h in net:
        key = (tuple(ln.strip() for ln in h.removed if ln.strip()), tuple(ln.strip() for ln in h.added if ln.strip()))
        out.setdefault(key, (h, []))[1].append(h.context)
    return list(out.values())


_CHANGE_LINES = 3  # a removal of at most this many lines is said in one line


def _change_line(hunk: Hunk, places: list[str | None]) -> str:
    """One line for a change that reads whole in one: a line replaced by one line ("~ `old` → `new`"), or a
    few lines removed ("~ removed `def __ne__(self, other): return not self.__eq__(other)`"); with how often
    and where ("×7 in `__lt__`"). "" for any other change: its own lines say it."""
    old = [ln.strip() for ln in hunk.removed if ln.strip()]
    new = [ln.strip() for ln in hunk.added if ln.strip()]
    if old == new or any("`" in ln for ln in (*old, *new)):  # re-indented only: its lines say how
        return ""
    if len(old) == len(new) == 1:  # too long to quote: said as one all the same, never lost uncounted
        line = f"~ `{old[0]}` → `{new[0]}`" if len(old[0]) + len(new[0]) <= 2 * MAX_LINE_CHARS else "~ a substitution"
    elif old and not new and len(old) <= _CHANGE_LINES and len(" ".join(old)) <= MAX_LINE_CHARS:
        line = f"~ removed `{' '.join(old)}`"
        if definitions(old[:1]):  # the definition removed names itself: the one above it places nothing
            places = [None] * len(places)
    else:
        return ""
    return line + _times(places)


def _times(places: list[str | None]) -> str:
    """How often a change was made and in which definitions (" ×7 in `__lt__`"), "" for one made once nowhere named."""
    named = list(dict.fromkeys(p for p in places if p))
    where = f" in {', '.join(f'`{p}`' for p in named[:3])}{' …' if len(named) > 3 else ''}" if named else ""
    return (f" ×{len(places)}" if len(places) > 1 else "") + where


def _insert_places(events: list[Event]) -> str:
    """The lines an edit tool's inserts went after ("1283", "40, 96"), from their hunks' `after line N`
    places: an insert carries no old text, so nothing else in the record says where the code went."""
    lines = [h.context[len("after line "):] for e in events for h in e.hunks or ()
             if h.context and h.context.startswith("after line ")]
    return ", ".join(dict.fromkeys(lines[:3])) + (" …" if len(set(lines)) > 3 else "") if lines else ""


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


def final_lines(events: list[Event]) -> list[str] | None:
    """The lines of a file the session created or wrote whole, as its writes and edits left it; None when
    one change after its text became known cannot be replayed (a `perl -pi`, a `cp` over it, an edit whose
    payload the export did not keep, a hunk with no place): a text the replay lost track of is no final
    text. The harness's "applied" line beside an edit's payload (`count_edits`) is that edit, not another."""
    if not events or not (events[0].kind is EventKind.WRITE or events[0].whole or creates(events[0])):
        return None
    payload_rounds = {e.round for e in events if e.hunks}
    content: str | None = None
    for e in events:
        if e.whole and e.hunks:
            content = "\n".join(e.hunks[0].added)
        elif content is None and creates(e):
            content = e.hunks[0].source[1]
        elif content is None:
            return None
        elif not e.hunks:
            if e.round not in payload_rounds:
                return None  # changed by something whose change is not known
        elif (content := _apply(content, e.hunks, {}, strict=True)) is None:
            return None
        if content is not None and len(content) > _REPLAY_CHARS:
            return None
    return content.splitlines() if content is not None else None
