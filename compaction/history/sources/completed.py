"""Completed key actions: state-changing commands, test runs (with their counts) and commits; a
re-run command is one line with each distinct outcome and its round. A state-changing command that
succeeded says its closing summary line when it prints one ("2 files changed, 393 insertions(+)",
"Successfully installed …"): what was done, with what result."""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

from compaction.edits import same_file
from compaction.errors.classify import USER_REJECTED_SENTENCE
from compaction.events import Event, EventKind, shell_writes
from compaction.git_output import git_runs
from compaction.history import overlap, project_root
from compaction.history.condense import cut_at_word
from compaction.history.facts import Fact, cite, display_path, first_line
from compaction.history.sections import Section
from compaction.history.sources import changes
from compaction.history.sources.checks import build_outcome, builds
from compaction.history.sources.current import NOTES_RE
from compaction.history.sources.failing import Failing, failing_of, failing_said
from compaction.history.sources.filelog import listed_files, logs_of, scratch_files
from compaction.history.sources.findings import summary_line
from compaction.history.sources.printed import printed_gist
from compaction.history.sources.registry import FactContext, fact_source
from compaction.shell import (
    code_line,
    discarded,
    past_prefixes,
    scripts_run,
    split_commands,
    unbroken,
    unredirected,
    words,
)

MAX_RUN = 6  # commits on one line
HASH_CHARS = 7  # git's own short hash
COMMAND_CHARS = 100  # a long command's first characters, when the change records tell the rest


@dataclass(slots=True)
class _Runs:
    """One command's runs (by `_identity`: the same work, whatever its prefixes), while they are folded."""

    fact: Fact
    command: str
    count: int = 1
    # (round, what it gave, the tests it failed by name): a run failing other tests gave another result
    outcomes: list[tuple[int, str, Failing]] = field(default_factory=list)
    event: Event | None = None  # the first run's
    again: int | None = None  # the last run that gave the last outcome again, when a later run did


