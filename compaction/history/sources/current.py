"""Where the session ended: what the assistant was doing in its last messages, the calls it issued
last (and whether their results came back), and a user message still waiting for an answer — the
state a successor resumes from, kept even when the verbatim tail has no room."""

from __future__ import annotations

import re
from collections.abc import Set as AbstractSet

from compaction import shell
from compaction.edits import definitions
from compaction.events import Event, EventKind, is_follow_up_request, parse_test_summary, results_of_calls
from compaction.history.facts import WS_RE, Fact, display_path, first_line, is_test_path, names_a_test
from compaction.history.sections import Section
from compaction.history.sentences import THOUGHT_RE
from compaction.history.sources.checks import build_outcome, builds, own_file_names, runs_own_file
from compaction.history.sources.failing import failing_of, failing_said
from compaction.history.sources.filelog import creates, logs_of, scratch_files
from compaction.history.sources.final_diff import final_echo
from compaction.history.sources.findings import outcome, runs_script
from compaction.history.sources.printed import printed_gist
from compaction.history.sources.registry import FactContext, fact_source
from compaction.lexical import holds_word
from compaction.mdsafe import escape_path, inline_code
from compaction.model import Message, Role, Round, ToolResult
from compaction.shell import STATUS_LINE_RE, scripts_run
from compaction.transcripts.path_spelling import file_name, is_windows_path

_CHANGE = (EventKind.EDIT, EventKind.WRITE)
_SAID_CHARS = 360  # of the assistant's last words
_CALLS = 4  # last calls listed
_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+")


