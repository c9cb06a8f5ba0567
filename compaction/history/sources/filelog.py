"""Each modified file's edits in order, with the ones thrown away marked as such: reverted to the
committed state (`git checkout -- f`, `git restore f`, `git stash`, `git reset --hard`), undone
(aider's `/undo` names the commit it removes), put back by a later edit that restores the earlier
text, or gone with the file.

Why one module: the modified-files list and the change records must agree on what the work tree
still holds; a reverted edit described as kept is a confident wrong answer for whoever takes over.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import MutableMapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol, Self, TypeVar

from compaction.events import Event, EventKind
from compaction.history.condense import cut_at_word
from compaction.history.facts import display_path
from compaction.history.sources.registry import FactContext
from compaction.memo import per_text
from compaction.shell import first_word, leading_cd, split_commands, words

_CHANGES = (EventKind.WRITE, EventKind.EDIT)
_SCRATCH_ROOTS = ("/tmp/", "/dev/", "/proc/")


DELETED_THEN = "deleted (r"  # an edit whose text went with the file, written anew after: "deleted (r15), then …"


@dataclass(slots=True)
class Edit:
    event: Event
    undone: str | None = None  # how it was thrown away ("reverted by `git checkout` (r12)"), None: kept


@dataclass(slots=True)
class FileLog:
    edits: list[Edit] = field(default_factory=list)
    failed: int = 0  # failed attempts (a tool's error), counted, never shown
    proposed: int = 0  # edits a reply proposed that were never applied (aider's /ask mode): no failure
    deleted: bool = False  # the last thing that happened to it was a deletion
    renamed_from: str | None = None  # the path its edits were made under, before a `mv` (display path)
    existed: bool = False  # read before its first change: a whole write of it rewrote it, created nothing
    rebuilt: str = ""  # a build output (dist/…) a later build made again: "`pnpm build` (r7)", its edits gone

    @property
    def kept(self) -> list[Event]:
        return [e.event for e in self.edits if e.undone is None]

    def follows(self, earlier: FileLog) -> None:
        self.edits[:0] = earlier.edits
        self.failed += earlier.failed
        self.proposed += earlier.proposed

    @property
    def thrown(self) -> list[Edit]:
        return [e for e in self.edits if e.undone is not None]

    @property
    def n_thrown(self) -> int:
        """Edits thrown away, counted once per call (`count_edits`)."""
        return count_edits([e.event for e in self.thrown])


def count_edits(events: list[Event]) -> int:
    """Edits counted once per call: a payload's event and the harness's "applied" line are one edit."""
    with_payload = {(e.round, e.message_index) for e in events if e.hunks}
    payload_rounds = {r for r, _ in with_payload}
    return len(with_payload) + len({e.round for e in events if not e.hunks and e.round not in payload_rounds})


@per_text(maxsize=1024)
def _git_calls(command: str) -> tuple[tuple[str, ...], ...]:
    """The words of each part of a command line that runs git: split and unquoted once for the three
    readers of a git line (`_whole_tree_revert`, `_commits_undone`, `_reset_to`), not once each."""
    return tuple(tuple(words(part)) for part in split_commands(command) if first_word(part) == "git")


def _whole_tree_revert(command: str) -> str | None:
    """'revert' for a command line that throws away every uncommitted edit, 'restore' for one that
    brings the last stash back, else None. A line that stashes and pops again (`git stash && go test …;
    git stash pop`: the tests run on the committed tree) leaves the edits where they were."""
    net: str | None = None
    before_stash: str | None = None  # what the line had done before its own stash
    for called in _git_calls(command):
        args = [a for a in called[1:] if not a.startswith("-") or a in {"--hard", "--", "-u"}]
        if not args:
            continue
        verb, rest = args[0], args[1:]
        if verb == "stash":
            sub = rest[0] if rest else "push"
            if sub in {"pop", "apply"}:
                net, before_stash = (before_stash, None) if net == "stashed" else ("restore", None)
            elif sub in {"push", "save", "-u", "--"}:
                before_stash, net = net, "stashed"
        elif verb == "reset" and "--hard" in rest or \
                verb in {"checkout", "restore"} and [a for a in rest if a != "--"] == ["."]:
            net, before_stash = "revert", None
    return "revert" if net == "stashed" else net


def logs_of(ctx: FactContext) -> OrderedDict[str, FileLog]:
    """`file_logs` of the compaction's events, made once for the change records and the modified-files list."""
    return ctx.shared(("file_logs",), lambda: file_logs(ctx.events, ctx.cwd))