@fact_source(Section.COMPLETED)
def completed_facts(ctx: FactContext) -> list[Fact]:
    code = ctx.preset.code
    facts: list[Fact] = []
    folded: OrderedDict[str, _Runs] = OrderedDict()
    outputs: dict[int, dict[str, str]] = {}  # round -> command -> output, paired once per round asked
    commits: list[Event] = []
    for e in ctx.events:
        if e.kind is EventKind.COMMIT:
            commits.append(e)
        if e.kind is not EventKind.COMMAND or not e.command or e.search:
            continue
        is_test = e.test
        if not (e.state_changing or is_test) or _refused(ctx, e, outputs):
            continue  # a command the user turned down never ran: the error memory tells the refusal
        command = project_root.without_root_cd(e.command, ctx.cwd)  # the header names the root
        key = project_root.without_root_cd(first_line(command), ctx.cwd)  # a line after clearing up may cd too
        outcome = ""
        if is_test:
            summary = e.test_summary
            outcome = f" → {summary}" if summary else (f" → exit {e.exit_code}" if e.exit_code not in (None,) else "")
        elif e.exit_code not in (None, 0):
            outcome = f" → exit {e.exit_code}"
        elif e.state_changing and not e.failed:
            line = _summary_of(ctx, e, outputs)
            outcome = f" → {line}" if line else ""
            if own := _own_build_replaced(_output_of(ctx, e, outputs)):
                outcome += f" (it uninstalled the checkout's own build `{own}`)"
        # a command with more lines than its first is not the same run as its first line alone
        ident = _identity(project_root.without_root_cd(code_line(command), ctx.cwd))
        ident += " …" if key.endswith(" …") else ""
        failing: Failing = failing_of(_output_of(ctx, e, outputs), command) if is_test and e.test_summary and code \
            else ((), ())
        if ident in folded:
            runs = folded[ident]
            runs.fact.rounds.append(e.round)
            runs.count += 1
            if outcome and (not runs.outcomes or runs.outcomes[-1][1:] != (outcome, failing)):
                runs.outcomes.append((e.round, outcome, failing))
                runs.again = None
            elif outcome:
                runs.again = e.round
            continue
        score = 60 if e.state_changing else 45
        if is_test and e.test_summary:
            score = 65
        folded[ident] = _Runs(Fact(Section.COMPLETED, key, [e.round], score=score, test=bool(is_test)), command,
                            outcomes=[(e.round, outcome, failing)] if outcome else [], event=e)
    missed: dict[tuple[int, str | None], list[int]] = {}  # (round, command) -> [substitutions missed, made]
    missed_where: dict[tuple[int, str | None], list[str]] = {}  # … and the lines they addressed
    for e in ctx.events:
        if e.missed:
            missed[(e.round, e.command)] = [0, 0]
    for e in ctx.events:
        if missed and e.via_shell and e.kind in _CHANGES and (counts := missed.get((e.round, e.command))):
            counts[0] += e.missed
            counts[1] += e.missed + sum(1 for h in e.hunks if h.fragment)
            missed_where.setdefault((e.round, e.command), []).extend(e.missed_where)
    said = _said_by_changes(ctx)
    told = _told_by_commits(folded, commits)
    probe_note, thrown_note = _probe_note(_probes(ctx.events), ctx.cwd), _thrown_note(ctx)

    counted = {e.round for e in ctx.events if e.kind is EventKind.COMMAND and e.test and e.test_summary}

    def without(r: int) -> str:  # what a check of round r ran with or without, that the final code does not hold
        return probe_note(r) or (thrown_note(r) if r in counted else "")  # (a run that counted tests)
    scratch = {display_path(p, ctx.cwd) for p in scratch_files(ctx)} if code else set()
    listed = listed_files(ctx)  # the file commands they tell are no line of their own
    folders = {p.rsplit("/", i)[0] for p, gone in listed.items() if not gone for i in range(1, p.count("/") + 1)}
    # (round, command, what it printed, what its last later run printed): scratch files written
    scratch_written: list[tuple[int, str, str, str]] = []
    undone = _undone_by_reverts(ctx)
    reverted: list[tuple[tuple[int, str], str, Fact]] = []  # (the undo, the line without it, the fact)
    singles: list[Fact] = []  # state-changing commands run once: those of one round share a line
    for ident, runs in folded.items():
        if ident in told:
            continue
        f = runs.fact
        if scratch and runs.count == 1 and not runs.outcomes and (paths := _writes_only(runs.command, scratch, ctx.cwd)):
            ran = scripts_run(runs.command)  # written and run by the same line: its output is the script's
            run = runs.event if ran else None
            later = next((found for p in paths if (found := _runs_of(ctx, p, f.rounds[0], runs.event))), [])
            if not ran and later:  # run by a later line: the first that runs one of these files, by its path
                run = later.pop(0)
            output = _output_of(ctx, run, outputs) if run is not None else ""
            printed = printed_gist(output)
            if printed and _ERROR_LINE_RE.search(printed):  # an error a project file raised (sympy's numbers.py)
                printed += _raised_in(output, paths, ctx.cwd)
            # The last run's output too, when it differs: a reproduction run again after the fix says whether
            # it worked ("13234.9 arcsec" at r7, "4.76e-09 arcsec" at r30)
            # (a run of this script alone: a line running four prints the last one's output)
            alone = [e for e in later if len(scripts_run(e.command or "")) == 1]
            last = printed_gist(_output_of(ctx, alone[-1], outputs)) if alone else ""
            again = f" … r{alone[-1].round}: {last}" if last and last != printed else ""
            # its first line as written (what the command was), then what the script printed
            scratch_written.append((f.rounds[0], f"`{first_line(f.text, SCRATCH_COMMAND_CHARS)}`", printed, again))
            continue
        key = f.text  # as first run
        times = f" ×{runs.count}" if runs.count > 1 else ""
        if len(runs.outcomes) > 1 or runs.outcomes and runs.count > 1:
            # every distinct result of a re-run command, each with its round: a result one run showed is that
            # run's, not every run's (a run whose output the export cut gave none: bastion's first `cargo test`)
            outcome = _with_notes(runs.outcomes[-6:], without if f.test else None)
            if f.test and runs.again is not None:  # the same result at the end, the code maybe changed since
                outcome += f" (again r{runs.again}{without(runs.again)})"
        else:
            outcome = (runs.outcomes[0][1] + failing_said(runs.outcomes[0][2])
                       + (without(runs.outcomes[0][0]) if f.test else "")) if runs.outcomes else ""
        counts = missed.get((f.rounds[0], runs.command)) if runs.count == 1 else None
        if counts:  # `sed -i '1187s/a/b/'` whose line held no `a`
            outcome += NO_EFFECT if counts[0] >= counts[1] else f" → {counts[0]} of {counts[1]}{SOME_NO_EFFECT}"
            where = missed_where.get((f.rounds[0], runs.command), [])
            if where and counts[0] < counts[1]:  # which ones: the change a successor would believe made
                outcome = outcome[:-1] + ": " + "; ".join(where[:MISSED_NAMED]) + \
                    (f"; +{len(where) - MISSED_NAMED}" if len(where) > MISSED_NAMED else "") + ")"
        back = undone(runs.command, f.rounds[-1])  # what it changed was put back since: no part of the work
        undone_note = f" → undone by {back[1]}" if back is not None else ""
        if back is not None:
            f.score = UNDONE_SCORE
        chain = _chain(key, runs.command)
        shown, more = chain if chain else (key, "")
        if len(shown) > COMMAND_CHARS and not f.test:  # its tail the change records of its rounds already tell
            held = " ".join(said.get(r, "") for r in set(f.rounds))
            if held and not overlap.adds(shown[COMMAND_CHARS:], held):
                shown = first_line(shown, COMMAND_CHARS)
        text = f"`{shown}`{more}{times}{outcome}" if code else f"Ran a {'test' if f.test else 'command'}{outcome}"
        f.text = f"{text}{undone_note} {cite(f.rounds)}"
        f.short = f"`{first_line(runs.command, 80)}` {cite(f.rounds[-1:])}" if code else None
        if back is not None:
            # not folded with its round's other singles: its note is its own; with others the same undo put back,
            # by its command's head
            reverted.append((back, f"`{first_line(shown, UNDONE_COMMAND_CHARS)}`{more}{times}" if code else text, f))
            continue
        if code and runs.count == 1 and not f.test and not runs.outcomes:
            if _told_by_file_list(project_root.without_root_cd(runs.command, ctx.cwd), listed, folders, ctx.cwd):
                continue
            singles.append(f)
        else:
            facts.append(f)
    facts.extend(_same_round(singles))
    if scratch_written:  # one line, not one per script: with what each printed
        head = "Scratch files written, removed later: "
        text = "; ".join(f"{c} (r{r}){f' → {out}' if out else ''}{again}" for r, c, out, again in scratch_written)
        short = "; ".join(f"{c} (r{r})" for r, c, _, _ in scratch_written)
        rounds = sorted({scratch_written[0][0], scratch_written[-1][0]})
        facts.append(Fact(Section.COMPLETED, head + text, rounds, score=45, short=None if short == text else head + short))
    # told with the revert that put them back, one line per revert (a command is what a successor may run
    # again: it is kept, as every state-changing command is, and said to have come to nothing)
    facts.extend(_by_undo(reverted))
    facts.extend(_commit_runs(commits, [min(f.rounds) for f in facts], said, told))
    facts.sort(key=lambda f: min(f.rounds))
    return facts