def _said(text: str, limit: int) -> str:
    """The text on one line, whole sentences from its start and its last one, within `limit`; a harness's
    label opening it (`THOUGHT:`) left out."""
    flat = WS_RE.sub(" ", " ".join(THOUGHT_RE.sub("", text).split()))
    if len(flat) <= limit:
        return flat
    sentences = _SENTENCE_RE.split(flat)
    last = sentences[-1][: limit // 2]
    out = ""
    for s in sentences[:-1]:
        if len(out) + len(s) + len(last) + 6 > limit:
            break
        out += s + " "
    return f"{out}… {last}" if out else f"{flat[: limit - len(last) - 3]}… {last}"


def without_own_calls(msg: Message) -> str:
    """The message's text without the fenced blocks that are its own calls' commands (mini-swe-agent's reply
    ends in the ```bash block its harness ran): the call is told as a call, its words are the rest."""
    commands = {" ".join(c.command.split()) for c in msg.tool_calls if c.command}
    if not commands or "```" not in msg.text:
        return msg.text
    rest = _FENCED_RE.sub(lambda m: "" if " ".join(m.group(1).split()) in commands else m.group(0), msg.text).strip()
    return rest or msg.text  # a reply that is only its command: that is what it said


_FENCED_RE = re.compile(r"^```[\w-]*\n(.*?)\n```[ \t]*$", re.M | re.S)
SUBMITTED_SAID_PRIORITY = 4.1  # just after the decisions (4)
_UNANSWERED_CALLS = 8  # a last round's calls none of which came back: named up to this many


# An error record's solution that an added argument ended ("rerun with `sandbox_permissions: require_escalated`")
_NEEDED_ARG_RE = re.compile(r"rerun with `([A-Za-z_][\w-]*): ([^`\n]{1,40})`(?! \(was)")
_REFUSALS = frozenset({"ERR_TOOL_SandboxDenied", "ERR_TOOL_PermissionDenied"})


def needed_arguments(records: list) -> dict[str, tuple[str, int]]:
    """The arguments a refused command needed (the key, its value and the round of the refusal): a
    sandbox's or a permission's refusal whose solution is the same command rerun with one argument
    added (codex's sandbox on Windows). Not a tool's other failures: a read retried with `limit: 200`
    says nothing of the calls after it."""
    out: dict[str, tuple[str, int]] = {}
    for rec in records:
        if rec.id in _REFUSALS and "the same command rerun with" in (rec.solution or "") \
                and (m := _NEEDED_ARG_RE.search(rec.solution or "")):
            out.setdefault(m.group(1), (m.group(2), rec.occurrences[0].round))
    return out


def _last_calls(rnd: Round, needed: dict[str, tuple[str, int]] | None = None, cwd: str | None = None,
                results: dict[int, ToolResult | None] | None = None) -> list[str]:
    """The round's calls with what came of each, _CALLS of them and how many more: when there are more, the
    ones that run a script first (codex's escalated `bash export-session.sh .` beside four reads), then the latest.
    `needed`: arguments refused calls needed (`needed_arguments`); a call with no result that lacks one says
    so (four reads sent without the escalation every call since r1 carried). Paths as the document names
    them elsewhere: relative to the project root `cwd`. `results`: the round's calls paired with their
    results (`FactContext.results_of`), when the caller has them."""
    results = results_of_calls(rnd.messages) if results is None else results
    # the harness answered the submission with the final diff (its echo is the harness's, no result)
    echoed = any(m.meta.get("final_patch_echo") for m in rnd.messages)
    out: list[tuple[bool, str]] = []  # (it runs a script, what and its outcome)
    missing: tuple[str, str, int] | None = None  # an argument calls with no result lack: said once, after them
    for msg in rnd.messages:
        for call in msg.tool_calls:
            what = f"`{first_line(call.command, 100)}`" if call.command else \
                f"{call.name} `{display_path(call.path, cwd)}`" if call.path else call.name
            res = results.get(id(call))
            if res is None and echoed:
                status = "submitted: the harness printed the final diff"
            elif res is None:
                status = "no result seen"
                lacks = [(k, v, r) for k, (v, r) in (needed or {}).items()
                         if call.command and str(call.arguments.get(k, "")) != v]  # commands, as the refused one
                if lacks:
                    missing = missing or lacks[0]
                    status += f"; no `{lacks[0][0]}`"
                elif call.command and (given := next(((k, v) for k, (v, _) in (needed or {}).items()), None)):
                    status += f"; with `{given[0]}: {given[1]}`"  # said, not left to be read from the others' lack
            elif res.exit_code is not None:
                status = f"exit {res.exit_code}"
            else:
                status = "error" if res.is_error else "done"
            out.append((bool(call.command and scripts_run(call.command)), f"{what} ({status})"))
    # what to do about it, said outright: the reader took "the refused call … needed" for a puzzle (review 67)
    note = [f"run those without it again with `{missing[0]}: {missing[1]}`: the refused call of r{missing[2]} "
            "needed it"] if missing else []
    if len(out) <= _CALLS or len(out) <= _UNANSWERED_CALLS and all("(no result seen" in said for _, said in out):
        return _shared_status([said for _, said in out]) + note  # calls nobody saw come back: all named
    keep = sorted(range(len(out)), key=lambda i: (not out[i][0], -i))[:_CALLS]
    return [out[i][1] for i in sorted(keep)] + [f"+{len(out) - _CALLS} more"] + note


def _shared_status(said: list[str]) -> list[str]:
    """Neighbouring calls that came to the same thing say it once, after the last of them: "`a`, `b`, `c`
    (no result seen; no `sandbox_permissions`)", not the note four times over."""
    out: list[tuple[list[str], str]] = []
    for line in said:
        what, _, status = line.rpartition(" (")
        if out and out[-1][1] == status:
            out[-1][0].append(what)
        else:
            out.append(([what], status))
    return [f"{', '.join(whats)} ({status}" for whats, status in out]


_PROSE_RE = re.compile(r"\.(?:md|mdc|mdx|markdown|txt|rst|adoc)$", re.IGNORECASE)  # Cursor's rules are `.mdc`
# not `.txt`: `requirements.txt`, `CMakeLists.txt` build; a licence or a changelog, whatever its extension
NOTES_RE = re.compile(r"\.(?:md|mdc|mdx|markdown|rst|adoc)$|(?:^|[/\\])(?:LICEN[CS]E|COPYING|NOTICE|AUTHORS|CHANGELOG)"
                       r"(?:\.(?:md|txt|rst))?$", re.IGNORECASE)
_FILE_KINDS = (EventKind.READ, EventKind.EDIT, EventKind.WRITE)


def _names(paths: list[str], limit: int = 3) -> str:
    """Each file by its name, or by as many of its last folders as tell it from the others (Django's
    `jobs/tests.py`, `resumes/tests.py`)."""
    shown = [_distinct_end(p, paths) for p in paths[:limit]]
    return ", ".join(f"`{p}`" for p in shown) + (f" +{len(paths) - limit}" if len(paths) > limit else "")


def _distinct_end(path: str, paths: list[str]) -> str:
    parts = path.split("/")
    for k in range(1, len(parts) + 1):
        end = "/".join(parts[-k:])
        if not any(q != path and (q == end or q.endswith("/" + end)) for q in paths):
            return end
    return path


_NAMES_PATH_RE = re.compile(r"(?<![\w.-])[\w.-]++/|\.\w{1,5}\b")  # a directory or a file named on the command line


def _covers(command: str, path: str) -> bool:
    """Did a test run take in the test file at `path`: it names the file (its stem), a folder the file
    is in, or no path at all (`cargo test`, `npm test`: the whole suite)? Why: "never ran" said of a
    file a whole-suite run did run is a false alarm a successor acts on (it reruns, or distrusts, them)."""
    cd = shell.leading_cd(command)
    line = (cd[1] if cd else command).split("|", 1)[0]
    stem = path.rsplit("/", 1)[-1].split(".", 1)[0]
    if stem and holds_word(line, stem, "-"):
        return True
    parts = path.split("/")[:-1]
    for i in range(len(parts)):  # a folder the file is in, named whole (`pytest tests/unit`, `go test ./pkg/...`)
        if re.search(rf"(?<![\w-]){re.escape('/'.join(parts[i:]))}/?(?:\.\.\.)?(?=\s|$)", line):
            return True
    named = line.split(" 2>", 1)[0].split(" >", 1)[0].replace("./...", " ")  # Go's whole suite names no path
    return not _NAMES_PATH_RE.search(named)


def _absolute(path: str) -> bool:
    """Whether a path as the document shows it is absolute: outside the project root, when one is known."""
    return path.startswith(("/", "~")) or is_windows_path(path)


def _verification(ctx: FactContext) -> Fact | None:
    """Whether the last change was checked: the test runs after the last edit (with their counts),
    or what ran instead (a reproduction script) and what the project offers that never ran (the
    test files the session read or wrote); whether a test came with the change; and whether the
    session ended by submitting (the harness printed the final diff). A successor's first question
    is what is still unverified, and an empty Next section must not read as "all checked"."""
    changes = [e for e in ctx.events if e.kind in _CHANGE and e.path]
    if not changes or all(_PROSE_RE.search(e.path or "") for e in changes):
        return None  # nothing to verify: no change, or prose only
    edits = [e for e in changes if not NOTES_RE.search(e.path or "")]  # notes need no check
    logs = logs_of(ctx)
    gone = {path for path, log in logs.items() if log.deleted}  # scratch files: no work to check
    # a file the session created outside the project (a probe written beside it: `/home/Repro.java` of
    # `/home/fastjson2`) is no work to check either: after the suite passed, compiling it read as "no test suite
    # run"; an existing file edited there (the frontend of a backend's session) is work
    probes = {path for path, log in logs.items()
              if ctx.cwd and _absolute(path) and log.kept and (log.kept[0].kind is EventKind.WRITE or creates(log.kept[0]))}
    work = [e for e in edits if (shown := display_path(e.path or "", ctx.cwd)) not in gone and shown not in probes]
    last_edit = max(e.round for e in (work or edits))
    # the edits after it are notes or scratch files: "the last edit" would read as the session's last one
    later_notes = any(e.round > last_edit and NOTES_RE.search(e.path or "") for e in changes)
    edit = "the last edit" if last_edit >= max(e.round for e in changes) else \
        "the last code edit" if later_notes else "the last edit of the work"
    runs = [e for e in ctx.events if e.kind is EventKind.COMMAND and e.test]
    tests = [e for e in runs if e.round >= last_edit]
    submitted = final_echo(ctx) is not None
    seen: dict[str, None] = {}
    for e in ctx.events:
        if e.kind in _FILE_KINDS and e.path and is_test_path(e.path):
            seen.setdefault(e.path, None)
    changed = {e.path for e in changes}
    written = [p for p in seen if p in changed]
    reported = reported_runs(ctx)  # the user ran the tests and pasted the result: a run too
    after = [r for r in reported if r[0] > last_edit]  # a request opens its round: before that round's edits
    said_ok = None if tests or after else _said_it_works(ctx, last_edit)
    verified = single = ""  # the runs after the last edit as told, and as their short form tells them
    if not tests and after:
        text = f"Checked by the user after {edit} (r{last_edit}): they reported {after[-1][1]} (r{after[-1][0]})"
        rounds = [after[-1][0]]
    elif said_ok is not None:  # the user tried it and said so: the check a successor would otherwise redo
        text = f"Checked by the user after {edit} (r{last_edit}), in their words: “{said_ok[1]}” (r{said_ok[0]}); " \
               "the agent ran no tests"
        rounds = [said_ok[0]]
    elif tests:
        t = tests[-1]
        # each test command run since, its latest outcome: a narrower run after the one that checked the
        # change (another module's suite) must not stand for it; a run of a reproduction the session deleted
        # checks no work (its files by their paths, not their names)
        checks = [e for e in tests if not (named := [m.group(0) for m in _RUN_FILE_RE.finditer(e.command or "")])
                  or not all(display_path(n, ctx.cwd) in gone for n in named)] or tests[-1:]
        latest = {first_line(e.command or "", 100): e for e in checks}
        shown = sorted(latest.items(), key=lambda kv: kv[1].round)[-MAX_VERIFIED:]  # in the order they last ran
        said, before = [], None
        for cmd, e in shown:
            failing = _still_failing(ctx, e)
            said.append(f"`{cmd}` → {_outcome(e)}{f' (r{e.round})' if len(shown) > 1 else ''}"
                        f"{failing if failing != before else ''}")  # the same tests failing again: named once
            before = failing
        verified = "; ".join(said)
        # the short form, for a tight budget: the last run alone (`failing`: its own), as the line said before
        # it told them all
        last_cmd, last = shown[-1]
        single = f"`{last_cmd}` → {_outcome(last)}{failing}" if len(shown) > 1 else verified
        text = f"Tests run after {edit} (r{last_edit}): {verified}"  # what they showed, not "verified": they may not cover it
        existing = [path for path, log in logs.items() if path not in gone and log.kept  # edited, not made here
                    and not (log.kept[0].kind is EventKind.WRITE or creates(log.kept[0]))]
        text += _untested(tests, existing)
        rounds = [t.round]
    else:
        own = own_file_names(ctx)
        checks = script_checks(ctx, last_edit, own)
        check = checks[-1] if checks else None
        if check:  # a script the agent ran is a check too, though not the test suite
            shown = checks[-MAX_VERIFIED:]
            verified = "; ".join(f"{said} (r{r})" if len(shown) > 1 else said for said, r in shown)
            single = check[0]
            text = f"Checked after {edit} (r{last_edit}) by running {verified}; no test suite run"
            rounds = [check[1]]
        else:
            text = f"No test run after {edit} (r{last_edit})"
            rounds = [last_edit]
        if runs:
            # with how it went: "before it" alone reads as unknown (bastion's "All 66 tests pass" at r23)
            went = " ".join(runs[-1].test_summary.split()) if runs[-1].test_summary else _outcome(runs[-1])
            # its counts cut, not the caveat that says they are not the whole run's (bastion: `tail -40` cut the
            # other test binaries' results: "ok 15 passed" of 66)
            caveat = _CAVEAT_RE.search(went)
            went = (f" → {first_line(went[:caveat.start()] if caveat else went, BEFORE_OUTCOME_CHARS)}"
                    f"{caveat.group() if caveat else ''}") if went != "ran" else ""
            text += f"; the last test run was before it (r{runs[-1].round}: `{first_line(runs[-1].command or '', 60)}`{went})"
        elif reported:
            text += f"; the last run the user reported was before it (r{reported[-1][0]}: {reported[-1][1]})"
        else:
            text += " in the whole session" if check else "; no tests run in the whole session"
            earlier = None if check else _script_check(ctx, 0, own)
            if earlier:  # the work was tried before the last edit: said, so it does not read as never tried
                text += f"; a program was last run at r{earlier[1]}: {earlier[0]}"
        ran = _scripts_ran(ctx)
        as_script = {p for p in seen if p.rsplit("/", 1)[-1] in ran}  # a test file run as a script (`python test_x.py`)
        never = [p for p in written if p not in as_script]
        if never and not reported:
            text += f"; test files written, never run: {_names(never)}"
        elif unrun := [p for p in seen if p not in as_script and names_a_test(p)
                       and not any(_covers(r.command or "", p) for r in runs)]:
            # a run the user reported may have covered them: its command is not known
            text += (f"; the agent never ran the project's tests it saw ({_names(unrun)}); the user's reported run "
                     "may have covered them" if reported else f"; the project's tests it saw never ran: {_names(unrun)}")
    if not written:
        text += "; no test added or changed"
    elif "; no test run named after" not in text:  # that clause already names the files no test covers
        text += _tests_written_for(written, [e for e in work if not e.failed])
    text += _probes_left(ctx, probes - gone)
    if submitted:
        scratch = {file_name(path) for path in scratch_files(ctx)}  # created by the session, then removed
        ran = {name for name in _scripts_ran(ctx) if not _users_name(ctx, name)}  # not a script the task asks for
        files = _submitted_files(ctx.transcript.messages[-3:], changed, scratch, ran)
        text += f"; then submitted (the harness printed the final diff{': ' + files if files else ''})"
    short = text.replace(verified, single, 1) if verified != single else None
    return Fact(Section.CURRENT, text, rounds, score=78, essential=True, pending=True, short=short)


_TEST_STEM_RE = re.compile(r"^(?:test_)?(.+?)(?:_test|\.test|\.spec|_spec|Test|Tests)?$")
_RUN_FILE_RE = re.compile(r"[\w./\\-]*\.(?:py|js|ts|tsx|jsx|go|rs|java|rb|kt|php)\b")
MAX_UNTESTED = 3


MAX_VERIFIED = 3  # test commands told after the last edit, the latest


BEFORE_OUTCOME_CHARS = 60  # of a test run's counts, told beside a later edit no test checked
_CAVEAT_RE = re.compile(r" \(the results of [^()]*\)$")  # `events.parse_test_summary`'s note of counts left out


def _outcome(run: Event) -> str:
    return first_line(run.test_summary, 120) if run.test_summary else (
        f"exit {run.exit_code}" if run.exit_code is not None else "failed" if run.failed else "ran")


def _untested(runs: list[Event], changed: list[str]) -> str:
    """"; no test run named after the changed `numbers.py`" when the runs after the last edit name their
    test files, one of them after a changed file (`test_basic.py` for `basic.py`: the session's own
    convention), and another changed file of code has none: its tests were never run. `changed`: the files
    the session edited and did not make (a script it wrote has no tests of the project). Nothing for a run
    of a folder or of the whole suite (its files are not named)."""
    ran = {m.group(0) for e in runs for m in _RUN_FILE_RE.finditer(e.command or "") if is_test_path(m.group(0))}
    stems = {m.group(1).lower() for p in ran if (m := _TEST_STEM_RE.match(file_name(p).rsplit(".", 1)[0]))}
    work = [p for p in changed if not is_test_path(p) and _RUN_FILE_RE.fullmatch(file_name(p))]
    covered = [p for p in work if file_name(p).rsplit(".", 1)[0].lower() in stems]
    missing = [p for p in work if p not in covered]
    if not covered or not missing:
        return ""
    return (f"; no test run named after the changed {_names(missing, MAX_UNTESTED)} "
            f"(they ran those of {_names(covered, MAX_UNTESTED)})")


def _tests_written_for(written: list[str], edits: list[Event]) -> str:
    """"; tests written for `iterables.union.ts` only, none for `iterables.intersection.ts`" when the test files
    the session wrote are named after some of the code files it changed (`iterables.union.unit.test.ts`: the
    session's own convention) and not after others it added definitions to: aider-monochromatic added union's
    tests, and its readers took the intersection functions for tested too. A file whose edits define nothing
    (a package's `__init__.py` re-export, a version bump in `setup.py`) asks for no test of its own."""
    stems = [m.group(1).lower() for p in written if (m := _TEST_STEM_RE.match(file_name(p).rsplit(".", 1)[0]))]

    def covered(path: str) -> bool:
        stem = file_name(path).rsplit(".", 1)[0].lower()
        return any(t == stem or t.startswith((stem + ".", stem + "_", stem + "-")) for t in stems)

    code = [p for p in dict.fromkeys(e.path or "" for e in edits)
            if not is_test_path(p) and _RUN_FILE_RE.fullmatch(file_name(p))]
    defines = {e.path for e in edits if any(definitions(h.added) for h in e.hunks)}
    done = [p for p in code if covered(p)]
    missing = [p for p in code if not covered(p) and p in defines]
    if not done or not missing:
        return ""
    return f"; tests written for {_names(done, MAX_UNTESTED)} only, none for {_names(missing, MAX_UNTESTED)}"


def _scripts_ran(ctx: FactContext) -> set[str]:
    """The names of the script files the session's commands ran (`scripts_run`), read once."""
    return ctx.shared(("current", "scripts_ran"), lambda: {
        name for e in ctx.events if e.kind is EventKind.COMMAND and e.command for name in scripts_run(e.command)})


def _users_name(ctx: FactContext, name: str) -> bool:
    """Whether one of the user's own messages names `name` (a script the task asks for), their texts read once."""
    asked = ctx.shared(("current", "users_texts"), lambda: [
        m.text for m in ctx.transcript.messages if m.role is Role.USER and not m.harness and m.text])
    return any(name in text for text in asked)


def _probes_left(ctx: FactContext, probes: set[str]) -> str:
    """"; written outside the project and run, not removed: `/home/Repro.java`": a program the session wrote
    beside the project and ran (fastjson2's probe beside `/home/fastjson2`), still there at the end: a loose end
    the successor may tidy. Not a file the user's requests name (a script they asked for there), nor one the
    session removed."""
    ran = _scripts_ran(ctx) if probes else set()
    left = sorted(p for p in probes if file_name(p) in ran)
    if left:
        left = [p for p in left if not _users_name(ctx, file_name(p))]
    if not left:
        return ""
    more = f" +{len(left) - 3}" if len(left) > 3 else ""
    return f"; written outside the project and run, not removed: {', '.join(f'`{p}`' for p in left[:3])}{more}"


def _still_failing(ctx: FactContext, run: Event) -> str:
    """"; failed: `a`, `b`; erroring: `c`" for the tests the run's output names as failed or erroring: what a
    successor reruns or judges, where the counts only say that something is still broken."""
    rnd = ctx.transcript.rounds[run.round - 1] if 0 < run.round <= len(ctx.transcript.rounds) else None
    if rnd is None or rnd.number != run.round:
        return ""
    results = ctx.results_of(rnd)
    for msg in rnd.messages:
        for call in msg.tool_calls:
            res = results.get(id(call))
            if call.command and call.command.strip() == (run.command or "").strip() and res is not None and res.content:
                return failing_said(failing_of(res.content))
    return ""


def _plain(path: str) -> str:
    """A path with forward slashes and without leading `./` (a dotfile keeps its dot: `.gitignore`)."""
    path = path.replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    return path


# A diff's file header, its paths bare or quoted as git quotes them (spaces, non-ASCII: `"b/docs/\303\251.md"`).
_DIFF_FILE_RE = re.compile(r'^diff --git (?:a/\S+|"a/[^"\n]+") (?:b/(\S+)|"b/([^"\n]+)")\n'
                           r"(new file mode|deleted file mode)?", re.MULTILINE)
MAX_SUBMITTED = 8  # files of the final diff named; the rest counted


def _submitted_files(messages: list[Message], changed: set[str | None], removed: AbstractSet[str] = frozenset(),
                     ran: AbstractSet[str] = frozenset()) -> str:
    """The files the final diff holds, as a successor must see them: a file the session created for
    itself (`reproduce.py`) or never edited (`setup.py`, changed by the environment) is in the patch too,
    and a test file edited against a "do not modify tests" rule is. New and deleted files are marked,
    and a changed file no edit of the session named; "" when the echo holds no git diff. `removed`: the
    names of the files the session created and removed again (its scratch files): a new file named like
    them (`reproduce_ne.py` beside a removed `reproduce_issue.py`) was most likely left in by mistake. `ran`: the
    names of the scripts the session ran (none the task asks for): a new file it wrote and ran is said so, a fact
    where the likeness of names is a guess."""
    echo = next((m for m in reversed(messages) if m.meta.get("final_patch_echo")), None)
    if echo is None:
        return ""
    text = echo.text + "".join(r.content for r in echo.tool_results)
    edited = {_plain(p) for p in changed if p}

    def ours(path: str) -> bool:
        return any(e == path or e.endswith("/" + path) for e in edited)

    named = []
    heads = list(_DIFF_FILE_RE.finditer(text))
    for k, m in enumerate(heads):
        path, mode = m.group(1) or m.group(2), m.group(3)
        mark = "new " if mode and mode.startswith("new") else "deleted " if mode else ""
        note = ""
        if not mark and not ours(path):
            swap = _small_swap(text[m.end():heads[k + 1].start() if k + 1 < len(heads) else len(text)])
            note = f" (no edit seen: {swap})" if swap else " (no edit seen)"
        if mark == "new " and ours(path) and file_name(path) in ran and not is_test_path(path):
            note = " (a script the session wrote and ran, not removed)"
        elif mark == "new " and (kin := _scratch_kin(path, removed)):
            note = f" (most likely a scratch file left in: named like the removed `{kin}`)"
        named.append(f"{mark}`{escape_path(path)}`{note}")
    more = f" +{len(named) - MAX_SUBMITTED} more" if len(named) > MAX_SUBMITTED else ""
    return ", ".join(named[:MAX_SUBMITTED]) + more


_SWAP_CHARS = 100  # of a line of a file's diff no edit made, shown whole


def _small_swap(section: str) -> str:
    """What a file's diff changes when it is one line for one (`"setuptools",` → `"setuptools==68.0.0",`), else
    "". Why: a file no edit of the session made (the environment's pin) reads like a rule broken ("DO NOT
    MODIFY: configuration files"); what its one change is says whose it is."""
    gone = [ln[1:].strip() for ln in section.splitlines() if ln.startswith("-") and not ln.startswith("---")]
    came = [ln[1:].strip() for ln in section.splitlines() if ln.startswith("+") and not ln.startswith("+++")]
    if len(gone) != 1 or len(came) != 1 or not gone[0] or not came[0] or max(len(gone[0]), len(came[0])) > _SWAP_CHARS:
        return ""
    return f"{inline_code(gone[0])} → {inline_code(came[0])}"


_TEST_WORDS = frozenset({"test", "tests", "spec", "specs"})  # a name's first word that a test the work adds shares


def _scratch_kin(path: str, removed: AbstractSet[str]) -> str | None:
    """A removed scratch file whose name opens with the same word and has the same extension as `path`'s
    (`reproduce_ne.py`, `reproduce_issue.py`), or None. Not by "test": a test the work adds shares it."""
    name = file_name(path)
    stem, _, ext = name.rpartition(".")
    word = re.split(r"[_.-]", stem, maxsplit=1)[0].lower()
    if not ext or len(word) < 3 or word in _TEST_WORDS:
        return None
    return next((r for r in sorted(removed) if r != name and r.endswith("." + ext)
                 and re.split(r"[_.-]", r, maxsplit=1)[0].lower() == word), None)


# A user's word that what was built works ("it works perfectly, even hosted ok …", "tests pass on my machine")
_WORKS_RE = re.compile(r"(?i)\b(?:it|that|this|everything|all|now) (?:works|worked|is working)\b|\bworks (?:now|fine|"
                       r"great|perfectly|well)\b|\bpass(?:es|ed) now\b|\bdeployed\b|\bhosted\b|"
                       r"\blooks (?:good|great|perfect)\b|\bis (?:live|fixed)\b")
_NOT_OK_RE = re.compile(r"(?i)\b(?:not|no longer|still|but|however|error|fails?|failed|broken|wrong|issue|bug|crash\w*|"
                        r"blank|empty|missing)\b|n't\b")
WORKS_CHARS = 160


def _said_it_works(ctx: FactContext, last_edit: int) -> tuple[int, str] | None:
    """(round, words) of the last short user message after the last edit that says what was built works,
    with no word of a failure: a check by hand, which the agent's own runs do not show."""
    found = None
    for rnd in ctx.transcript.rounds[last_edit:]:
        for m in rnd.messages:
            if m.role is not Role.USER or m.harness or not m.text:
                continue
            said = " ".join(m.text.split())
            if _NOT_OK_RE.search(said) or "```" in said:
                found = None  # a failure reported after it: the check by hand no longer holds
            elif len(said) <= 400 and not said.rstrip().endswith("?") and _WORKS_RE.search(said):
                found = (rnd.number, said if len(said) <= WORKS_CHARS else said[:WORKS_CHARS].rsplit(" ", 1)[0] + "…")
    return found


def reported_runs(ctx: FactContext) -> list[tuple[int, str]]:
    """(round, counts) of the test runs the user pasted (`Tests  1 failed | 38 passed (39)`)."""
    out = []
    for rnd in ctx.transcript.rounds:
        for m in rnd.messages:
            if m.role is Role.USER and not m.harness and m.text and (summary := parse_test_summary(m.text)):
                out.append((rnd.number, first_line(summary, 100)))
    return out


def _script_check(ctx: FactContext, last_edit: int, own: frozenset[str] = frozenset()) -> tuple[str, int] | None:
    """The last program or build the agent ran after its last edit, with its outcome line (`script_checks`)."""
    checks = script_checks(ctx, last_edit, own)
    return checks[-1] if checks else None


def script_checks(ctx: FactContext, last_edit: int, own: frozenset[str] = frozenset()) -> list[tuple[str, int]]:
    """The programs and builds the agent ran after its last edit, each with its latest outcome line (a build's
    verdict), in the order they last ran; with `own` (the session's files), a run of one of them also with the
    last line it printed when it had no outcome. Why all: scikit-learn's four checks after its last edit were
    told by the last alone, an edge-case probe ("A int16 · 0 -1"), not the run that said "SUCCESS"."""
    runs: dict[str, tuple[str, int]] = {}
    for rnd in ctx.transcript.rounds:
        if rnd.number < last_edit:
            continue
        results = ctx.results_of(rnd)
        for msg in rnd.messages:
            for call in msg.tool_calls:
                if call.command and (said := _check_said(call.command, results.get(id(call)), own)):
                    key = first_line(call.command, 100)
                    runs.pop(key, None)  # its latest run, in the order of last runs
                    runs[key] = (said, rnd.number)
    return list(runs.values())


def _check_said(command: str, res: ToolResult | None, own: frozenset[str]) -> str | None:
    """A build's or a program's run with its outcome (`script_checks`), else None: no check, or nothing said."""
    if builds(command) and not runs_script(command):
        failed = res is None or res.is_error or res.exit_code not in (None, 0)
        built = build_outcome(res.content) if not failed and res is not None and res.content else ""
        said = (f"`{first_line(command, 100)}` → {built}", 0) if built else outcome(command, res)
        if said is None and res is not None and not failed:  # a check that passed quietly (`npm run check`)
            last = _last_line(res.content, own=True) if res.exit_code is None else ""
            shown = "exit 0" if res.exit_code == 0 else last or "no exit status recorded"
            said = (f"`{first_line(command, 100)}` → {shown}", 0)
        return said[0] if said else None
    if runs_script(command) or runs_own_file(command, own):
        said = outcome(command, res)
        if said:
            return said[0]
        if res is not None and runs_own_file(command, own) and (last := _printed(res.content)):
            return f"`{first_line(command, 100)}` → {last}"
    return None


# Not the run's own words: an export's framing of the call (`Status: **completed**`, a fence, its JSON), and the
# `> script` lines npm prints before each script it runs, a SpecStory export's `Tool use: **x**` heading, Cline's "Command executed."
_NOT_SAID = ("Status:", "```", '"', "> ", "Result:", "Tool use:", "<exited", "Wall time:", "Exit code:", "(no output)", "---",
             "Command executed.")
_BRACKETS = frozenset({"{", "}", "[", "]", "{}", "[]", "},", "],"})  # a JSON wrapper's lines


def _printed(output: str | None) -> str:
    """What a run of the session's own script printed: a short output whole (a table's rows: its last
    row alone, "3  1", says nothing), else its last line."""
    if not output or len(output) > _WHOLE_CHARS:
        return _last_line(output)  # a long output: a slice of it would open mid-line
    said = [ln for ln in output.splitlines() if not _framing(ln.strip())]
    gist = printed_gist("\n".join(said))
    return gist if " · " in gist else _last_line(output)


_WHOLE_CHARS = 2000  # an output this short may be said whole (`printed_gist`)


def _framing(line: str) -> bool:
    """An export's or the shell's line around what a run printed, not the run's own words."""
    return line in _BRACKETS or line.startswith(_NOT_SAID) or line.endswith(":") or bool(STATUS_LINE_RE.fullmatch(line))


def _last_line(output: str | None, limit: int = 160, own: bool = False) -> str:
    """A run's last printed line, whole and short, else "". `own`: the last line the run printed of its
    own ("Checked 26 files in 23ms. No fixes applied"), past an export's framing, labels and the shell's notices."""
    for line in reversed((output or "")[-2000:].splitlines()):
        line = line.strip()
        if not line:
            continue
        if own and _framing(line):
            continue
        if len(line) > limit:
            return ""
        return line.rstrip(".;") if own else line
    return ""


_ENDED_WELL = ("submitted", "exit_submitted", "finished", "completed", "success")


def _run_end(ctx: FactContext) -> Fact | None:
    """How the harness ended the run when it was not by submitting: the error it recorded (OpenHands'
    "Agent reached maximum iteration") or its exit status (SWE-agent's `exit_cost`). The agent never saw
    it, yet it is why the work stops mid-way: a successor must not read the last step as the plan's end."""
    meta = ctx.transcript.meta
    error = meta.get("error")
    status = meta.get("exit_status")
    if isinstance(error, str) and error.strip():
        said = first_line(error, 200)
    elif isinstance(status, str) and status.strip() and status.strip().lower() not in _ENDED_WELL:
        said = f"exit status `{first_line(status, 80)}`"
    else:
        return None
    last = ctx.transcript.rounds[-1].number
    return Fact(Section.CURRENT, f"The harness stopped the run: {said}", [last], score=84,
                essential=True, pending=True)


def _names_kept_file(ctx: FactContext, text: str) -> bool:
    """Whether the text names (by its base name) a file the session changed and did not remove (the file
    logs'): a name of a few letters (`a`, `x`) is in any text, so only one with an extension or of four."""
    return any(not log.deleted and ("." in (name := file_name(path)) or len(name) >= 4) and name in text
               for path, log in logs_of(ctx).items())


# The user quitting the tool: `/exit`, `/quit` (Claude Code logs it as `<command-name>/exit</command-name>`)
_LEFT_RE = re.compile(r"^\s*(?:<command-name>\s*)?(/(?:exit|quit|bye|logout))\b")


def _answered_after(rnd: Round, said: Message, results: dict[int, ToolResult | None]) -> bool:
    """Every call of the round came back done and the agent spoke after the last of them: its words, not
    a list of finished calls, say where the work stopped."""
    calls = [(m.index, c) for m in rnd.messages for c in m.tool_calls]
    return bool(calls) and said.index > max(i for i, _ in calls) and all(
        (res := results.get(id(c))) is not None and not res.is_error and res.exit_code in (None, 0) for _, c in calls)


# A terminal's interrupt the tool echoed as the session's last words (aider's "^C again to exit", "^C
# KeyboardInterrupt"): the user stopped the tool, as a quit command does
_INTERRUPTED_RE = re.compile(r"(?m)^\W*\^C(?: again to exit| KeyboardInterrupt)?\W*\Z")


# A reply that says it checked the work ("no CommonJS usage found", "verified", "all tests pass")
_CHECK_CLAIM_RE = re.compile(r"\b(?:verified|confirmed|scanned|checked|no (?:\w+ ){0,3}(?:found|usage|remaining|left)|"
                             r"all (?:\w+ )?(?:tests? )?pass(?:es|ed)?|(?:fully )?compliant)\b", re.IGNORECASE)
_UNBACKED = " (no tool ran since the request)"
_NEGATED_RE = re.compile(r"(?i)(?:\bnot|n't|\bnever|\bno)\W+(?:\w+\W+){0,2}$|-$")  # "have not yet verified", "type-checked"


def _claims_unbacked(messages: list[Message], said: Message, words: str) -> bool:
    """The last reply (`words`: its prose) claims a check though no tool ran since the request it answers,
    nor in the reply itself: what it says was judged from the conversation only (afi-core's "After scanning
    all provided files under `dist/`, no CommonJS usage": nothing was searched; reader review 59). Why: a
    successor takes a claim for a result. Not a check denied ("I have not verified …")."""
    if said.tool_calls or not any(not _NEGATED_RE.search(words[max(0, m.start() - 24):m.start()])
                                  for m in _CHECK_CLAIM_RE.finditer(words)):
        return False
    for m in reversed(messages[:said.index]):
        if m.tool_calls:
            return False
        if m.role is Role.USER and not m.harness and is_follow_up_request(m.text):
            return True
    return False


def _user_left(rounds: list) -> tuple[int, str] | None:
    """(round, command) of a quit command among the session's last user messages, after which no one spoke;
    or ("^C") of an interrupt the tool echoed last (aider-monochromatic: the TSDoc asked was done, then ^C)."""
    last = next((m for m in reversed(rounds[-1].messages) if (m.text or "").strip()), None) if rounds else None
    if last is not None and last.role is not Role.ASSISTANT and _INTERRUPTED_RE.search(last.text[-400:].rstrip()):
        return rounds[-1].number, "^C"
    for rnd in reversed(rounds[-2:]):
        for msg in reversed(rnd.messages):
            if msg.role is Role.ASSISTANT and (msg.text.strip() or msg.tool_calls):
                return None  # the agent went on after it
            if msg.role is Role.USER and (m := _LEFT_RE.match(msg.text or "")):
                return rnd.number, m.group(1)
    return None


@fact_source(Section.CURRENT)
def current_work(ctx: FactContext) -> list[Fact]:
    """The last words, the last calls (both left out of the document when the verbatim tail shows their
    round), whether the last change was checked, how the harness stopped the run, and the user's last
    request when nothing answered it yet."""
    rounds = ctx.transcript.rounds
    if not rounds:
        return []
    facts: list[Fact] = []
    said = next(((r.number, m) for r in reversed(rounds) for m in reversed(r.messages)
                 if m.role is Role.ASSISTANT and m.text.strip() and not m.harness), None)
    if said:
        # After a submission the harness echoed, the last words narrate handing in (the verification line says
        # "then submitted"): they compete with the decisions, not ahead of them
        handed_in = final_echo(ctx) is not None
        # (unless they sum up the work: they name a file the session leaves changed)
        narrates = handed_in and not _names_kept_file(ctx, said[1].text)
        words_said = without_own_calls(said[1])
        unbacked = _UNBACKED if _claims_unbacked(ctx.transcript.messages, said[1], words_said) else ""
        facts.append(Fact(Section.CURRENT, f"Last said{unbacked}: {_said(words_said, _SAID_CHARS)}", [said[0]],
                          score=80, priority=SUBMITTED_SAID_PRIORITY if narrates else 1.5,
                          short=f"Last said{unbacked}: {_said(words_said, _SAID_CHARS // 2)}", prose=True))
    left = _user_left(rounds)
    if left is not None:  # the user quit the tool after the last reply: the work asked was not left running
        facts.append(Fact(Section.CURRENT, f"The user then left the session (`{left[1]}`)", [left[0]],
                          score=78, priority=1.5))
    check = _verification(ctx)
    calls_round = next((r for r in reversed(rounds) if any(m.tool_calls for m in r.messages)), None)
    submitted = calls_round is not None and any(m.meta.get("final_patch_echo") for m in calls_round.messages)
    # (a submission the verification line tells: "then submitted (the harness printed the final diff …)")
    if calls_round is not None and calls_round.number >= rounds[-1].number - 1 and not (submitted and check) \
            and not (said is not None and _answered_after(calls_round, said[1], ctx.results_of(calls_round))):
        calls = _last_calls(calls_round, needed_arguments(ctx.records), ctx.cwd, ctx.results_of(calls_round))
        if calls:
            facts.append(Fact(Section.CURRENT, "Last calls: " + "; ".join(calls), [calls_round.number], score=79,
                              priority=1.5))
    if check:
        facts.append(check)
    stopped = _run_end(ctx)
    if stopped:
        facts.append(stopped)
    requests = [e for e in ctx.events if e.kind is EventKind.REQUEST and e.text.strip()
                and is_follow_up_request(e.text)]
    last = requests[-1] if requests else None
    if last is not None and (said is None or last.message_index > said[1].index) and len(requests) > 1:
        # The request itself (and the offer an assent accepts) is the Task goal's current request.
        facts.append(Fact(Section.CURRENT, f"Pending: the current request (r{last.round}) is not answered or done yet",
                          [last.round], score=85, essential=True, pending=True))
    return facts
