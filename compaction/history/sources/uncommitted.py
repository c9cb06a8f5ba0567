"""Edits the session left uncommitted: in a session that commits, the files changed after its last
commit. Why: "what remains" at the end of a session that committed its work along the way is first
of all the work since the last commit; a list of commits and a list of modified files leave the reader
to compare their rounds, and a successor that pushes believes it pushes everything.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from compaction import shell
from compaction.events import Event, EventKind, is_follow_up_request
from compaction.git_output import GitFileChange, git_file_changes, git_runs, untracked_folders
from compaction.history import project_root
from compaction.history.facts import Fact, display_path
from compaction.history.sections import Section
from compaction.history.sources.completed import HASH_CHARS
from compaction.history.sources.filelog import scratch_files
from compaction.history.sources.final_diff import final_echo
from compaction.history.sources.registry import FactContext, fact_source

SHOWN = 4  # files named; the rest counted
SCORE = 74
_STASH_RE = re.compile(r"^\s*git\s+stash(?:\s+(push|save|pop|apply)\b|\s*(?:$|;|&&)|\s+-)")


@fact_source(Section.CURRENT)
def uncommitted_facts(ctx: FactContext) -> list[Fact]:
    commits = [e for e in ctx.events if e.kind is EventKind.COMMIT and e.commit_hash]
    if commits:
        last = commits[-1]
        return _left_behind(ctx, commits) + committed_elsewhere(ctx) + \
            _uncommitted(ctx, last.message_index, last.round, last.commit_hash)
    quiet = next((e for e in reversed(ctx.events) if e.kind is EventKind.COMMAND and e.command and not e.failed
                  and "commit" in e.command and any(sub == "commit" for sub, _ in git_runs(e.command))), None)
    if quiet is not None:  # a commit whose output named no hash (`git commit -qam wip`): what came after it
        return _uncommitted(ctx, quiet.message_index, quiet.round, None)
    return _never_committed(ctx)


def _uncommitted(ctx: FactContext, at: int, committed: int, commit_hash: str | None) -> list[Fact]:
    """What is left to commit after the last commit (message `at`, round `committed`)."""
    status = _last_status(ctx, at)
    after = _changed_after(ctx, at)  # the session's own changes since its last commit
    if status is not None:  # what git then said is uncommitted (the session's doing or not), then the changes after it
        told = {display_path(c.path, ctx.cwd): status.round for c in status.changes
                if not c.untracked or display_path(c.path, ctx.cwd) in after}  # a scratch file is no work to commit
        # a new folder git lists whole (`?? src/feat/`): the session's files in it
        told.update({p: r for p, r in after.items() if any(p.startswith(d) for d in status.folders)})
        later = _changed_after(ctx, status.message_index)
        after = _changed_after(ctx, status.message_index, told)  # a stash or a checkout after it counts too
    if not after:
        if status is None or status.changes or status.folders:
            return []  # set aside or put back since: nothing to say of it
        return [Fact(Section.CURRENT, f"Nothing left to commit: `git status` printed a clean work tree (r{status.round})",
                     [status.round], score=SCORE, priority=1.5, pending=True, essential=True)]
    paths = list(after)
    # a command that changes files (an install, a formatter, `git apply`) since the last commit: what git lists
    # may be its doing, so no file is said to be someone else's
    own = None if _ran_changes(ctx, at) else _own_changes(ctx)
    # base names: the modified-files list has the paths; a file git lists that no call of the session
    # changed is someone else's work in progress (the user's, another agent's): not the session's to commit
    named = ", ".join(f"`{p.rsplit('/', 1)[-1]}`" + ("" if own is None or _among(p, own) else NOT_OURS) for p in paths[:SHOWN])
    named += f" +{len(paths) - SHOWN}" if len(paths) > SHOWN else ""
    ref = f"{commit_hash[:HASH_CHARS]}, " if commit_hash else ""
    files = f"{len(paths)} file{'s' if len(paths) > 1 else ''}"
    if status is None:
        head = f"Uncommitted: {files} changed after the last commit ({ref}r{committed})"
    else:
        head = f"Uncommitted: {files} (`git status`, r{status.round}{', and edits after it' if later else ''})"
    rounds = sorted(set(after.values()))
    c = f"(r{rounds[-1]})"
    # a successor reads "opened PR #22" as the work handed in (of the session's own files: another's are not its)
    mine = own is None or any(_among(p, own) for p in paths)
    note = f"; not in {o[0]} (opened r{o[1]}) until committed and pushed" if mine and (o := _review_opened(ctx)) else ""
    # must-keep, as whether the last change was tested: what a successor would push, or lose, next
    return [Fact(Section.CURRENT, f"{head}: {named}{note} {c}", rounds, score=SCORE, priority=1.5, pending=True,
                 essential=True, short=f"{head}{note} {c}")]


NOT_OURS = " (not changed by this session)"
# A review request a forge's tool opened: its URL in the output (`…/pull/22`, GitLab's `…/merge_requests/7`); one
# merged or closed since takes nothing more
_REVIEW_URL_RE = re.compile(r"https?://\S+/(pull|merge_requests)/(\d+)\b")
_REVIEW_CREATE_RE = re.compile(r"\b(?:gh\s+pr|glab\s+mr)\s+create\b")
_REVIEW_ENDED_RE = re.compile(r"\b(?:gh\s+pr|glab\s+mr)\s+(?:merge|close)\b")


def _review_opened(ctx: FactContext) -> tuple[str, int] | None:
    """("PR #22", round) of the last pull or merge request the session opened (`gh pr create`, `glab mr
    create`, its URL printed back) and did not merge or close since, else None: ai-playbook's role edits came
    after PR #22's commit and read as part of it."""
    found = None
    for e in ctx.events:
        if e.kind is not EventKind.COMMAND or not e.command or e.failed:
            continue
        if found is not None and _REVIEW_ENDED_RE.search(e.command):
            found = None  # merged or closed: pushing adds nothing to it
        elif _REVIEW_CREATE_RE.search(e.command) and (url := _printed_url(ctx, e)) is not None:
            found = (f"{'PR' if url.group(1) == 'pull' else 'MR'} #{url.group(2)}", e.round)
    return found