_ERROR_LINE_RE = re.compile(r"\b[A-Z]\w*(?:Error|Exception)\b")  # what a run printed is an error
_TRACEBACK_FILE_RE = re.compile(r'^\s*File "([^"]+)", line (\d+)', re.M)


def _raised_in(output: str, scripts: list[str], cwd: str | None) -> str:
    """" (in `pkg/mod.py:3225`)" when a traceback's last frame is a file other than the scratch scripts: the
    error the run printed is that file's (an edit broke it), not the script's own; else ""."""
    if "Traceback" not in output and "File \"" not in output:
        return ""
    frames = _TRACEBACK_FILE_RE.findall(output[-6000:])
    if not frames:
        return ""
    path, line = frames[-1]
    shown = display_path(path, cwd).replace("\\", "/")
    names = {p.replace("\\", "/").rsplit("/", 1)[-1] for p in scripts}
    # the project's own file: not the script, not the interpreter's library (wherever it is installed), and
    # within the project's root when that is known (an absolute path left after `display_path` is outside it)
    outside = shown.startswith("/") or re.match(r"^[A-Za-z]:/", shown) is not None
    if shown.rsplit("/", 1)[-1] in names or shown.startswith("<") or _LIBRARY_RE.search(shown) or (cwd and outside):
        return ""
    return f" (in `{shown}:{line}`)"


_LIBRARY_RE = re.compile(r"(?i)/(?:site-packages|dist-packages|lib/python\d|lib/pypy)|/Lib/|\.pyenv/|conda|"
                         r"Python\.framework|^/usr/|^/opt/")


_FILE_MAKERS = frozenset({"mkdir", "touch", "rm"})


def _told_by_file_list(command: str, listed: dict[str, bool], folders: set[str], cwd: str | None) -> bool:
    """Whether the command only made or removed what the modified-files list says: `rm f` of a file its line
    says deleted, `touch f` of one it lists as there, `mkdir -p d` of a folder a listed file is in (`mkdir -p
    dist/dags; touch dist/dags/a.js` beside "`dist/dags/a.js`: created"): a line of its own only costs room.
    Paths compared whole (`listed`: path → said deleted; `folders`: those the files still there are in); a
    `cd` elsewhere, a glob, or a path the list does not say so keeps the command."""
    parts = split_commands(command)
    if not parts or not listed:
        return False
    for part in parts:
        said = past_prefixes(words(part))
        if not said or said[0] not in _FILE_MAKERS:
            return False
        operands = [w for w in said[1:] if not w.startswith("-")]
        if not operands:
            return False
        for w in operands:
            path = display_path(w, cwd).replace("\\", "/").removeprefix("./").rstrip("/")
            if not (path in folders if said[0] == "mkdir" else listed.get(path) is (said[0] == "rm")):
                return False
    return True


def _by_undo(reverted: list[tuple[tuple[int, str], str, Fact]]) -> list[Fact]:
    """The commands one revert or one deletion put back, on one line with it ("`sed -i '1068i print(…)'` ×2;
    `sed -i '1073i print(…)'` → undone by the deletion of its lines at r89 (r29, r46, r49)"): the debug prints
    of a long session and their cleanup, told once, not one line each."""
    groups: dict[tuple[int, str], list[tuple[str, Fact]]] = {}
    for back, text, f in reverted:
        groups.setdefault(back, []).append((text, f))
    out: list[Fact] = []
    for (_, how), members in groups.items():
        if len(members) == 1:
            out.append(members[0][1])
            continue
        rounds = sorted({r for _, f in members for r in f.rounds})
        how = how.replace("its lines", "their lines")
        listed = "; ".join(t for t, _ in members[:UNDONE_SHOWN])
        listed += f"; +{len(members) - UNDONE_SHOWN} more" if len(members) > UNDONE_SHOWN else ""
        out.append(Fact(Section.COMPLETED, f"{listed} → undone by {how} {cite(rounds)}", rounds, score=UNDONE_SCORE,
                        short=f"{len(members)} commands → undone by {how} {cite(rounds)}"))
    return out