def scratch_files(ctx: FactContext) -> list[str]:
    """The files the session wrote whole and then deleted (its scratch scripts), as the file logs name them:
    no work of it to commit, to list or to hand in."""
    return [path for path, log in logs_of(ctx).items()
            if log.deleted and log.edits and log.edits[0].event.kind is EventKind.WRITE]


def folder_named(path: str) -> bool:
    """Whether a path has no extension: one the session only removed (`rm -rf some_dir`) is taken for a folder
    the transcript never showed being filled, no file of the modified-files list."""
    return not _EXTENSION_RE.search(path)


def listed_files(ctx: FactContext) -> dict[str, bool]:
    """The files the modified-files list names on their own line, always shown, by path (forward slashes):
    whether the line says deleted. Not its scratch files (created, later removed: their line is optional),
    nor a removed folder."""
    scratch = set(scratch_files(ctx))
    out: dict[str, bool] = {}
    for path, log in logs_of(ctx).items():
        if path in scratch or log.deleted and (folder_named(path) and not log.edits
                                                 or any(ed.event.kind is EventKind.WRITE for ed in log.edits)):
            continue  # a folder; a file written and removed is one of the list's scratch files
        out[path.replace("\\", "/").removeprefix("./")] = log.deleted
    return out


_EXTENSION_RE = re.compile(r"\.\w+$")


def file_logs(events: list[Event], cwd: str | None) -> OrderedDict[str, FileLog]:
    """Every modified file's log, in order of first change (scratch roots like /tmp left out)."""
    logs: OrderedDict[str, FileLog] = OrderedDict()
    commits: dict[str, int] = {}  # commit hash (7 characters) -> the round it was made in
    by_round: dict[int, list[Edit]] = {}
    stashed: list[tuple[Edit, str]] = []
    history: list[tuple[str, list[Edit]]] = []  # each commit with the edits made since the one before, oldest first
    pending: list[Edit] = []  # edits made since the last commit: what a reset or a stash throws away
    deleted_at: dict[str, int] = {}  # path → the round of its latest deletion
    renamed: set[tuple[int, str]] = set()  # (round, source) of each `mv` that carried a log to its destination
    read: set[str] = set()  # files a read showed before any change of theirs
    users_edits: dict[str, list[int]] = {}  # path → the rounds its user's own edits were committed in
    for e in events:
        if e.kind is EventKind.READ and e.path and not e.failed and not e.git_output:
            read.add(display_path(e.path, cwd))
            continue
        if e.unchanged:
            continue  # an edit that left its file as it was is no change of it
        if e.kind is EventKind.COMMIT and e.commit_hash:
            if e.path:  # the user's own edits of the file, committed before the agent's (aider)
                users_edits.setdefault(display_path(e.path, cwd), []).append(e.round)
            commits[e.commit_hash[:7]] = e.round
            history.append((e.commit_hash[:7], pending))
            pending = []
            continue
        if e.kind is EventKind.COMMAND and e.command and not e.failed and "git" in e.command:
            what = _whole_tree_revert(e.command)
            undone = _commits_undone(e.command, history)
            if undone is not None:  # `git revert <ref>`, `git reset --hard HEAD~n`: those commits' edits too
                how = f"reverted by `{_git_words(e.command)}` (r{e.round})"
                for ed in undone:
                    if ed.undone is None:
                        ed.undone = how
            reset = _reset_to(e.command, history)
            if reset is not None:  # the commits after the ref leave the history: a later HEAD~n counts without them
                kept, hard = reset
                dropped = [ed for _, eds in history[kept:] for ed in eds]
                del history[kept:]
                if not hard:  # a soft or mixed reset leaves their edits in the work tree, uncommitted
                    pending = dropped + pending
            if what == "revert":
                how = f"reverted by `{_git_words(e.command)}` (r{e.round})"
                # Only what was not committed: a commit survives a reset to HEAD or a stash.
                for ed in pending if history else [ed for log in logs.values() for ed in log.edits]:
                    if ed.undone is None:
                        ed.undone = how
                        stashed.append((ed, how))
            elif what == "restore" and stashed:
                for ed, how in stashed:
                    if ed.undone == how:
                        ed.undone = None
                stashed = []
            continue
        if e.kind is EventKind.REVERT and not e.path and e.commit_hash:  # aider's /undo of one commit:
            # the edits of the round that made it (aider commits each request's edits at its end)
            made = commits.get(e.commit_hash[:7])
            for ed in by_round.get(made, []) if made is not None else []:
                if ed.undone is None:
                    ed.undone = _undo_how(e)
            history = [c for c in history if c[0] != e.commit_hash[:7]]  # HEAD is the commit before it again
            continue
        if e.kind not in (*_CHANGES, EventKind.REVERT, EventKind.DELETE) or not e.path or e.git_output:
            continue
        path = display_path(e.path, cwd)
        if not path or path.startswith(_SCRATCH_ROOTS):
            continue
        if follow_move(e, cwd, logs, renamed):  # `mv a b`: b holds a's text, with a's edits; a is not a file deleted
            continue
        log = logs.get(path)
        if log is None:
            log = logs[path] = FileLog(existed=path in read)
        if e.kind is EventKind.REVERT:  # back to the committed state: the edits so far no longer apply
            how = f"reverted by `{_git_words(e.command or '')}` (r{e.round})" if e.command else f"reverted (r{e.round})"
            for ed in log.edits:
                if ed.undone is None:
                    ed.undone = how
            thrown = {id(ed) for ed in log.edits}
            pending = [ed for ed in pending if id(ed) not in thrown]  # thrown away: no later commit holds them
            log.deleted = False
        elif e.kind is EventKind.DELETE:
            log.deleted = True
            deleted_at[path] = e.round
        elif e.proposed:
            log.proposed += 1
        elif e.failed and not e.via_shell:
            log.failed += 1
        else:
            if log.deleted and e.whole and path in deleted_at and log.edits and not log.existed \
                    and (log.edits[0].event.kind is EventKind.WRITE or creates(log.edits[0].event)):
                # a file the session made, deleted, then written anew: what it held before is gone, not this
                # file's text (a project file edited, deleted and written again stays a file it edited)
                for ed in log.edits:
                    if ed.undone is None:
                        ed.undone = f"{DELETED_THEN}{deleted_at[path]}), then written anew (r{e.round})"
            edit = Edit(e)
            _restores(log, edit)
            log.edits.append(edit)
            pending.append(edit)
            by_round.setdefault(e.round, []).append(edit)
            log.deleted = False
    for path, rounds in users_edits.items():  # once all is read: aider logs that commit after the edit it precedes
        if (log := logs.get(path)) is not None:
            _added_again(log.edits, rounds)
    _rebuilt(logs, events)
    return logs


