"""Modified files: one line per file still in the work tree (how it changed, in which rounds); scratch
files and reverted edits folded into one line each. Files known only from a git command's output
(`Event.git_output`: the session wrote files without naming them) are labelled so; the deletions and
unchanged moves git reports fold into one line each, so a moved folder does not flood the list."""

from __future__ import annotations

import copy
import re
from collections import OrderedDict
from dataclasses import dataclass, field

from compaction.events import Event, EventKind
from compaction.history.facts import Fact, cite, display_path, is_test_path
from compaction.history.sections import Section
from compaction.history.sources.changes import fate, gists, reverted_counts
from compaction.history.sources.filelog import creates, folder_named, follow_move, logs_of
from compaction.history.sources.registry import FactContext, fact_source
from compaction.model import Role

SCRATCH = ("created then removed", "edited, then reverted")
UNCHANGED = "edited to no effect (its text as it was)"
_INFERRED = " (file inferred: the export names none)"
_HEAD_RE = re.compile(r"`[^`]*`(?: \([^()]*\))?")  # a change record's file (backticks escaped in it), its counts
_CHANGES = (EventKind.WRITE, EventKind.EDIT, EventKind.DELETE, EventKind.REVERT)


@dataclass(slots=True)
class _FileHistory:
    rounds: list[int] = field(default_factory=list)
    kinds: list[EventKind] = field(default_factory=list)
    last: int = 0
    named: bool = False  # some change to it named the file (not only inferred from a patch's content)
    renamed_from: str | None = None  # the path it was changed under before a `mv` moved it here
    edits: list[Event] = field(default_factory=list)  # its edits whose text the export did not keep
    unchanged: list[int] = field(default_factory=list)  # rounds of its edits that left its text as it was

    def follows(self, earlier: _FileHistory) -> None:
        self.rounds[:0] = earlier.rounds
        self.kinds[:0] = earlier.kinds
        self.named = self.named or earlier.named