def _probes(events: list[Event]) -> list[tuple[int, int, str]]:
    """(taken out, put back, file): lines the session had added to a file, removed by a change that added
    nothing, then added again all together by one later change: its change taken out to see what the
    checks say without it (a baseline), not a step of the work."""
    added_before: dict[str, set[str]] = {}  # what the session added to each file (by its first spelling) so far
    spelling: dict[str, str] = {}  # each path as spelled, to the first spelling of its file (absolute or relative)
    open_removals: list[tuple[int, str, set[str]]] = []
    windows: list[tuple[int, int, str]] = []
    for e in events:
        if e.kind not in _CHANGES or not e.path or not e.hunks:
            continue
        key = spelling.get(e.path)
        if key is None:
            key = spelling[e.path] = next((k for k in added_before if same_file(k, e.path)), e.path)
        added = {ln.strip() for h in e.hunks for ln in h.added if len(ln.strip()) >= PROBE_LINE_CHARS}
        for item in list(open_removals):
            start, path, gone = item
            if e.round > start and gone <= added and same_file(path, e.path):
                windows.append((start, e.round, path))
                open_removals.remove(item)
        own = added_before.setdefault(key, set())
        if not any(h.added for h in e.hunks):  # a pure removal
            gone = {ln.strip() for h in e.hunks for ln in (*h.removed, h.deletes_matching or "")
                    if len(ln.strip()) >= PROBE_LINE_CHARS} & own
            if gone:
                open_removals.append((e.round, e.path, gone))
                del open_removals[:-MAX_OPEN_PROBES]
        own |= added
    return windows


def _probe_note(windows: list[tuple[int, int, str]], cwd: str | None) -> Callable[[int], str]:
    """What a check run in round `r` ran without: the session's change a probe had taken out then."""
    def note(r: int) -> str:
        hit = next(((s, b, p) for s, b, p in windows if s < r < b), None)
        return "" if hit is None else \
            f" (without the session's change to `{display_path(hit[2], cwd)}`: taken out r{hit[0]}, put back r{hit[1]})"
    return note


def _with_notes(outcomes: list[tuple[int, str, Failing]], note: Callable[[int], str] | None) -> str:
    """Each outcome with its round, and the tests it failed by name unless the last run that named some failed
    the same; what the runs ran with (`note`) said once, after the last of the runs in a row it holds for:
    "→ 8 failed (r27) → 9 failed (r31) (r27, r31: with the r18 change …)"."""
    notes = [note(r) if note is not None else "" for r, _, _ in outcomes]
    out = ""
    before: Failing = ((), ())
    for i, (r, o, failing) in enumerate(outcomes):
        out += f"{o}{failing_said(failing) if failing != before else ''} (r{r})"
        before = failing if any(failing) else before
        said = notes[i]
        if not said or i + 1 < len(notes) and notes[i + 1] == said:
            continue  # said after the last run it holds for
        first = i
        while first > 0 and notes[first - 1] == said:
            first -= 1
        same = [f"r{x}" for x, _, _ in outcomes[first:i + 1]]
        out += said if len(same) == 1 else f" ({', '.join(same)}: {said.removeprefix(' (')}"
    return out


def _thrown_note(ctx: FactContext) -> Callable[[int], str]:
    """What a check run in round `r` ran with: a change of the session's code thrown away later (reverted by
    a checkout, undone), the latest such in effect: its result is of code the work no longer holds ("9 failed
    (r31)" under the r18 change `git checkout` took back at r34). Not a notes file's change (a README's edit
    changes no test's result; a `requirements.txt` may), nor one a commit kept before the revert."""
    commits = sorted(e.round for e in ctx.events if e.kind is EventKind.COMMIT)
    windows: list[tuple[int, int, str]] = []
    for path, log in logs_of(ctx).items():
        if NOTES_RE.search(path):
            continue
        for ed in log.edits:
            back = _ROUND_CITED_RE.search(ed.undone or "")
            start = ed.event.round
            if back is not None and not _between(commits, start, int(back.group(1))):
                windows.append((start, int(back.group(1)), path))
    windows.sort()
    starts = [w[0] for w in windows]

    def note(r: int) -> str:
        k = bisect_left(starts, r) - 1  # the latest change made before round r, back to one still in effect
        for s, b, p in windows[max(0, k - _WINDOWS_LOOKED + 1):k + 1][::-1]:
            if r < b:
                return f" (with the r{s} change to `{p}`, reverted r{b})"
        return ""
    return note


def _between(rounds: list[int], lo: int, hi: int) -> bool:
    """Whether a sorted list holds a round from `lo` up to before `hi`."""
    k = bisect_left(rounds, lo)
    return k < len(rounds) and rounds[k] < hi


_WINDOWS_LOOKED = 50  # changes before a run looked back through for one still in effect: bounded work
_ROUND_CITED_RE = re.compile(r"\(r(\d+)\)\s*$")  # how an edit was thrown away ends with the round it was: "(r34)"
PROBE_LINE_CHARS = 12  # a line this long is the session's own, not a brace or a blank
MAX_OPEN_PROBES = 20  # removals waiting to be put back: a session of a thousand deletions checks the latest few
UNDONE_SCORE = 40  # the commands whose changes a revert put back: below the work's own
UNDONE_COMMAND_CHARS = 70  # of each command one undo put back, on their shared line
UNDONE_SHOWN = 8  # of the commands one undo put back, the first ones named (each is what a successor may rerun)
SCRATCH_COMMAND_CHARS = 80
# pip uninstalling a build of a git checkout (`pytest-5.1.2.dev12+g955e54221`: a version with the checkout's
# commit, the repository's own, installed editable; not a nightly wheel's `2.5.0.dev20240801`)
_OWN_BUILD_RE = re.compile(r"^\s*Uninstalling ([\w.-]+-\d[\w.]*?\+g[0-9a-f]{6,}[\w.+]*):", re.MULTILINE)
# A script that changes files itself: Python's `open(p, 'w')`, `write_text`, `shutil.move`; node's `writeFileSync`;
# a shell script's `sed -i` (stdout and stderr writes are printing, not writing)
_WRITES_FILES_RE = re.compile(r"""open\([^)\n]*['"][wax]b?\+?['"]|\.write_text\(|\.writelines\(|"""
                              r"(?<!stdout)(?<!stderr)\.write\(|\bsed -i\b|shutil\.(?:copy|move)|os\.(?:replace|rename)\("
                              r"|writeFileSync|fs\.writeFile")