# A build's output folder (its files are made again by the next build), and a line that builds or cleans it
_OUTPUT_DIR_RE = re.compile(r"(?:^|/)(?:dist|build|out|\.next|\.output|dist-\w+)/[^\n]*\.(?:m?js|cjs|css|map|html|d\.ts)$")
# a package manager's build script, a bundler or compiler that builds, or a clean of the output folder
_BUILDS_RE = re.compile(r"^(?:(?:npm|pnpm|yarn|bun)\b[^|;&]*\bbuild\b|(?:vite|webpack|rollup|esbuild|tsup|tsdown|astro|next|"
                        r"nuxt|svelte-package|parcel)\b[^|;&]*\bbuild\b|tsc\s+(?:-b|--build)\b|rimraf\b|make\b)")


def _rebuilt(logs: OrderedDict[str, FileLog], events: list[Event]) -> None:
    """Marks the build outputs (`dist/hooks/use-actor.svelte.js`) that a build run after their last edit
    made again: the edits made by hand there are gone (destyler: four hand edits in dist/, then two builds)."""
    outputs = [(p, log) for p, log in logs.items() if _OUTPUT_DIR_RE.search(p) and log.kept]
    if not outputs:
        return
    builds = [e for e in events if e.kind is EventKind.COMMAND and e.command and not e.failed
              and any(_BUILDS_RE.match(" ".join(words(part))) for part in split_commands(e.command))]
    for _, log in outputs:
        last = max(e.round for e in log.kept)
        later = next((b for b in builds if b.round > last), None)
        if later is not None:
            line = " ".join((later.command or "").split())
            cd = leading_cd(line)  # `cd repo && pnpm build`: the build, not where it ran
            log.rebuilt = f"`{cut_at_word(cd[1] if cd else line, 70)}` (r{later.round})"