@fact_source(Section.MODIFIED)
def modified_file_facts(ctx: FactContext) -> list[Fact]:
    files: OrderedDict[str, _FileHistory] = OrderedDict()
    renamed: set[tuple[int, str]] = set()  # (round, source) of each `mv` that carried a history to its destination
    for e in ctx.events:
        if e.kind not in _CHANGES or not e.path or e.git_output:
            continue
        if e.failed and not e.via_shell:
            continue
        path = display_path(e.path, ctx.cwd)
        if not path or path.endswith("/") or path.startswith(("/tmp/", "/dev/", "/proc/")):
            continue
        if follow_move(e, ctx.cwd, files, renamed):  # `mv a b`: b is a's file, under a new name
            if e.kind is EventKind.WRITE:  # the move itself is a round of the file's
                files[path].rounds.append(e.round)
                files[path].last = e.round
            continue
        info = files.setdefault(path, _FileHistory())
        if e.unchanged:  # told only of a file no other change touched
            info.unchanged.append(e.round)
            continue
        info.rounds.append(e.round)
        info.kinds.append(e.kind)
        info.last = e.round
        info.named = info.named or not e.inferred
        if e.kind is EventKind.EDIT and not e.hunks:
            info.edits.append(e)
    facts: list[Fact] = []
    scratch: list[tuple[str, str, list[int]]] = []
    logs = logs_of(ctx)  # edits thrown away by a stash, a reset or aider's /undo too
    carried = gists(ctx)  # what each file's change comes to, from its change record
    for path, info in files.items():
        if not info.kinds:  # every change of it left its text as it was
            facts.append(Fact(Section.MODIFIED, f"`{path}`: {UNCHANGED} {cite(info.unchanged)}", info.unchanged,
                              score=30, essential=True, short=f"`{path}` {cite(info.unchanged[-1:])}", path=path))
            continue
        kinds = info.kinds
        if set(kinds) == {EventKind.DELETE} and folder_named(path):
            continue  # `rm -rf some_dir`: a folder the transcript never showed being filled
        what = _what_happened(kinds)
        log = logs.get(path)
        if log is not None and log.edits and not log.deleted and what not in SCRATCH:
            if not log.kept:
                what = "edited, then reverted"
            else:
                if what == "edited" and creates(log.kept[0]):  # aider's SEARCH/REPLACE from nothing
                    later = [e for e in log.kept if e.round != log.kept[0].round or e.hunks and e is not log.kept[0]]
                    what = "created, then edited" if later else "created"
                if log.existed and what.startswith("created"):  # a file it had read: written over, not new
                    what = "rewritten" + what.removeprefix("created")
                if log.rebuilt:
                    what += f", made again by {log.rebuilt} since: those edits are gone"
                if log.thrown:
                    n = log.n_thrown
                    what += f" ({n} edit{'s' if n != 1 else ''} reverted, {fate(*reverted_counts(log.thrown, log.kept))})"
        if not info.named and what not in SCRATCH:
            what += _INFERRED
        if info.renamed_from and what not in SCRATCH:
            what += f", renamed from `{info.renamed_from}`"
        n = len(set(info.rounds))
        is_test = is_test_path(path)
        score = 50 + n + (5 if is_test and ctx.preset.tests_first else 0)
        if what in SCRATCH:
            scratch.append((path, what, info.rounds))
            continue
        # The line with the file's gist is what the filler upgrades it to when there is room: kept
        # short while required facts (the completed actions) are chosen, so they keep their place.
        gist = f"`{path}`: {what} — {carried[path]} {cite(info.rounds)}" if path in carried else None
        line = bare = f"`{path}`: {what} {cite(info.rounds)}"
        if gist is None and what == "edited" and (intents := _intents(ctx, info.edits)):
            # An export that kept no edit's text: the agent's words are all a successor has of what changed,
            # said briefly on the line itself (the list is kept whatever the budget), whole when there is room.
            gist = f"`{path}`: {what} — {_said(intents, INTENT_CHARS)} {cite(info.rounds)}"
            line = f"`{path}`: {what} — {_said(intents, BRIEF_INTENT_CHARS)} {cite(info.rounds)}"
        facts.append(Fact(Section.MODIFIED, line, info.rounds, score=score,
                          full_text=gist if what not in SCRATCH and gist != line else None, essential=True,
                          # the agent's words give way first (forty such files must not lose their "edited")
                          short=bare if line != bare else f"`{path}` {cite([info.last])}", path=path))
    facts += _git_reported_facts([e for e in ctx.events if e.git_output and e.path], set(files), ctx)
    # Scratch files and reverted edits: one line, so the list above is what the work tree still holds.
    for what in SCRATCH:
        group = [(p, r) for p, w, r in scratch if w == what]
        if group:
            rounds = sorted({x for _, r in group for x in r})
            names = ", ".join(f"`{p}`" for p, _ in group)
            label = {"created then removed": "Scratch files (created, later removed)",
                     "edited, then reverted": "Edited, then reverted"}[what]
            facts.append(Fact(Section.MODIFIED, f"{label}: {names} {cite(rounds)}", rounds, score=20,
                              short=f"{label}: {len(group)} files {cite(rounds)}", scratch=True))
    return facts


# What the agent says it will do next: "Let me replace …", "I'll bump to 0.3.0 since …", "Now I fix …"
_INTENT_RE = re.compile(r"\b(?:[Ll]et me(?! know)|I'll|I will|I'm going to|I am going to|[Nn]ow I(?:'ll| will)?"
                        r"(?! (?:see|understand|know|get it|realize|notice)))\b")