def _own_build_replaced(output: str) -> str:
    """The checkout's own build an install uninstalled and did not put back (`pip install -e .` reinstalls
    one): the code under test is no longer what runs. Why: mini-pytest's `pip install pytest-xdist`
    read as a success; it had swapped the project's pytest for 8.4.2."""
    m = _OWN_BUILD_RE.search(output)
    if m is None:
        return ""
    name = re.escape(m.group(1).rsplit("-", 1)[0])
    back = re.search(rf"Successfully installed [^\n]*\b{name}-\S*\+g", output, re.IGNORECASE)
    return "" if back else m.group(1)


def _writes_only(command: str, scratch: set[str], cwd: str | None) -> list[str]:
    """The scratch files a command line writes when writing them (and running them: `cat <<'EOF' > check.py
    … EOF; python3 check.py`) is all it does: their paths; [] for a line that runs or changes anything
    else, or whose script writes files itself (`update_offsetbox.py` rewrote the source: the fix, not a
    probe). Why: nine lines of `cat <<'EOF' > x.py …` told nothing a successor uses; one line names
    them with what each printed, and the room goes to the rest."""
    written = shell_writes(command)
    if not written or any(kind is not EventKind.WRITE or display_path(path, cwd) not in scratch for kind, path in written):
        return []
    if _WRITES_FILES_RE.search(command):
        return []
    paths = list(dict.fromkeys(display_path(path, cwd) for _, path in written))
    names = {p.rsplit("/", 1)[-1] for p in paths}
    for part in split_commands(command):
        said = words(part)[:1]
        if said and said[0] not in _WRITERS and not (scripts_run(part) and scripts_run(part) <= names):
            return []
    return paths


def _runs_of(ctx: FactContext, path: str, after: int, written_by: Event | None) -> list[Event]:
    """The later commands that run this version of the script at `path` (`python3 check_lazy.py`, `python
    ./check.py`; not `python tests/check.py` nor one after `cd tests`, other files of that name), in order, up
    to the round it is written again or removed (a rewrite's output is not this version's)."""
    name = path.rsplit("/", 1)[-1]
    runs, changed = ctx.shared(("script_runs",), lambda: _script_runs(ctx))
    ends = [r for r in changed.get(path, ()) if r > after]
    end = min(ends) if ends else None
    found: list[Event] = []
    for e in runs.get(name, ()):
        if e.round < after or e is written_by or end is not None and e.round >= end:
            continue
        command = project_root.without_root_cd(e.command or "", ctx.cwd)
        if command.lstrip().startswith(("cd ", "pushd ")):
            continue  # run from another folder: another file of that name
        if any(display_path(w.removeprefix("./"), ctx.cwd) == path for w in words(command) if w.endswith(name)):
            found.append(e)
    return found


def _script_runs(ctx: FactContext) -> tuple[dict[str, list[Event]], dict[str, list[int]]]:
    """The commands that run each script, by its file name, and the rounds each path was written whole or
    removed: made once per compaction, for every scratch script the completed actions name (hundreds of
    scripts over a long session would otherwise scan every event each)."""
    runs: dict[str, list[Event]] = {}
    changed: dict[str, list[int]] = {}
    for e in ctx.events:
        if e.kind is EventKind.COMMAND and e.command:
            for name in {script.rsplit("/", 1)[-1] for script in scripts_run(e.command)}:
                runs.setdefault(name, []).append(e)  # once per command, however many spellings it runs
        elif e.kind in (EventKind.WRITE, EventKind.DELETE) and e.path and not e.failed:
            changed.setdefault(display_path(e.path, ctx.cwd), []).append(e.round)
    return runs, changed


NO_EFFECT = " → changed nothing (no such text on the line it addressed)"
SOME_NO_EFFECT = " substitutions changed nothing (no such text on their lines)"
MISSED_NAMED = 3
_CHANGES = frozenset({EventKind.WRITE, EventKind.EDIT, EventKind.DELETE})
_REFUSED_RE = re.compile(r"\W{0,3}" + USER_REJECTED_SENTENCE)
_TRIMMERS = frozenset({"head", "tail"})  # what only shortens a command's output for the reader
_WRITERS = frozenset({"cat", "echo", "printf", "tee"})  # what writes a file by its redirection