def _printed_url(ctx: FactContext, e: Event) -> re.Match[str] | None:
    """The review request's URL the command's output printed, if it did."""
    if not 0 < e.round <= len(ctx.transcript.rounds):
        return None
    rnd = ctx.transcript.rounds[e.round - 1]
    results = ctx.results_of(rnd)
    for msg in rnd.messages:
        for call in msg.tool_calls:
            res = results.get(id(call))
            if call.command == e.command and res is not None and (m := _REVIEW_URL_RE.search(res.content)):
                return m
    return None


def _never_committed(ctx: FactContext) -> list[Fact]:
    """A session the user steered (more than one request) that changed the project's files and made no
    commit (a quiet one is `uncommitted_facts`'s): its work is only in the work tree. Why: "what remains" at the end of such a session is
    first of all whether to commit; a list of modified files does not say that none was committed. Not
    said of a harness's run (one task, its diff handed in by the harness)."""
    requests = [e for e in ctx.events if e.kind is EventKind.REQUEST and e.text.strip() and is_follow_up_request(e.text)]
    if len(requests) < 2 or final_echo(ctx) is not None:
        return []
    # no sign of a git work tree: nothing is "uncommitted" in a folder git may not track, but that the
    # session made no commit is still so (a successor that reads the changes alone believes them committed);
    # a git command that ran, even one that failed (a commit refused), is a sign of git
    tracked = bool(ctx.transcript.meta.get("git_branch") or any(
        e.kind is EventKind.COMMAND and e.command and "git" in e.command and git_runs(e.command) for e in ctx.events))
    status = _last_status(ctx, -1)
    clean = status is not None and not status.changes and not status.folders
    since = status.message_index if clean and status is not None else -1  # git said the work tree was clean then
    scratch = set(scratch_files(ctx))
    after = {p: r for p, r in _changed_after(ctx, since).items() if not p.startswith("~") and p not in scratch}
    if not after:
        return []
    # the files by their count (the modified-files list names them): a line that costs little beside the rest
    n = len(after)
    files = f"{n} changed file{'s' if n > 1 else ''}"
    text = f"Not committed: no commit in this session ({files})" if tracked else \
        f"No commit made in this session ({files}; no git command ran)"
    return [Fact(Section.CURRENT, text, [max(after.values())], score=SCORE - 4, priority=1.5, pending=True)]