def moved(e: Event, cwd: str | None) -> tuple[str, str] | None:
    """(source, destination), as display paths, when `e` is the write or the deletion of a `mv SRC DST`
    (or `git mv`), else None."""
    return None if e.moved is None else (display_path(e.moved[0], cwd), display_path(e.moved[1], cwd))


class _Renamed(Protocol):
    renamed_from: str | None

    def follows(self, earlier: Self) -> None:
        """Take `earlier`'s history (the file a move replaced) as what came before its own."""


R = TypeVar("R", bound=_Renamed)


def follow_move(e: Event, cwd: str | None, records: MutableMapping[str, R], carried: set[tuple[int, str]]) -> bool:
    """Whether `e` is one side of a move that `records` (per file, by display path) follow: the write of
    `mv a b` when `a` has a record (it goes to `b`, `renamed_from` its first name), or then the deletion
    of `a` (`carried` holds (round, source) of each record carried). A `b` the session changed before
    keeps that history first (`mv b.tmp b` replaced a file the session edited). One reading for the file
    logs and the modified-files list, so both name a moved file alike."""
    move = moved(e, cwd)
    if move is None:
        return False
    src, dst = move
    if e.kind is EventKind.DELETE:
        return (e.round, src) in carried
    if src not in records or src == dst:
        return False
    record = records.pop(src)
    if not _in_place(src, dst):
        record.renamed_from = record.renamed_from or src
    if dst in records:
        record.follows(records[dst])
    records[dst] = record
    carried.add((e.round, src))
    return True


def _in_place(src: str, dst: str) -> bool:
    """`mv f.py.tmp f.py` (`.new`, `.temp`): the file rewritten through a copy beside it, not renamed. A
    backup moved back (`mv f.py.bak f.py`, `.orig`, `~`) is a restore: its "renamed from" stays its trace."""
    return src.startswith(dst) and _REWRITE_COPY_RE.fullmatch(src[len(dst):]) is not None


_REWRITE_COPY_RE = re.compile(r"[._-](?:tmp|temp|new)\w*", re.IGNORECASE)


_REF_RE = re.compile(r"^(?:HEAD|@)(?:~(\d*)|(\^+))?$")


def _commits_undone(command: str, made: list[tuple[str, list[Edit]]]) -> list[Edit] | None:
    """The edits of the commits a command line undoes: `git revert <ref>…` (each commit named) and
    `git reset --hard <ref>` (every commit after it); None for any other line or an unknown ref."""
    for args in _git_calls(command):
        if len(args) < 3:
            continue
        verb, refs = args[1], [a for a in args[2:] if not a.startswith("-")]
        if verb == "revert":
            out = [ed for ref in refs for ed in _commit_edits(ref, made, whole=False)]
            return out or None
        if verb == "reset" and "--hard" in args and refs:
            return _commit_edits(refs[0], made, whole=True) or None
    return None


def _reset_to(command: str, made: list[tuple[str, list[Edit]]]) -> tuple[int, bool] | None:
    """For `git reset [--hard|--soft|--mixed] <ref>`: how many commits of `made` stay, and whether the
    reset was hard; None for any other line, a ref not found, or a reset of paths (`git reset HEAD f`)."""
    for args in _git_calls(command):
        if len(args) < 3 or args[1] != "reset" or "--" in args:
            continue
        refs = [a for a in args[2:] if not a.startswith("-")]
        at = _commit_index(refs[0], made) if len(refs) == 1 else None
        return (max(at, -1) + 1, "--hard" in args) if at is not None else None  # past the first seen: none stay
    return None


def _commit_index(ref: str, made: list[tuple[str, list[Edit]]]) -> int | None:
    """The index in `made` of the commit `ref` names (`HEAD~2`, `HEAD^`, a hash), None when unknown."""
    m = _REF_RE.match(ref)
    if m:
        back = int(m.group(1) or 1) if m.group(1) is not None else len(m.group(2) or "")
        return len(made) - 1 - back  # counted from the last
    return next((i for i in range(len(made) - 1, -1, -1)
                 if len(ref) >= 7 and (made[i][0].startswith(ref[:7]) or ref.startswith(made[i][0]))), None)