def _undone_by_reverts(ctx: FactContext) -> Callable[[str, int], tuple[int, str] | None]:
    """`(command, round) -> (round, how)`: the revert (`git checkout -- f`, `git restore f`, `/undo`) that put
    back every file the command's run of that round changed, or the deletion by pattern (`sed -i '/DEBUG:/d'`)
    of every line it added; None when neither. Why: a list of completed edits a checkout wiped reads as the
    patch; a successor re-applies them, or trusts them."""
    reverts: dict[str, list[tuple[int, int, bool]]] = {}  # path -> (message, round, from HEAD: staging undone too)
    # path -> (message, round, the patterns whose lines it deleted): `sed -i '/DEBUG:/d'` takes out the prints
    deletions: dict[str, list[tuple[int, int, list[str]]]] = {}
    for e in ctx.events:
        if e.kind is EventKind.REVERT and e.path:
            from_head = bool(e.command) and bool(_FROM_COMMIT_RE.search(e.command or ""))
            reverts.setdefault(display_path(e.path, ctx.cwd), []).append((e.message_index, e.round, from_head))
        elif e.kind in _CHANGES and e.path and not e.failed and (
                patterns := [h.deletes_matching for h in e.hunks if h.deletes_matching]):
            deletions.setdefault(display_path(e.path, ctx.cwd), []).append((e.message_index, e.round, patterns))
    if not reverts and not deletions:
        return lambda command, rnd: None
    # A commit or a `git add` of the file keeps what came before it: a checkout then puts back the committed (or
    # staged) text, which holds those changes.
    kept = _checkpoints(ctx)
    changed: dict[tuple[str, int], list[Event]] = {}
    for e in ctx.events:
        if e.kind in _CHANGES and e.command and e.path and not e.failed and not e.git_output:
            changed.setdefault((e.command, e.round), []).append(e)

    def undone(command: str, rnd: int) -> tuple[int, str] | None:
        runs = changed.get((command, rnd))
        if not runs:
            return None
        backs = []
        for e in runs:
            path = display_path(e.path or "", ctx.cwd)
            back = next((r for i, r, head in reverts.get(path, ()) if i > e.message_index
                         and not any(e.message_index < k < i and (committed or not head) and _covers(paths, path)
                                     for k, committed, paths in kept)), None)
            if back is not None:
                backs.append((back, f"the revert of r{back}"))
                continue
            # every line it added deleted again by a pattern (a debug print and its cleanup)
            added = [ln for h in e.hunks for ln in h.added if ln.strip()]
            back = next((r for i, r, patterns in deletions.get(path, ()) if i > e.message_index and added
                         and all(any(p in ln for p in patterns) for ln in added)), None)
            if back is None:
                return None
            backs.append((back, f"the deletion of its lines at r{back}"))
        return min(backs)

    return undone


# A revert from a commit (`git checkout HEAD -- f`, `git restore --source=HEAD f`, `git reset --hard`): what was
# only staged is undone too
_FROM_COMMIT_RE = re.compile(r"\bHEAD\b|--source|\breset\s+--hard\b")
_ALL_FILES = frozenset({"-A", "--all", ".", "-u", "--update"})


def _checkpoints(ctx: FactContext) -> list[tuple[int, bool, frozenset[str] | None]]:
    """(message, a commit (else staged only), the files it keeps: None for all) of each `git commit`, `git add`
    and `git stash` (its push) the session ran: a change before one is kept by it."""
    out: list[tuple[int, bool, frozenset[str] | None]] = []
    for e in ctx.events:
        if e.kind is EventKind.COMMIT:
            out.append((e.message_index, True, None))
            continue
        if e.kind is not EventKind.COMMAND or not e.command or "git" not in e.command or e.failed:
            continue
        for sub, args in git_runs(e.command):
            if sub == "commit":
                out.append((e.message_index, True, None))
            elif sub == "stash" and (not args or args[0] in ("push", "save") or args[0].startswith("-")):
                out.append((e.message_index, True, None))
            elif sub == "add" and not {"-n", "--dry-run"} & set(args):
                named = [a for a in args if not a.startswith("-")]
                every = bool(_ALL_FILES & set(args)) or not named
                out.append((e.message_index, False, None if every else frozenset(
                    display_path(a, ctx.cwd) for a in named)))
    return out


def _covers(paths: frozenset[str] | None, path: str) -> bool:
    """Whether a checkpoint that keeps `paths` (None: every file) keeps `path` (a folder named keeps its files)."""
    return paths is None or any(p == path or path.endswith("/" + p) or p.endswith("/" + path)
                                or path.startswith(p.rstrip("/") + "/") for p in paths)


def _identity(line: str) -> str:
    """What makes two runs of a command one: its words past `X=1`, `nohup`, `sudo` prefixes, without
    output redirections, a trailing `&` or a `| tail -20` (`nohup vllm serve m > a.log 2>&1 &` and `vllm
    serve m` are one run, said ×2); where a command writes a file by its redirection (`echo x > a.txt`), or
    a script inline, the target is the work, and so is what it reads in (`sqlite3 app.db < 002.sql`)."""
    if "<<" in line:  # a script written inline: the whole line is the run
        return line
    parts = []
    for part in split_commands(unbroken(line)):
        run = past_prefixes(words(part))
        outputs: list[str] = []
        if run and run[0] in _WRITERS:  # `echo x > a.txt`: the target is the work
            said = run
        else:
            said, redirections = unredirected(run)
            said += [r for r in redirections if r.startswith("<")]  # what goes in is the work
            outputs = [r for r in redirections if not r.startswith("<")]
        said = [w for w in said if w != "&"]
        redirected = not all(map(discarded, outputs))
        if said and not (said[0] in _TRIMMERS and not redirected):  # `| head -5 > out.txt` writes a file
            parts.append("\0".join(said))
    return "\n".join(parts) or line