def _left_behind(ctx: FactContext, commits: list) -> list[Fact]:
    """Commits a push or a tag does not hold: those after the last push of a branch (the remote lacks
    them), and those after the last tag the session made and kept (the tagged release lacks them). Why:
    a successor that reads "tagged v0.3.0 and pushed" believes the release holds the work; later fixes
    are not in it."""
    pushes: list[tuple[int, int]] = []  # (message, round) of each push of a branch the remote took
    tags: dict[str, tuple[int, int]] = {}  # tag name -> (message, round) of its making, while it stands
    for rnd in ctx.transcript.rounds:
        results = None
        for msg in rnd.messages:
            for call in msg.tool_calls:
                command = call.command or ""
                if "git" not in command or ("push" not in command and "tag" not in command):
                    continue
                results = ctx.results_of(rnd) if results is None else results
                res = results.get(id(call))
                if res is None or res.is_error or res.exit_code not in (None, 0) \
                        or _PUSH_REFUSED_RE.search(res.content or ""):
                    continue  # refused (or never seen back): no push, no tag
                for sub, args in git_runs(command):
                    if sub == "push" and _pushes_branch(args, tags):
                        pushes.append((msg.index, rnd.number))
                    elif sub == "tag" and (deleted := _tag_deleted(args)):
                        for name in deleted:
                            tags.pop(name, None)
                    elif sub == "tag" and (name := _tag_made(args)):
                        tags.pop(name, None)  # made again (`-f`): where it stands now
                        tags[name] = (msg.index, rnd.number)
    facts: list[Fact] = []
    if pushes:
        at, pushed = pushes[-1]
        later = [c for c in commits if c.message_index > at]
        if later:
            n = f"{len(later)} commit{'s' if len(later) > 1 else ''}"
            # the commits by their rounds (the completed actions name them): a line that costs little beside the rest
            facts.append(Fact(Section.CURRENT, f"Not pushed: {n} after the last push (r{pushed})",
                              [*(c.round for c in later)], score=SCORE, priority=1.5, pending=True))
    if tags:
        name, (at, tagged) = list(tags.items())[-1]
        later = [c for c in commits if c.message_index > at]
        if later:
            facts.append(Fact(Section.CURRENT, f"Tag `{name}` (r{tagged}) predates the later commits {_hashes(later)}: "
                              "they are not in it", [tagged, later[-1].round], score=SCORE - 2, priority=1.5,
                              pending=True))
    return facts


def committed_elsewhere(ctx: FactContext) -> list[Fact]:
    """`_committed_elsewhere`, made once per compaction (the open choices ask too)."""
    return ctx.shared(("committed_elsewhere",), lambda: _committed_elsewhere(ctx))