_SENTENCE_END_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z`\"'])")
INTENT_CHARS = 220
BRIEF_INTENT_CHARS = 90  # of each, on the modified file's own line
INTENTS_SHOWN = 2


def _intents(ctx: FactContext, edits: list[Event]) -> list[tuple[int, str]]:
    """For edits an export kept without their text (Claude Code's `edit {'file_path': 'README.md'}`), what
    the agent said it was doing in the reply that made each: (round, its sentence of intent, with the next one
    when that says what exactly). Of the last INTENTS_SHOWN such edits, in order."""
    out: list[tuple[int, str]] = []
    for e in edits[-INTENTS_SHOWN:]:
        texts = [m.text for m in ctx.transcript.messages[max(0, e.message_index - 2):e.message_index + 1]
                 if m.role is Role.ASSISTANT and m.text and not m.harness]
        sentences = [x.strip() for t in texts[-2:] for x in _SENTENCE_END_RE.split(" ".join(t.split()))]
        said_by = [i for i in range(len(sentences) - 1, -1, -1) if _INTENT_RE.search(sentences[i])]
        if not said_by:
            continue
        # the latest; said twice (a reply and its repeat), the first time, where the next sentence details it
        k = said_by[0]
        k = next((i for i in said_by[1:] if sentences[i][:30] == sentences[k][:30]), k)
        said = sentences[k]
        if k + 1 < len(sentences) and len(said) + len(sentences[k + 1]) < INTENT_CHARS \
                and not _INTENT_RE.search(sentences[k + 1]):
            said += " " + sentences[k + 1]
        out.append((e.round, said))
    return out


def _said(intents: list[tuple[int, str]], most: int) -> str:
    """The intents, each cut to `most` characters at a word: "r37: “Let me just replace …”; r52: “…”"."""
    return "; ".join(f"r{r}: “{said if len(said) <= most else said[:most].rsplit(' ', 1)[0] + '…'}”"
                     for r, said in intents)


def _what_happened(kinds: list[EventKind]) -> str:
    if kinds[-1] is EventKind.REVERT:
        return "edited, then reverted"
    if kinds[-1] is EventKind.DELETE:
        return "created then removed" if EventKind.WRITE in kinds else "deleted"
    if kinds[0] is EventKind.WRITE and EventKind.EDIT not in kinds:
        return "created"
    if kinds[0] is EventKind.WRITE:
        return "created, then edited"
    return "edited"


_SHOWN_MOVES = 6
DELETED_NAMED = 3  # of the files git's output says were deleted, named in the short line
GROUPED_FILES = 3  # files git's output names alike (same change, same rounds) said in one line from this many
GROUPED_SHOWN = 16  # of them, named at most


def _git_reported_facts(events: list[Event], known: set[str], ctx: FactContext) -> list[Fact]:
    """Facts for the files only git's output names. A file the session's own events name is left to
    them (theirs are the precise rounds); git's paths are relative to the repository, the session's
    often absolute, so a path that ends the other at a `/` is the same file. A deletion that a later
    report shows was a move is the move."""
    files: OrderedDict[str, _FileHistory] = OrderedDict()
    moves: OrderedDict[str, tuple[str, int]] = OrderedDict()
    renamed: dict[str, str] = {}  # new path -> the path git says it was renamed from (and changed)
    for e in events:
        path = display_path(e.path, ctx.cwd)
        # a rename git found (`rename {a.mdc => 100-a.mdc} (66%)`) is told for a file of its own record too:
        # that record does not say where the file came from, and its old name is no deletion
        rename = e.kind is EventKind.EDIT and bool(e.text)
        if not path or (_same_file_in(path, known) and not rename):
            continue
        if rename:
            renamed[path] = display_path(e.text, ctx.cwd)
        if e.kind is EventKind.MOVE:
            old = display_path(e.text, ctx.cwd) if e.text else ""
            if old in files and set(files[old].kinds) == {EventKind.DELETE}:
                del files[old]
            if path not in files:
                moves[path] = (old, e.round)
            continue
        info = files.setdefault(path, _FileHistory())
        info.rounds.append(e.round)
        info.kinds.append(e.kind)
        info.last = e.round
    facts: list[Fact] = []
    deleted: list[tuple[str, list[int]]] = []
    alike: OrderedDict[tuple[str, tuple[int, ...]], list[tuple[str, _FileHistory]]] = OrderedDict()
    gone = set(renamed.values())  # a rename's old name is no deletion of its own
    for path, info in files.items():
        if info.kinds[-1] is EventKind.DELETE:
            if path not in gone:
                deleted.append((path, info.rounds))
            continue
        moves.pop(path, None)
        # Each report is a snapshot against the last commit, not a further change: untracked in
        # `git status`, then `rename … (53%)` in the commit's summary, is the file renamed, and changed.
        what = "renamed and changed" if path in renamed else "created" if EventKind.WRITE in info.kinds else "edited"
        alike.setdefault((what, tuple(sorted(set(info.rounds)))), []).append((path, info))
    for (what, rounds), group in alike.items():
        if len(group) < GROUPED_FILES:
            facts += [Fact(Section.MODIFIED, f"`{path}`: {what}{f' from `{renamed[path]}`' if path in renamed else ''} "
                           f"(from git output) {cite(info.rounds)}", info.rounds,
                           score=45 + len(rounds), essential=True, short=f"`{path}` {cite([info.last])}", path=path)
                      for path, info in group]
            continue
        # Files one report named alike (a commit's new rules and templates): one line, by folder.
        folders: OrderedDict[str, list[str]] = OrderedDict()
        for path, _ in group:
            folder, _, name = path.rpartition("/")
            if path in renamed:  # `terminal-best-practices.mdc` → `002-terminal-safety.mdc`
                name = f"{renamed[path].rpartition('/')[2]}` → `{name}"
            folders.setdefault(folder, []).append(name)
        shown, names = 0, []
        for folder, ns in folders.items():  # at most GROUPED_SHOWN names: a 400-file commit is not one long line
            ns = ns[:max(0, GROUPED_SHOWN - shown)]
            shown += len(ns)
            if ns:
                names.append((f"`{folder}/` " if folder else "") + ", ".join(f"`{n}`" for n in ns))
        more = f" and {len(group) - shown} more" if shown < len(group) else ""
        names = "; ".join(names) + more
        label = f"{what.capitalize()} (from git output): {len(group)} files"
        facts.append(Fact(Section.MODIFIED, f"{label}: {names} {cite(list(rounds))}", list(rounds),
                          score=45 + len(rounds), essential=True, short=f"{label} {cite(list(rounds))}"))
    if deleted:
        rounds = sorted({r for _, rs in deleted for r in rs})
        names = ", ".join(f"`{p}`" for p, _ in deleted)
        first = ", ".join(f"`{p.rpartition('/')[2]}`" for p, _ in deleted[:DELETED_NAMED])
        first += " …" if len(deleted) > DELETED_NAMED else ""
        facts.append(Fact(Section.MODIFIED, f"Deleted (from git output): {names} {cite(rounds)}", rounds, score=20,
                          short=f"Deleted (from git output): {len(deleted)} files: {first} {cite(rounds)}", scratch=True))
    if moves:
        rounds = sorted({r for _, r in moves.values()})
        named = [(old, new) for new, (old, _) in moves.items() if old]
        folders = folder_moves(named)
        if folders and len(folders) * 3 <= len(named) == len(moves):
            # a folder moved whole (`documentation/` → `docs/`, 41 files): where everything now lives, in a few
            # words (ai-playbook's commit moved 41 files; the line named 3 and was left out: reader review 60)
            shown = ", ".join(f"`{a}` → `{b}` ({n})" if n > 1 else f"`{a}` → `{b}`" for a, b, n in folders[:_SHOWN_MOVES])
            more = f" and {len(folders) - _SHOWN_MOVES} more" if len(folders) > _SHOWN_MOVES else ""
            facts.append(Fact(Section.MODIFIED, f"Moved unchanged (from git output): {len(moves)} files: {shown}{more} "
                              f"{cite(rounds)}", rounds, score=FOLDER_MOVE_SCORE, essential=len(folders) <= _SHOWN_MOVES,
                              short=f"Moved unchanged (from git output): {shown} {cite(rounds)}" if more else None))
            return facts
        shown = ", ".join(f"`{old}` → `{new}`" if old else f"`{new}`"
                          for new, (old, _) in list(moves.items())[:_SHOWN_MOVES])
        more = f" and {len(moves) - _SHOWN_MOVES} more" if len(moves) > _SHOWN_MOVES else ""
        facts.append(Fact(Section.MODIFIED, f"Moved unchanged (from git output): {len(moves)} files: {shown}{more} "
                          f"{cite(rounds)}", rounds, score=15,
                          short=f"Moved unchanged (from git output): {len(moves)} files {cite(rounds)}", scratch=True))
    return facts


FOLDER_MOVE_SCORE = 40  # a folder moved whole: as telling as a file created


def folder_moves(moves: list[tuple[str, str]]) -> list[tuple[str, str, int]]:
    """(old folder, new folder, files) of moves that kept the files' names and the folders below the one
    moved, most files first: `documentation/business/principles.md` → `docs/business/principles.md` is
    `documentation/` → `docs/`. A file renamed in place, or alone in its folders' move, is a pair of its
    own paths (`src/util.py` → `lib/util.py` says nothing of the rest of `src/`)."""
    counts: OrderedDict[tuple[str, str], list[tuple[str, str]]] = OrderedDict()
    for old, new in moves:
        o, n = old.split("/"), new.split("/")
        k = 0
        while k < min(len(o), len(n)) and o[len(o) - 1 - k] == n[len(n) - 1 - k]:
            k += 1
        key = (old, new) if k == 0 else (_folder(o[:len(o) - k]), _folder(n[:len(n) - k]))
        counts.setdefault(key, []).append((old, new))
    pairs = [(key, files) if len(files) > 1 else (files[0], files) for key, files in counts.items()]
    return sorted(((a, b, len(files)) for (a, b), files in pairs), key=lambda x: -x[2])


def _folder(parts: list[str]) -> str:
    return "/".join(parts) + "/" if parts else "./"


def _same_file_in(path: str, paths: set[str]) -> bool:
    """`path` is one of `paths`, or one ends the other at a `/` (relative vs absolute spelling) and
    the shorter names a folder too: a bare `README.md` may be any folder's."""
    if path in paths:
        return True
    return any((p.endswith("/" + path) and "/" in path) or (path.endswith("/" + p) and "/" in p) for p in paths)


def with_changes(modified: list[Fact], changed: list[Fact]) -> tuple[list[Fact], list[Fact]]:
    """One line per file: a chosen change record takes its file's place in the modified list (its
    counts, what changed, its detail lines below it), so no file is named twice and the list still
    names every file (the harness reads the list; a file without a chosen record keeps its own line).
    Rendering only: copies, the chosen facts unchanged. Returns (modified lines, records left)."""
    by_path = {f.path: f for f in changed if f.path}
    if not by_path:
        return modified, changed
    out: list[Fact] = []
    used: set[int] = set()
    for m in modified:
        rec = by_path.get(m.path) if m.path and not m.scratch else None
        if rec is None or id(rec) in used:
            out.append(m)
            continue
        first, _, rest = rec.text.partition("\n")
        own = cite(rec.rounds)
        if first.endswith(own):  # the list's rounds: every change of the file, not only the kept edits
            first = first[: -len(own)].rstrip() + " " + cite(m.rounds)
        if _INFERRED in m.text and _INFERRED not in first:  # after the file's code span and its counts
            head = _HEAD_RE.match(first)
            if head:
                first = first[:head.end()] + _INFERRED + first[head.end():]
        g = copy.copy(m)
        g.text = first + ("\n" + rest if rest else "")
        used.add(id(rec))
        out.append(g)
    return out, [f for f in changed if id(f) not in used]