def _chain(key: str, command: str) -> tuple[str, str] | None:
    """A line running one in-place editor several times, each run after the last succeeded (`sed -i
    '251s/…/' a.py && sed -i '273s/…/' a.py && …`): its opening as run, cut at COMMAND_CHARS, and how
    many runs (" (18 runs of `sed -i`)"): the others differ in the lines they edit, which the change
    records tell, and each costs as much as the first. None for any other line (`python -m pip … &&
    python -m pytest …` is two kinds of work; `a || b` runs b only when a failed). `key`: the line as
    shown; `command`: the whole command."""
    if "&&" not in key:
        return None
    line = unbroken(code_line(command))
    parts = split_commands(line)
    if len(parts) < 2 or len(key) <= COMMAND_CHARS:
        return None  # short enough told whole
    if len(line.split("&&")) != len(parts):
        return None  # joined by more than `&&` (`;`, `||`, a pipe) or an `&&` inside a quote: told whole
    editor = _IN_PLACE_RE.match(parts[0])
    if editor is None or not all(_IN_PLACE_RE.match(p) for p in parts[1:]):
        return None
    return first_line(key, COMMAND_CHARS), f" ({len(parts)} runs of `{editor.group(1)}`)"


_IN_PLACE_RE = re.compile(r"(sed -i|perl -pi)\b")  # an editor that changes a file where it is


def _same_round(singles: list[Fact]) -> list[Fact]:
    """Commands run once in the same round, with nothing to report, as one line (`mkdir -p d`;
    `touch d/a.js`): each keeps its words, the round is cited once."""
    out: list[Fact] = []
    for f in singles:
        prev = out[-1] if out else None
        if prev is not None and prev.rounds == f.rounds and prev.score == f.score:
            c = cite(f.rounds)
            prev.text = f"{prev.text.removesuffix(' ' + c)}; {f.text}"
            prev.short = None
        else:
            out.append(f)
    return out


_STAGING = frozenset({("git", "add"), ("git", "commit"), ("git", "stage")})
STAGED_SHOWN = 4  # files a commit's line names from the `git add` before it


def _told_by_commits(folded: OrderedDict[str, _Runs], commits: list[Event]) -> dict[str, tuple[int, str]]:
    """The command lines a commit's own line tells: run once, in a round with one commit, doing nothing
    but stage and commit (`git add a b && git commit -m "…"`, a `cd` before, a push after). Their key →
    their round and what the commit's line says of them instead (" of `a`, `b` → 2 files changed, 393
    insertions(+), then `git push`"): the message was told twice (`Commit e2aec0d “Initial commit…”` and
    `git commit -m "Initial commit…"`), the files it staged and its outcome once."""
    per_round: dict[int, int] = {}
    for e in commits:
        per_round[e.round] = per_round.get(e.round, 0) + 1
    out: dict[str, tuple[int, str]] = {}
    folding: dict[int, list[str]] = {}  # round -> the commit commands of that round
    for key, runs in folded.items():
        if runs.count != 1 or runs.fact.test or per_round.get(runs.fact.rounds[0]) != 1:
            continue
        if runs.outcomes and runs.outcomes[0][1].startswith(" → exit "):
            continue  # it failed somewhere (a push refused): told as run, not as the commit's outcome
        parts = [(part, past_prefixes(words(part))) for part in split_commands(runs.command)]
        programs = [(part, tuple(w[:2])) for part, w in parts if w and w[0] != "cd"]
        pushes = [part for part, p in programs if p == ("git", "push")]
        commits_only = all(p in _STAGING or part in pushes for part, p in programs)
        if ("git", "commit") in (p for _, p in programs) and commits_only:
            outcome = runs.outcomes[0][1] if runs.outcomes else ""
            staged = [w for _, said in parts if tuple(said[:2]) in (("git", "add"), ("git", "stage"))
                      for w in said[2:] if not w.startswith("-") and w != "."]
            files = (" of " + ", ".join(f"`{w}`" for w in staged[:STAGED_SHOWN])
                     + (f" (+{len(staged) - STAGED_SHOWN})" if len(staged) > STAGED_SHOWN else "")) if staged else ""
            out[key] = (runs.fact.rounds[0], files + outcome + "".join(f", then `{part}`" for part in pushes))
            folding.setdefault(runs.fact.rounds[0], []).append(key)
    for keys in folding.values():
        if len(keys) > 1:  # two commit commands, one commit: which made it is not known, both stay told
            for key in keys:
                del out[key]
    return out


def _commit_runs(commits: list[Event], others: list[int], said: dict[int, str],
                 told: dict[str, tuple[int, str]] | None = None) -> list[Fact]:
    """Commits one line per run: consecutive commits with no other completed action between them, at
    most MAX_RUN a line (a line is taken whole or not at all). A commit whose message the change
    records of its round already hold (`said`: their text by round) is its hash alone there. `told`:
    the commit commands the commits' lines tell (`_told_by_commits`: by identity, their round and what
    the line says of them)."""
    out: list[Fact] = []
    run: list[Event] = []
    by_round = {r: outcome for r, outcome in (told or {}).values()}

    def close() -> None:
        if not run:
            return
        parts = []
        for e in run:
            ref = (e.commit_hash or "")[:HASH_CHARS]
            held = said.get(e.round, "")
            own = " (the user's edits)" if e.path else ""  # aider committed the user's own change to e.path
            named = ref if held and ref and not overlap.adds(e.text, held) else f"{ref} “{e.text}”".strip()
            parts.append(named + own + by_round.get(e.round, ""))
        rounds = [e.round for e in run]
        label = "Commit" if len(run) == 1 else "Commits"
        joint = "; " if any(e.round in by_round for e in run) else ", "  # an outcome's own commas
        out.append(Fact(Section.COMPLETED, f"{label} {joint.join(parts)} {cite(rounds)}", rounds, score=70))
        run.clear()

    for e in commits:
        if run and (len(run) >= MAX_RUN or any(run[-1].round < r < e.round or r == e.round != run[-1].round
                                               for r in others)):
            close()
        run.append(e)
    close()
    return out