def _committed_elsewhere(ctx: FactContext) -> list[Fact]:
    """Commits a `git log` of the current branch after the session's last commit lists above it, when no
    call of the session since could have made one (a quiet `git commit -q`, a merge, a pull, a rebase,
    a cherry-pick): the user (or another agent) committed meanwhile, often the session's own later
    work. Why: pi's session ended with its work committed by someone else as 3424550, and the document
    still offered "commit what we have?" as open. The fact's rounds: the log that showed it, then the
    first log that listed the newest of those commits."""
    commits = [e for e in ctx.events if e.kind is EventKind.COMMIT and e.commit_hash]
    if not commits:
        return []
    own = {c.commit_hash[:7] for c in commits}
    last = commits[-1]
    found: tuple[int, list[tuple[str, str]]] | None = None  # the latest such log: its round, the newer commits
    first_seen: dict[str, int] = {}  # a hash -> the round of the first log after the last commit that listed it
    for rnd in ctx.transcript.rounds[last.round - 1:]:
        results = None
        for msg in rnd.messages:
            if msg.index <= last.message_index:
                continue
            for call in msg.tool_calls:
                runs = git_runs(call.command) if call.command and "git" in call.command else []
                if any(sub in _COMMITTING for sub, _ in runs):
                    return []  # the session may have made what a later log shows
                logs = [args for sub, args in runs if sub == "log"]
                if not logs or any(not a.startswith("-") for a in logs[0]):
                    continue  # no log, or a log of another ref or range (`git log origin/main`)
                results = ctx.results_of(rnd) if results is None else results
                res = results.get(id(call))
                if res is None or res.is_error or not res.content:
                    continue
                listed = _log_commits(res.content)
                for h, _ in listed:
                    first_seen.setdefault(h, rnd.number)
                at = next((i for i, (h, _) in enumerate(listed) if h[:7] in own), None)
                if at is not None:
                    found = (rnd.number, listed[:at])
    if found is None or not found[1]:
        return []  # no log after the last commit that lists it: nothing says which are newer
    at, newer = found
    shown = "; ".join(f"{h[:HASH_CHARS]} “{subject[:160]}”" for h, subject in newer[:2])
    more = f" (+{len(newer) - 2})" if len(newer) > 2 else ""
    return [Fact(Section.CURRENT, f"Committed outside the session (`git log`, r{at}): {shown}{more}, after the "
                 f"session's last commit {last.commit_hash[:HASH_CHARS]}", sorted({at, first_seen[newer[0][0]]}),
                 score=SCORE, priority=1.5, pending=True)]


_HEX = frozenset("0123456789abcdef")
_COMMITTING = frozenset({"commit", "merge", "pull", "rebase", "cherry-pick", "am", "revert"})
_ONELINE_RE = re.compile(r"^[*|\\/ ]*([0-9a-f]{7,40})\b(?: \([^)\n]*\))? (.*)$")  # `--oneline`, with `--graph`
_FULL_RE = re.compile(r"^[*|\\/ ]*commit ([0-9a-f]{7,40})\b")  # the full format: the subject on a later, indented line


def _log_commits(output: str) -> list[tuple[str, str]]:
    """(hash, subject) of each commit a `git log` printed, newest first, in its one-line or full
    format; a patch it printed (`-p`) is not read."""
    out: list[tuple[str, str]] = []
    pending: str | None = None  # a full entry's hash, its subject to come
    in_patch = False  # inside a commit's patch (`-p`, `--stat`): its lines are no commits
    for line in output.splitlines()[:400]:
        if line.startswith("diff --git"):
            pending, in_patch = None, True
            continue
        if m := _FULL_RE.match(line):
            pending, in_patch = m.group(1), False
            continue
        if in_patch and not (line[:1] in _HEX and _ONELINE_RE.match(line)):
            continue  # a patch's lines open with a marker (` `, `+`, `-`, `@@`, `index`); a one-line entry with its hash
        in_patch = False
        if pending is not None:
            if line.startswith("    ") and line.strip():
                out.append((pending, line.strip()))
                pending = None
            continue
        if (m := _ONELINE_RE.match(line)) and not line.startswith((" ", "\t", "+", "-")):
            out.append((m.group(1), m.group(2).strip()))
        if len(out) >= 40:
            break
    return out