def _commit_edits(ref: str, made: list[tuple[str, list[Edit]]], *, whole: bool) -> list[Edit]:
    """`ref`'s commit edits (`whole`: those of every commit after `ref`, as a hard reset to it drops)."""
    at = _commit_index(ref, made)
    if at is None:
        return []
    if whole:
        return [ed for _, eds in made[max(0, at + 1):] for ed in eds]
    return list(made[at][1]) if 0 <= at < len(made) else []


def creates(e: Event) -> bool:
    """An edit that fills a file from nothing (aider's SEARCH/REPLACE with an empty SEARCH)."""
    first = e.hunks[0] if e.hunks else None
    return bool(first and first.source and not first.source[0].strip() and first.source[1].strip())


RESTORES = "restores the text before r"  # how an edit that put an earlier one's text back is said


def _restores(log: FileLog, edit: Edit) -> None:
    """An edit whose old/new texts are an earlier kept edit's new/old: it puts the earlier text back,
    so neither is part of the file's final state."""
    pair = next((h.source for h in edit.event.hunks if h.source), None)
    if not pair or not (pair[0].strip() and pair[1].strip()):
        return
    for earlier in reversed(log.edits):
        if earlier.undone is not None:
            continue
        before = next((h.source for h in earlier.event.hunks if h.source), None)
        if before and before[0].strip() == pair[1].strip() and before[1].strip() == pair[0].strip():
            earlier.undone = f"put back by the edit of r{edit.event.round}"
            edit.undone = f"{RESTORES}{earlier.event.round}"
            return


def _added_again(edits: list[Edit], users_edits: Sequence[int]) -> None:
    """Each edit of a file that adds again most lines an earlier kept edit of it added, after the user's own
    edits of it were committed (`users_edits`: their rounds) and no edit of the session removed those lines:
    the user's edits had taken them out (aider: the user rewrote the function in their editor, the agent's next
    edit re-applied its own version, then `/undo` took that back; the record listed the first edit's lines as
    standing: reader review 59, high). Not for whole-file writes: each one adds all the lines again. Each
    edit's lines are read once (a file edited a thousand times is not read a million times over)."""
    added = [set() if ed.event.whole else {ln.strip() for h in ed.event.hunks if not h.fragment for ln in h.added
                                           if _telling(ln)} for ed in edits]
    removed = [{ln.strip() for h in ed.event.hunks for ln in h.removed} for ed in edits]
    for k, edit in enumerate(edits):
        again = added[k]
        if len(again) < ADDED_AGAIN_LINES:
            continue
        removed_since: set[str] = set()
        for i in range(k - 1, -1, -1):
            earlier, lines = edits[i], added[i]
            if earlier.undone is None and len(lines) >= ADDED_AGAIN_LINES \
                    and len(lines & again) >= ADDED_AGAIN_SHARE * len(lines) and not lines & removed_since:
                # the latest commit of the user's between them: aider commits the user's edits just before it
                # applies the agent's, in that round
                by = next((r for r in reversed(users_edits) if earlier.event.round <= r <= edit.event.round), None)
                if by is not None:
                    earlier.undone = f"its lines taken out by the user's own edits (committed r{by})"
                break
            removed_since |= removed[i]


ADDED_AGAIN_LINES = 3  # lines of an edit, each saying something, that an edit adding them again must share
ADDED_AGAIN_SHARE = 0.6  # of the earlier edit's lines


def _telling(line: str) -> bool:
    """A line that says something of its own: not a brace, a blank or a bare `}` of a block."""
    return len(re.sub(r"[\s{}()\[\];,]", "", line)) >= 8


def _undo_how(e: Event) -> str:
    """How an undo threw a commit's edits away, with the commit's own words for what they did: the
    edit's lines alone seldom say it (`Collect items before yielding unique ones`)."""
    said = commit_words(e.text or "")
    return f"undone by /undo of “{said}” (r{e.round})" if said else f"undone by /undo (r{e.round})"


def commit_words(message: str, limit: int = 80) -> str:
    """A commit message as it says what changed: without its conventional-commit type (`refactor: `
    says little), cut at `limit`."""
    said = re.sub(r"^\w+(?:\([^)]*\))?!?:\s*", "", message.strip()).replace("`", "'")
    return cut_at_word(said, limit)


def _git_words(command: str) -> str:
    """The git command of a line, as short as it reads (`git checkout -- m.py`)."""
    m = re.search(r"\bgit\s+[^;&|\n]{0,60}", command)
    return (m.group(0).strip() if m else command.strip()[:60]).replace("`", "'")