def _said_by_changes(ctx: FactContext) -> dict[int, str]:
    """The change records' words by round (lower-cased, with their paths): what a commit message of
    that round may already be told by (the records are made once per compaction, `changes.records`)."""
    out: dict[int, list[str]] = {}
    for path, fact in changes.records(ctx).items():
        for r in set(fact.rounds):
            out.setdefault(r, []).extend((path, fact.full_text or fact.text))
    return {r: " ".join(texts).lower() for r, texts in out.items()}


def _summary_of(ctx: FactContext, e: Event, outputs: dict[int, dict[str, str]]) -> str:
    """The closing summary line of the output of event `e`'s command (its round's calls paired with
    their results by the compaction's shared pairing, only for rounds with a state-changing command); a
    build's verdict when it printed no summary line."""
    output = _output_of(ctx, e, outputs)
    if not output:
        return ""
    # a build the actions list (it writes its output): its verdict ("✓ built in 7.35s"), as the checks say it
    return summary_line(output) or _pushed(output) or (build_outcome(output) if builds(e.command or "") else "")


def _pushed(output: str) -> str:
    """What a push updated (`main (f11a9bd..ec4b1d8), new tag v0.3.0`), then what the remote said; ""
    when it says neither. Why: the remote's banner alone (bastion's Dependabot count) does not say the
    commits and the tag reached the remote."""
    refs = []
    for m in _PUSHED_RE.finditer(output[:8000]):
        span, new, forced, dst = m.group(1), m.group(2), m.group(3), m.group(5)
        refs.append(f"new {new} {dst}" if new else f"{'forced ' if forced else ''}{dst} ({span or forced})")
    remote = remote_said(output)
    said = ", ".join(refs[:MAX_REFS]) + (f" (+{len(refs) - MAX_REFS})" if len(refs) > MAX_REFS else "")
    return "; ".join(p for p in (said, remote) if p)


# A push's ref update: `   f11a9bd..ec4b1d8  main -> main`, ` * [new tag]  v0.3.0 -> v0.3.0`, ` + a...b  x -> x (forced update)`
_PUSHED_RE = re.compile(r"^[ \t]*(?:([0-9a-f]{7,40}\.\.[0-9a-f]{7,40})|\* \[new (branch|tag)\]|\+ ([0-9a-f]{7,40}\.\.\.[0-9a-f]{7,40}))"
                        r"[ \t]+(\S+) -> (\S+)", re.M)
MAX_REFS = 3


def _refused(ctx: FactContext, e: Event, outputs: dict[int, dict[str, str]]) -> bool:
    """Whether the user turned the command down (it never ran): its output is the client's refusal."""
    return e.failed and _REFUSED_RE.match(_output_of(ctx, e, outputs)[:200].lstrip()) is not None


def _output_of(ctx: FactContext, e: Event, outputs: dict[int, dict[str, str]]) -> str:
    """What event `e`'s command printed (its round's calls paired with their results once, on first ask)."""
    transcript = ctx.transcript
    by_command = outputs.get(e.round)
    if by_command is None:
        by_command = outputs[e.round] = {}
        rnd = transcript.rounds[e.round - 1] if 0 < e.round <= len(transcript.rounds) else None
        if rnd is not None and rnd.number == e.round:
            results = ctx.results_of(rnd)
            for msg in rnd.messages:
                for call in msg.tool_calls:
                    res = results.get(id(call))
                    if call.command and res is not None and res.content:
                        by_command[call.command.strip()] = res.content
    return by_command.get((e.command or "").strip(), "")


REMOTE_CHARS = 160


def remote_said(output: str) -> str:
    """The first thing a git remote said in a push's or fetch's output (`remote: GitHub found 19
    vulnerabilities…`, `remote: Create a pull request for 'x' on GitHub by visiting: …`), clipped; "" when
    it said nothing. Why: the remote's words are the one thing a push tells that the commits do not
    (a security alert, a PR link, a hook that refused); the push's own lines say only which refs moved (`_pushed`)."""
    if "remote:" not in output:
        return ""
    said_lines = [said for line in output.splitlines()
                  if (said := line.strip()).startswith("remote:") and len(said := said[len("remote:"):].strip()) > 3]
    for k, said in enumerate(said_lines):
        if _GIT_PROGRESS_RE.match(said):  # git's own counting, not the remote's words
            continue
        if said.endswith(":") and k + 1 < len(said_lines):  # "… by visiting:" and the link on the next line
            said = f"{said} {said_lines[k + 1]}"
        return "remote: " + cut_at_word(said, REMOTE_CHARS)
    return ""


_GIT_PROGRESS_RE = re.compile(r"(?:Enumerating|Counting|Compressing|Resolving|Total|Writing)\b")