# What git prints of a push the remote turned down (exit 0 when piped through `tail`)
_PUSH_REFUSED_RE = re.compile(r"\[rejected\]|\[remote rejected\]|error: failed to push|^fatal: ", re.MULTILINE)


def _hashes(commits: list) -> str:
    shown = ", ".join(f"`{c.commit_hash[:HASH_CHARS]}`" for c in commits[:SHOWN])
    return shown + (f" +{len(commits) - SHOWN}" if len(commits) > SHOWN else "")


def _pushes_branch(args: list[str], tags: dict[str, tuple[int, int]]) -> bool:
    """A push that sends a branch's commits: not a dry run, not a deletion (`-d`, `:old`), not of tags
    alone (`--tags` with no branch named, or refspecs that are all tags the session made)."""
    args, _ = shell.unredirected(args)  # `2>&1`, `> log`: where its output goes is no ref
    if {"--delete", "-d", "--dry-run", "-n"} & set(args):
        return False
    refs = [a for a in args if not a.startswith("-")][1:]  # after the remote
    if refs and refs[0] == "tag":  # `git push origin tag v1.1`
        return False
    if any(r.startswith(":") for r in refs):
        return False
    if not refs:
        return "--tags" not in args  # `git push` alone pushes the branch; `git push --tags` only tags
    return not all(r in tags or r.startswith("refs/tags/") for r in refs)


def _tag_deleted(args: list[str]) -> list[str]:
    """The tags a `git tag -d a b` deletes ([] for any other `git tag`)."""
    if "-d" not in args and "--delete" not in args:
        return []
    return [a for a in args if not a.startswith("-")]


_TAG_LISTING = frozenset({"-d", "--delete", "-l", "--list", "-v", "--verify", "--contains", "--no-contains",
                          "--points-at", "--merged", "--no-merged", "-n"})


def _tag_made(args: list[str]) -> str | None:
    """The name a `git tag …` run creates (`git tag v1`, `git tag -a v1 -m "…"`), or None for one that
    lists, verifies or deletes tags."""
    if _TAG_LISTING & set(args):
        return None
    valued = {"-m", "--message", "-F", "--file", "-u", "--local-user", "--cleanup"}
    i = 0
    while i < len(args):
        a = args[i]
        if a in valued or (a.startswith("-") and not a.startswith("--") and a[-1:] in "mFu" and len(a) > 2):
            i += 2  # its value follows (`-m "msg"`, and `-am "msg"`: short flags run together, the last one valued)
            continue
        if not a.startswith("-"):
            return a if _plain_name(a) else None
        i += 1
    return None


def _plain_name(word: str) -> bool:
    """A tag name as typed: no redirection or shell syntax."""
    return bool(word) and not any(c in word for c in "<>|;&$`(){}")


def _own_changes(ctx: FactContext) -> set[str]:
    """The files the session's own calls changed (git's reports of changes excluded)."""
    return {display_path(e.path, ctx.cwd) for e in ctx.events if e.path and not e.git_output and not e.failed
            and e.kind in (EventKind.EDIT, EventKind.WRITE, EventKind.DELETE, EventKind.MOVE)}


def _ran_changes(ctx: FactContext, since: int) -> bool:
    """Whether a shell command that changes files (not git's own bookkeeping) ran after message `since`."""
    return any(e.kind is EventKind.COMMAND and e.state_changing and e.message_index > since and e.command
               and not e.command.lstrip().startswith("git ") for e in ctx.events)


def _among(path: str, own: set[str]) -> bool:
    """Whether a path git printed (relative to the repository) is one the session changed (its spelling)."""
    return any(p == path or p.endswith("/" + path) or path.endswith("/" + p) for p in own)


# A file in a hidden folder of a home directory (`/Users/me/.claude/plans/x.md`, `~/.config/…`): an agent's or
# a tool's own settings, in no project's work tree, whether or not the session's folder is known
_HOME_SETTINGS_RE = re.compile(r"^(?:~|/Users/[^/]+|/home/[^/]+|/root|[A-Za-z]:[\\/]Users[\\/][^\\/]+)[\\/]\.")


def _changed_after(ctx: FactContext, index: int, start: dict[str, int] | None = None) -> dict[str, int]:
    """The files the session changed after message `index` and did not put back or stash (path → round),
    beginning with `start` (what a status said was uncommitted then)."""
    after: dict[str, int] = dict(start or {})
    stashed: dict[str, int] = {}
    for e in ctx.events:
        if e.message_index <= index:
            continue
        stash = _stash(e.command) if e.kind is EventKind.COMMAND and e.command else None
        if stash in ("pop", "apply"):
            after.update(stashed)  # back from the stash: uncommitted again
            stashed.clear()
        elif stash is not None:
            stashed.update(after)  # set aside: nothing is left to commit until it is popped
            after.clear()
        elif e.kind is EventKind.REVERT and e.path:
            after.pop(display_path(e.path, ctx.cwd), None)  # back to the committed text
        elif e.kind in (EventKind.EDIT, EventKind.WRITE, EventKind.DELETE) and e.path and not e.failed \
                and not e.git_output:
            shown = display_path(e.path, ctx.cwd)
            if ctx.cwd and shown.startswith(("/", "~")) or _HOME_SETTINGS_RE.match(shown):
                continue  # outside the project (a scratch file in /tmp, the agent's plan in ~/.claude/plans)
            after[shown] = e.round
    return after


@dataclass(frozen=True, slots=True)
class _Status:
    """The work tree as the last `git status` after the last commit printed it."""

    message_index: int
    round: int
    changes: tuple[GitFileChange, ...]
    folders: tuple[str, ...] = ()  # new folders it lists whole (`src/feat/`)


def _last_status(ctx: FactContext, after_index: int) -> _Status | None:
    """The last `git status` the session ran after message `after_index`, with what it reported: what
    git says is uncommitted outranks what the session's own edits suggest (a commit the user made
    outside the session, a file a tool changed). Untracked files are kept apart: a scratch file is
    not work left to commit."""
    found = None
    for rnd in ctx.transcript.rounds:
        if rnd.messages and rnd.messages[-1].index <= after_index:
            continue
        results = None
        for msg in rnd.messages:
            if msg.index <= after_index:
                continue
            for call in msg.tool_calls:
                command = call.command or ""
                if "status" not in command or not _whole_status(command, ctx.cwd):
                    continue
                results = results if results is not None else ctx.results_of(rnd)
                res = results.get(id(call))
                if res is None or not res.content or res.is_error:
                    continue
                reported = git_file_changes(command, res.content)
                clean = "nothing to commit" in res.content or "working tree clean" in res.content
                if reported or clean:
                    found = _Status(msg.index, rnd.number, tuple(reported), untracked_folders(res.content))
    return found


def _whole_status(command: str, cwd: str | None) -> bool:
    """A `git status` of the whole work tree of this project: not piped (`| head -4` shows a part), not
    limited to a path, not of another repository (`git -C ../lib status`, `cd /tmp/upstream && git status`)."""
    if "|" in shell.blank_quotes(command) or "git -C" in command:
        return False
    cd = shell.leading_cd(command)
    where = cd[0].replace("\\", "/").rstrip("/") if cd else ""
    if where.startswith(".."):
        return False  # a sibling checkout
    if where.startswith(("/", "~")) and cwd and not project_root.on_path(where, cwd):
        return False  # another repository
    runs = [shell.unredirected(args)[0] for sub, args in git_runs(command) if sub == "status"]  # `2>&1`: not a path
    return bool(runs) and all(a.startswith("-") for args in runs for a in args)


def _stash(command: str) -> str | None:
    """What a `git stash` command line does ("" for a plain stash, "pop", "apply", "push"…), else None."""
    cd = shell.leading_cd(command)
    m = _STASH_RE.match(cd[1] if cd else command)
    return (m.group(1) or "") if m else None
