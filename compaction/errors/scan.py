"""Transcript -> error records: walk the rounds, classify tool output and reported text, count each
identifier once per round, label errors provoked on purpose, infer what ended each error.

Why here and not in classify: only the transcript knows the round, the command that produced the
output, which files the agent created (a reproduction script, a test written to fail first) and
what came after (the edit and the passing re-run that ended an error).
"""

from __future__ import annotations

import difflib
import hashlib
import posixpath
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace

from compaction.answer_options import labeled_first, options_in
from compaction.command_diff import command_change
from compaction.edits import (
    AFTER_EDIT,
    call_changes,
    definitions,
    read_in,
    refused,
    result_changes,
    same_file,
    sed_hunks,
    shown_text,
)
from compaction.errors.advice import MODEL_SIDE, advise, substituted_last
from compaction.errors.classify import Hit, classify, json_diagnostics
from compaction.errors.episodes import earlier_episodes, label_of_test
from compaction.errors.families import FAMILIES
from compaction.errors.merge import merge_consequences, split_substitutions
from compaction.errors.records import ErrorRecord, Location, Occurrence
from compaction.errors.shorten import OPTION_SEP, cut
from compaction.events import (
    EventKind,
    edits_by_line,
    installs,
    is_state_changing,
    is_test_command,
    parse_test_summary,
    results_of_calls,
    rewrites_in_place,
    shell_reads,
    shell_writes,
    unapplied_block,
    viewed_span,
)
from compaction.line_views import LineViews
from compaction.memo import per_text
from compaction.model import Message, Role, Round, ToolCall, ToolKind, ToolResult, Transcript, group_rounds
from compaction.shell import (
    EXIT_TAG_RE,
    STATUS_LINE_RE,
    benign_exit,
    blank_quotes,
    code_line,
    leading_cd,
    norm_command,
    printed_nothing,
    program_of,
    run_words,
    scripts_run,
    split_commands,
    unredirected,
    went_wrong,
    words,
)
from compaction.transcripts.arg_names import ArgRole, arg_text
from compaction.transcripts.continuations import unfinished
from compaction.transcripts.path_spelling import file_name
from compaction.transcripts.user_feedback import words_after

READ_HEAD = 1500  # a file view can only fail in its first lines; its body is source, not output

_CREATE = re.compile(
    r"(?:cat\s*(?:<<-?\s*['\"]?\w+['\"]?\s*)?>\s*|tee\s+|^create\s+|touch\s+|>\s*)([\w./\-]+\.\w+)", re.M)
_CREATE_LITERALS = (">", "tee", "create", "touch")  # one of which every _CREATE match holds
_RUNNER = re.compile(r"\b(?:python\d?(?:\.\d+)?|pytest|node|ts-node|tsx|deno|javac|java|go|bash|sh|ruby|perl)\b")
_SCRIPT_EXT = re.compile(r"[\w/]\.(?:py|js|mjs|cjs|ts|sh|java|go|rb|pl)$")
_REPRO_NAME = re.compile(r"(?:^|/)(?:repro\w*|reproduce\w*|\w*_repro\w*|bug\w*|issue\w*|test_issue\w*|demo\w*)"
                         r"\.\w+$", re.I)
_CAUSE = re.compile(r"\b(?:because|since|the (?:issue|problem|error|cause|reason) (?:is|was)|this means|caused by|seems|"
                    r"appears|instead of|missing|doesn't exist|does not exist|I need to|should be|wrong|turns out|"
                    r"is split|spans (?:two|several|multiple)|failed (?:before|because|with))\b"
                    r"|问题(?:是(?!否)|在于|出在)|原因(?:是|在于)|因为|由于|导致|这(?:意味着|说明)",
                    re.I)  # CJK: no word boundaries; "这意味着" is "this means"
# "Now I need to examine `_set_output.py`": where it will look next, no account of the error
_LOOKING_ON = re.compile(r"\bI (?:need|have|want) to (?:examine|look|check|find|see|understand|investigate|read|open|"
                         r"explore|search|locate|inspect|review|verify|run|test|figure out)\b", re.I)


def _states_cause(sentence: str) -> bool:
    """A sentence with a cause word that is no lead-in to a list ("I need to handle: 1.") and says more than
    where the agent will look next: what `_explanation` and `_diagnosed` take as the agent's account."""
    return _CAUSE.search(sentence) is not None and not _LIST_OPENER.search(sentence) and not _only_looking_on(sentence)


def _only_looking_on(sentence: str) -> bool:
    """Where it will look next is the sentence's only cause word: no account of the error."""
    looking = _LOOKING_ON.search(sentence)
    return looking is not None and all(m.start() == looking.start() for m in _CAUSE.finditer(sentence))


# A lead-in to code or a list ("So the logic should be:") states a cause only with a causal word of its own
_BECAUSE = re.compile(r"\b(?:because|since|caused by|the (?:issue|problem|error|cause|reason) (?:is|was))\b", re.I)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z`(])|(?<=[。！？])\s*")  # a wide stop needs no space after it
# A sentence that only opens a list ("I need to handle: 1."): what it says is in the items, not in it
_LIST_OPENER = re.compile(r"[:：]\s*\d{1,2}[.)]$|[:：]\s*\n?\s*\d{1,2}[.)]\s")  # a lead-in to a list, not an account
_THOUGHT = re.compile(r"^\s*(?:THOUGHT|DISCUSSION|Thought):\s*")


def _head(transcript: Transcript) -> str:
    return "".join(m.full_text()[:2000] for m in transcript.messages[:3])


def transcript_id(transcript: Transcript) -> str:
    """A stable identity for idempotent ingestion: the content of the opening messages (text and
    timestamps), not the path. So a grown transcript (more rounds appended) keeps its identity, and
    the same conversation named `t.jsonl`, `../t.jsonl`, `/abs/t.jsonl`, through a hard link or as a
    copy counts its errors once (issue 15, attack 7); timestamps keep two sessions that open with
    the same words apart where the format records them."""
    stamps = "\0".join(m.timestamp or "" for m in transcript.messages[:3])
    return hashlib.sha1(f"content\0{stamps}\0{_head(transcript)}".encode()).hexdigest()[:16]


def legacy_transcript_id(transcript: Transcript) -> str:
    """The identity earlier versions stored (path as given + opening messages), for re-keying."""
    return hashlib.sha1(f"{transcript.path}\0{_head(transcript)}".encode()).hexdigest()[:16]


def _norm_command(cmd: str | None) -> str:
    return norm_command(cmd)


def _script_of(cmd: str | None) -> str | None:
    """The script a command runs (`python reproduce.py`, `pytest t.py::x`, `javac R.java && java R`)."""
    if not cmd or not _RUNNER.search(cmd):
        return None
    for tok in cmd.split():
        tok = tok.split("::", 1)[0].strip("'\"")
        if _SCRIPT_EXT.search(tok):
            return tok
    return None


# `git stash` (or `push`, or `save`) hides the work-tree changes; `pop`/`apply` brings them back
_STASH_RE = re.compile(r"git\s+stash(?:\s+(pop|apply)\b|\s+(?:push|save)\b.*|(?:\s+-\S+)*\s*$)")
_PARTS_RE = re.compile(r"&&|\|\||;|\n")  # a shell line's parts, run in order


# `cat <<'EOF' > update.py`, `tee fix.py <<'EOF'`
_SCRIPT_TARGET_RE = re.compile(r"(?:>|\btee\s+(?:-a\s+)?)\s*['\"]?[\w./-]+\.(?:py|js|mjs|cjs|ts|sh|rb|pl)\b")


class _State:
    """What the walk knows so far: files the agent created, whether the fix has begun, target ids."""

    def __init__(self) -> None:
        self.created: set[str] = set()
        self.fix_started = False
        self.target_ids: set[str] = set()
        self.stashed = False  # a `git stash` not yet popped: runs now see the code before the session's changes
        self.scripts: dict[str, str] = {}  # a script's file name -> its text, as the session last wrote it whole

    def script_targets(self, call: ToolCall) -> list[str]:
        """Remember a script the call wrote whole; the files a run of the session's own script rewrites
        in place (`python update_offsetbox_v2.py`, which reads `offsetbox.py` and writes it again)."""
        cmd = call.command or ""
        if call.kind == ToolKind.WRITE and _SCRIPT_EXT.search(call.path or "") \
                or cmd and "<<" in cmd and _SCRIPT_TARGET_RE.search(cmd):
            for change in call_changes(call):
                if change.whole and change.hunks:
                    self.scripts[file_name(change.path)] = "\n".join(change.hunks[0].added)
            return []
        if not (self.scripts and cmd and call.kind == ToolKind.SHELL):
            return []
        found: list[str] = []
        for name in scripts_run(cmd):
            text = self.scripts.get(file_name(name))
            found += [t for t in rewrites_in_place(text) if t not in found] if text else []
        return found

    def stashed_for(self, call: ToolCall | None, output: str = "") -> bool:
        """Whether the call's run saw the code without the session's changes: a run after `git stash` in the
        line (`git stash && pytest -x; git stash pop`), or while an earlier stash is not yet popped. The
        line's parts are read in order; a stash that saved nothing ("No local changes to save") hid nothing."""
        cmd = (call.command or "") if call is not None else ""
        if "git stash" not in cmd:
            return self.stashed
        saw = False
        for part in _PARTS_RE.split(cmd):
            m = _STASH_RE.match(part.strip())
            if m is not None:
                self.stashed = m.group(1) is None and "No local changes to save" not in output
            elif part.strip() and self.stashed:
                saw = True  # a run while the changes are hidden
        return saw

    def note_call(self, call: ToolCall) -> None:
        if call.kind in (ToolKind.WRITE, ToolKind.EDIT):
            self.stashed = False  # an edit after a stash never popped: the runs now see new work, not the old code
        if call.kind == ToolKind.WRITE and call.path:
            self.created.add(file_name(call.path))
        elif call.kind == ToolKind.EDIT and call.path and file_name(call.path) not in self.created:
            if not _REPRO_NAME.search(call.path):
                self.fix_started = True
        cmd = call.command or ""
        if cmd:  # each pattern only where its literal is (a long heredoc body is not scanned for nothing)
            for m in (_CREATE.finditer(cmd) if any(map(cmd.__contains__, _CREATE_LITERALS)) else ()):
                self.created.add(file_name(m.group(1)))
            for kind, path in shell_writes(cmd) if ("sed" in cmd or "perl" in cmd) else ():
                if kind is EventKind.EDIT and file_name(path) not in self.created:
                    self.fix_started = True  # an in-place edit (`sed -i -e … -e … f`) of a file it did not create

    def is_repro(self, call: ToolCall | None) -> bool:
        if call is None:
            return False
        script = _script_of(call.command) or (call.path if call.kind == ToolKind.SHELL else None)
        if not script:
            return False
        return bool(_REPRO_NAME.search(script)) or file_name(script) in self.created


_NEVER_TARGET = re.compile(r"SyntaxError|IndentationError|TabError|CannotFindSymbol|PackageDoesNotExist|CompileError|"
                           r"Checkstyle|BuildFailure|IncompatibleTypes|Undefined|ImplicitDeclaration|MissingHeader")


def _can_be_target(err_id: str) -> bool:
    """Only a runtime failure or a failing test can be the bug under repair; a compile error or a
    tool mistake in a reproduction script is still the agent's own mistake."""
    fam = FAMILIES.get(err_id.split("_", 2)[1])
    if _NEVER_TARGET.search(err_id):
        return False
    return (fam is not None and fam.can_be_target) or err_id == "ERR_TOOL_NonZeroExit"


def _calls_for(msg: Message, calls: list[ToolCall], by_id: dict[str, ToolCall]) -> dict[int, ToolCall | None]:
    """Map each tool result of `msg` to its call: by id, else by position among the round's calls so
    far (`calls`, up to and including `msg`'s own; `by_id` the same calls by id, the last one of an id
    winning). The walk grows both a message at a time: rebuilt for each message, a round of many
    one-call messages cost the square of its length."""
    out: dict[int, ToolCall | None] = {}
    for i, res in enumerate(msg.tool_results):
        call = by_id.get(res.call_id) if res.call_id else None
        if call is None and calls:
            call = calls[-1] if len(calls) == 1 else calls[min(i, len(calls) - 1)]
        out[i] = call
    return out


def _fallback_hit(res: ToolResult, call: ToolCall | None) -> Hit | None:
    """ToolError / NonZeroExit when nothing more specific was found, with a verbatim evidence line."""
    content = res.content or ""
    if res.exit_code not in (None, 0):
        cmd = (call.command if call else "") or ""
        if benign_exit(cmd, res.exit_code, res.exit_code == 1 and printed_nothing(content)):  # only 1 can be benign
            return None
        err_id = "ERR_TOOL_NonZeroExit"
    elif res.is_error:
        err_id = "ERR_TOOL_ToolError"
    else:
        return None
    m = EXIT_TAG_RE.search(content)
    wrong = went_wrong(content)
    if err_id == "ERR_TOOL_NonZeroExit" and (res.exit_code or 0) < 0 and not wrong and content.strip():
        # a negative status is no program's own: the harness stopped it (a timeout) or a signal killed it,
        # and its output simply stops; its last line is where, not what went wrong
        end = len(content.rstrip())
        start = content.rfind("\n", 0, end) + 1  # the evidence is verbatim: the line its output stopped at
        return Hit("ERR_TOOL_Timeout", start, end, content[start:end],
                   detail=f"the command did not finish (exit {res.exit_code})")
    lines = [wrong] if wrong else _said_lines(content, last=err_id != "ERR_TOOL_ToolError")
    if err_id == "ERR_TOOL_ToolError" and lines:
        s, e = lines[0]
        if (e - s < 10 or content[s:e].endswith(":")) and len(lines) > 1:  # a bare "ERROR:" banner, or a line
            e = lines[1][1]  # announcing the error ("…failed with the following error:"): the line that says what
    elif lines:
        s, e = lines[-1]
    elif m:
        s, e = m.start(), m.end()
    else:
        return None
    e = min(e, s + 300)
    return Hit(err_id, s, e, content[s:e], detail=content[s:e])


def _said_lines(content: str, last: bool) -> list[tuple[int, int]]:
    """(start, end) of the output's first two lines that say something (not blank, not a bare `<tag>`
    nor a harness's status line, `shell.STATUS_LINE_RE`), or of its last such line when `last`: what the
    fallback quotes, found from the end it reads instead of listing every line of a long output first."""
    out: list[tuple[int, int]] = []
    if last:
        end = len(content)
        while not out:
            nl = content.rfind("\n", 0, end)
            if content[nl + 1:end].strip() and not STATUS_LINE_RE.fullmatch(content[nl + 1:end].strip()):
                out.append((nl + 1, end))
            if nl < 0:
                break
            end = nl
        return out
    start = 0
    while len(out) < 2:
        nl = content.find("\n", start)
        end = len(content) if nl < 0 else nl
        if content[start:end].strip() and not STATUS_LINE_RE.fullmatch(content[start:end].strip()):
            out.append((start, end))
        if nl < 0:
            break
        start = nl + 1
    return out


def _hits_of_result(res: ToolResult, call: ToolCall | None) -> list[Hit]:
    failed = res.is_error or res.exit_code not in (None, 0)
    text = res.content or ""
    if call is not None and call.kind == ToolKind.READ and not failed:
        # an editor's diagnostics look like a read (a tool given paths): their errors anywhere in it
        listed = json_diagnostics(text, named=True) if len(text) > READ_HEAD and "severity" in text.lower() else []
        return listed or classify(text[:READ_HEAD], tool_output=True)
    hits = classify(text, tool_output=True, failed=failed)
    # an exception a passing test run logged is its log, not a failure (one printed after its summary is not)
    if hits and (res.exit_code is None or res.exit_code <= 0) and (upto := _tests_all_passed(text)):
        hits = [h for h in hits if h.id.startswith("ERR_TOOL_") or h.start >= upto]
    if not hits:
        fb = _fallback_hit(res, call)
        if fb:
            hits = [fb]
    return hits


_JUNIT_COUNTS_RE = re.compile(r"Tests run: \d+, Failures: (\d+), Errors: (\d+)")


def _tests_all_passed(text: str) -> int:
    """Where a run's output of tests that all passed ends their report (0: it is no such run): every JUnit
    count line with no failure or error and no failed test marked (`<<< FAILURE!`), or a pytest-style
    summary of passes alone. The stack traces before that are the tests' own logs (an exception a test
    expects); what comes after it is another program's."""
    if "Tests run: " in text:
        counts = list(_JUNIT_COUNTS_RE.finditer(text))
        passed = bool(counts) and all(m[1] == "0" and m[2] == "0" for m in counts) \
            and "<<< FAILURE!" not in text and "<<< ERROR!" not in text and "BUILD FAILURE" not in text
        return counts[-1].end() if passed else 0
    m = _PASSED_ONLY_RE.search(text)
    return m.end() if m and not _FAILED_COUNT_RE.search(m.group(0)) else 0


_PASSED_ONLY_RE = re.compile(r"^=*\s*\d+ passed(?:, \d+ (?:skipped|deselected|warnings?|xfailed|xpassed))*"
                             r"(?: in [\d.]+s)?\s*=*\s*$", re.M)
_FAILED_COUNT_RE = re.compile(r"\b\d+ (?:failed|errors?)\b")


def scan_transcript(transcript: Transcript, *, tid: str | None = None,
                    no_effect: frozenset[tuple[int, str]] = frozenset(),
                    inferred_paths: Mapping[str, str] | None = None) -> list[ErrorRecord]:
    """All error records of one transcript, in order of first occurrence (no store needed). `no_effect`:
    (message index, command) of the shell edits the events found changed nothing (`Event.unchanged`);
    `inferred_paths`: call id → the file a path-less edit changed, as its content named it (`Event.inferred`)."""
    tid = tid or transcript_id(transcript)
    state = _State()
    records: dict[str, ErrorRecord] = {}
    calls_of: dict[int, ToolCall] = {}  # id(occurrence) -> the call whose result it is (what a retry changed)
    script_edits: dict[int, list[str]] = {}  # id(call) -> the files its run of the session's own script rewrote
    views = LineViews()  # each file's lines as its last numbered view showed them
    by_line = edits_by_line(transcript)  # only a session that edits by line number needs them
    viewed: dict[int, ToolCall] = {}  # id(call) -> a line-range edit as the old/new pair the view makes it
    if not transcript.rounds:  # a hand-built transcript: group it the way load_transcript does
        transcript.rounds = group_rounds(transcript.messages)
    for rnd in transcript.rounds:
        round_hits: list[tuple[Hit, Occurrence]] = []
        round_calls: list[ToolCall] = []  # the round's calls so far, a system message's too
        calls_by_id: dict[str, ToolCall] = {}
        for msg in rnd.messages:
            round_calls += msg.tool_calls
            calls_by_id.update((c.id, c) for c in msg.tool_calls if c.id)
            if msg.role is Role.SYSTEM:
                continue
            for call in msg.tool_calls:
                state.note_call(call)
                if targets := state.script_targets(call):
                    script_edits[id(call)] = targets
                if by_line and call.kind == ToolKind.EDIT and call.path and views:
                    if (span := viewed_span(call, call.path, views)) and isinstance(new := arg_text(
                            call.arguments, ArgRole.NEW) or call.arguments.get("replacement"), str):
                        viewed[id(call)] = replace(call, arguments={"path": call.path, "old_str": span[0], "new_str": new})
            if msg.tool_results:
                calls = _calls_for(msg, round_calls, calls_by_id)
                for i, res in enumerate(msg.tool_results):
                    call = calls.get(i)
                    if by_line and call is not None and res.content and not res.is_error:
                        _seen(views, call, res.content)
                    if by_line and call is not None and views:
                        _changed(views, call, res)
                    repro = state.is_repro(call)
                    stashed = state.stashed_for(call, res.content[:300] if res.content else "")
                    for h in _hits_of_result(res, call):
                        target = repro and _can_be_target(h.id) and (not state.fix_started or h.id in state.target_ids)
                        occ = _occ(h, rnd.number, tid, msg, f"result:{i}", call, target)
                        occ.baseline = stashed
                        if call is not None:
                            calls_of[id(occ)] = call
                        round_hits.append((h, occ))
            if msg.text and msg.role is not Role.ASSISTANT:
                reported = msg.role is Role.USER and not msg.harness
                for h in classify(msg.text, tool_output=msg.harness or msg.role is Role.TOOL):
                    round_hits.append((h, _occ(h, rnd.number, tid, msg, "text", None, reported)))
        for h, occ in round_hits:
            rec = records.get(h.id)
            if rec is None:
                rec = records[h.id] = ErrorRecord(h.id)
            rec.add(occ)
            if occ.target and not state.fix_started:
                state.target_ids.add(h.id)
    out = _unnamed_misses_dropped(merge_consequences(split_substitutions(list(records.values()))), transcript)
    _unasked_targets(out, transcript)
    cache = _ResultsCache()  # each round's calls and results, paired once for every record's solution
    used = _Mentioned(transcript)  # whether the session ran or named a checker (`mypy`) the advice may suggest
    cache.script_edits, cache.viewed, cache.created, cache.no_effect = script_edits, viewed, state.created, no_effect
    cache.inferred_paths = dict(inferred_paths or {})
    timeline = _LazyTimeline(transcript)  # the files' changes, read once, when a record's fix first asks
    # an agent that ran no shell command (aider's model edits by blocks, Copilot's by its tools): advice with a
    # shell line to run (`sed -n 'a,bp' f`, `ls dir`) names a step it cannot take; the advice without the example
    shell_used = any(c.kind == ToolKind.SHELL and c.command for m in transcript.messages for c in m.tool_calls)
    for rec in out:
        escaped = _escaped_breaks(rec, calls_of)
        rec.solution = infer_solution(rec, transcript, cache, calls_of.get(id(rec.occurrences[-1])),
                                      escaped=escaped, marked=_margin_marked(rec, calls_of),
                                      spaced=_spacing_cause(rec, transcript, calls_of, cache),
                                      timeline=timeline,
                                      probe=all(probed(calls_of.get(id(o)), o) for o in rec.occurrences))
        rec.earlier = earlier_fixes(rec, transcript, cache, calls_of)
        installed = [f"its r{rounds[0]} failure {text.rsplit(' — ', 1)[-1]}" for rounds, text in rec.earlier
                     if INSTALLED in text]
        if installed and rec.solution:  # one record, two causes: the one an install ended is said first,
            rec.solution = _installed_first(installed[-1], rec.solution)  # then whether the later one ended
        rec.avoidance = not_what_failed(unused_checkers_dropped(advise(rec), used), rec.solution or "",
                                        frozenset(" ".join(c.split()) for o in rec.occurrences if (c := o.location.command)))
        rec.avoidance = _deleted_since(transcript, rec.avoidance, rec.occurrences[-1].round)
        if not shell_used:
            rec.avoidance = _SHELL_EXAMPLE_RE.sub("", rec.avoidance or "") or rec.avoidance
        if escaped:  # the cause the calls show, not "view the exact lines first": the agent had viewed them
            rec.avoidance = ESCAPED_ADVICE
        if TOP_DOWN in (rec.solution or ""):  # the habit the cause calls for, before the family's check
            rec.avoidance = f"{SHIFT_ADVICE}; {rec.avoidance}" if rec.avoidance else SHIFT_ADVICE
    return out


_BROKEN_SYNTAX_RE = re.compile(r"Syntax|Indentation|TabError|E999")
# An advice's example of a shell line to run, in parentheses: `(`ls src`)`, `(`sed -n 'a,bp' f` / view)`
_SHELL_EXAMPLE_RE = re.compile(r" \((?:[^()`]*`(?:ls|sed|cat|grep|nl|head|tail|find|rg)\b[^`]*`[^()]*?)\)")
_LINE_ADDRESS_RE = re.compile(r"^<line\(s\) (\d+)(?:,(\d+))?>$|^(?:insert|append) at (\d+)$|^line (\d+)")
SHIFT_LOOKBACK = 3  # rounds before the failure searched for the edit that broke the file
SHIFT_NEAR = 10  # lines between the failure's line and an address the shift moved, at most
TOP_DOWN = "line-addressed edits ran one after another, top-down"
ESCAPED_ADVICE = "type real line breaks in an edit's old text, not `\\n` (no file holds those verbatim), or match one line"
SHIFT_ADVICE = "edit one file at several line numbers bottom-up (the highest first), or by its text, not its line numbers"


def _line_ops(change) -> list[tuple[int, int]]:
    """(first line addressed, lines it adds or removes) of each line-addressed hunk of one sed run: a
    deletion, an insertion, or a substitution on an addressed line (0: it moves nothing, but is moved)."""
    out: list[tuple[int, int]] = []
    for h in change.hunks:
        m = _LINE_ADDRESS_RE.match(h.removed[0] if h.removed and not h.added and not h.fragment else h.context or "")
        if m is None:
            continue
        if m.group(1):
            first, last = int(m.group(1)), int(m.group(2) or m.group(1))
            out.append((first, -(last - first + 1)))
        elif m.group(3):
            out.append((int(m.group(3)), len(h.added)))
        else:
            out.append((int(m.group(4)), 0))
    return out


def _edits_file(call: ToolCall, path: str) -> bool:
    """Whether a call changes `path`: a file tool's edit or write of it, or a shell line's."""
    if call.kind in (ToolKind.EDIT, ToolKind.WRITE) and call.path and same_file(call.path, path):
        return True
    return bool(call.command) and any(kind in (EventKind.EDIT, EventKind.WRITE) and same_file(p, path)
                                      for kind, p in shell_writes(call.command or ""))


def _shifted_lines(transcript: Transcript, rec: ErrorRecord, cache: _ResultsCache | None) -> str:
    """A file broken by line-addressed edits run one after another in one command, top-down (`sed -i
    '1275,1276d' f && sed -i '2111,2112d' f`): each run's deletions or insertions moved the lines the
    next run addressed. Said only when that command was the file's last change before the failure, no
    run of a program came between and worked, and the failure's line is near an address that moved.
    Read off the command, the cause is no guess (sympy's `SyntaxError` at 2111: the agent asked itself
    "due to shifts or something?")."""
    last = rec.occurrences[-1]
    path, line = last.location.path, last.location.line
    if not path:
        return ""
    worked = False  # a program ran and worked after the edit: the file was not broken then
    for rnd in reversed(transcript.rounds[max(0, last.round - 1 - SHIFT_LOOKBACK):last.round]):
        results = _round_results(rnd, cache)
        for msg in reversed(rnd.messages):
            for call in reversed(msg.tool_calls):
                runs = [c for c in sed_hunks(call.command) if same_file(c.path, path)] \
                    if call.command and "sed" in call.command else []
                if not runs:
                    if _edits_file(call, path):
                        return ""  # another edit of the file came after
                    res = results.get(id(call))
                    if rnd.number < last.round and call.command and res is not None and _succeeded(res) \
                            and (scripts_run(call.command) or is_test_command(call.command) or _PROGRAM_RE.search(call.command)):
                        worked = True
                    continue
                if worked:
                    return ""
                moved, low = 0, None  # lines the runs before added or removed, and the lowest line they moved
                for change in runs:
                    ops = _line_ops(change)
                    # strictly below: `228d` then `228i …` is the idiom that replaces a line, not a shift
                    hit = [first for first, _ in ops if moved and low is not None and first > low]
                    if hit and (line is None or any(abs(line - first) <= SHIFT_NEAR for first in hit)):
                        command = cut(" ".join(_as_run(call.command).split()), 90)
                        return f"cause: its {TOP_DOWN} (`{command}`): each moved the lines the next addressed (r{rnd.number})"
                    shifting = [first for first, n in ops if n]
                    moved += sum(n for _, n in ops)
                    if shifting:
                        low = min([*shifting, *([low] if low is not None else [])])
                return ""  # the file's last change shifted nothing it then addressed
    return ""


_PROGRAM_RE = re.compile(r"\b(?:python[\d.]*|node|ruby|java|go run|cargo|npm|pnpm|make)\b")


# A command that rewrites a text a command already sent: a PR's or an issue's body, the last commit's message
_AMENDS_RE = re.compile(r"\bgh (?:pr|issue|release) edit\b|\bgit commit\b[^\n]*--amend\b|\bgh api\b[^\n]*(?:PATCH|-X PATCH)")


def _amended_after(transcript: Transcript, after: int) -> bool:
    """Whether a later call rewrote the text a command sent (a PR body its backticks emptied)."""
    return any(call.command and _AMENDS_RE.search(call.command) for rnd in transcript.rounds[after:]
               for msg in rnd.messages for call in msg.tool_calls)


_ADVISED_RUN_RE = re.compile(r"re-run `([^`\n]+)`")


def _test_files_run(command: str) -> set[str]:
    """The names of the test files a test runner's line names (`pytest -n 2 reproduce_issue.py`,
    `python -m pytest t/x.py::test_a`): files it runs, as a script's name is for an interpreter."""
    if program_of(command) not in ("pytest", "py.test"):
        return set()
    return {file_name(w.split("::", 1)[0]) for w in run_words(command)[1:]
            if not w.startswith("-") and w.split("::", 1)[0].endswith(".py")}


def _deleted_since(transcript: Transcript, avoidance: str, after: int) -> str:
    """Advice to re-run a script (a reproduction) that a later line of the session deleted (`rm
    reproduce_bug.py`) and no later call wrote again: said, so the successor writes it first. Why:
    pydicom's and scikit-learn's advice named reproductions the sessions had removed."""
    m = _ADVISED_RUN_RE.search(avoidance or "")
    scripts = (scripts_run(m.group(1)) | _test_files_run(m.group(1))) if m else set()
    if not scripts:
        return avoidance
    # the script as the advised command spells it (`reproduce_bug.py`, `tests/check.py`): one place, not any file of its name
    spelled = {w.removeprefix("./") for w in words(m.group(1)) if file_name(w) in scripts}
    cwd = transcript.cwd
    gone: dict[str, int] = {}
    for rnd in transcript.rounds[after:]:
        for msg in rnd.messages:
            for call in msg.tool_calls:
                # part by part: `rm f; git checkout -- f` deletes, then restores, one file
                written = [w for part in split_commands(call.command) for w in shell_writes(part)] if call.command \
                    else [(EventKind.WRITE, call.path)] if call.path and call.kind is ToolKind.WRITE else []
                for kind, path in written:
                    place = next((w for w in spelled if same_place(w, path.removeprefix("./"), cwd)), None)
                    if place is not None and kind is EventKind.DELETE:
                        gone[place] = rnd.number
                    elif place is not None:  # written again, moved back, restored from git: it is there
                        gone.pop(place, None)
    if not gone:
        return avoidance
    place, rnd = next(iter(gone.items()))
    return f"{avoidance} (`{file_name(place)}` was deleted at r{rnd}: write it again first)"


OWN_TESTS_NAMED = 3


def _own_failures_gone(rec: ErrorRecord, base: Occurrence, last: Occurrence) -> str:
    """In a record whose last failure is pre-existing (`base`, a run with the changes stashed, failed the
    same way), the tests that failed between but neither there nor in the last run: the session's own
    failures, gone by the last run. Why: one record said "pre-existing" of tests the session broke."""
    if not (base.tests and last.tests) or not set(last.tests) <= set(base.tests):
        return ""
    own: dict[str, list[int]] = {}
    for o in rec.occurrences:
        if o.round > base.round:
            for t in o.tests:
                if t not in base.tests and t not in last.tests:
                    own.setdefault(t, []).append(o.round)
    if not own:
        return ""
    rounds = sorted({r for rs in own.values() for r in rs})
    names = ", ".join(f"`{label_of_test(t)}`" for t in list(own)[:OWN_TESTS_NAMED])
    names += f" +{len(own) - OWN_TESTS_NAMED}" if len(own) > OWN_TESTS_NAMED else ""
    span = f"r{rounds[0]}" + (f"-r{rounds[-1]}" if len(rounds) > 1 else "")
    return f"the session's own failures ({names}, {span}) no longer failed at r{last.round}"


# The agent's judgement that a failure is not its doing ("`test_icrs_cirs` fails even without my changes",
# "an environment issue … unrelated to my changes")
_NOT_OURS_RE = re.compile(r"(?i)\bunrelated to (?:my|the|our|these) (?:change|fix|edit)|\bpre-?existing\b|"
                          r"\b(?:fails?|failing|failed|errors?) (?:even )?(?:without|before) (?:my|the|our|these|any) "
                          r"(?:change|fix|edit)|\b(?:was|were) (?:already )?failing before\b|"
                          r"\bnot (?:caused|introduced) by (?:my|the|our|these) (?:change|fix|edit)")
JUDGED_CHARS = 160
NOT_OURS_LABEL = "not the session's doing, per the agent"
_SENTENCE_END_RE = re.compile(r"[.!?](?=\s)|\n")
_LABEL_RE = re.compile(r"^(?:THOUGHT|Thought|Analysis|Reasoning|DISCUSSION):\s*")  # a harness's label before the prose
_HEDGE_RE = re.compile(r"(?i)\b(?:might|may|maybe|perhaps|possibly|probably|could|seems?|likely)\b|\?")


def _judged_not_ours(transcript: Transcript, rec: ErrorRecord, cache: _ResultsCache | None = None) -> str:
    """The agent's own word, after the failure first showed, that it is not the session's doing, in a
    sentence naming one of its tests (or its exception): "not the session's doing, per the agent (r17): “…”".
    Why: with no run of the code without the changes to show it, the agent's judgement is what a
    successor has, and "no fix seen" reads as the session's own bug left unfixed."""
    first = rec.occurrences[0].round
    names = {label_of_test(t) for o in rec.occurrences for t in o.tests}
    names |= {w for o in rec.occurrences[-1:] for w in _CODE_SHAPED.findall(o.detail or "") if len(w) > 5}
    if not names:
        return ""
    hedged = ""
    judgements = cache.not_ours if cache is not None and cache.not_ours is not None else _not_ours_sentences(transcript)
    if cache is not None:
        cache.not_ours = judgements
    for rnd, sentence in judgements:
        if rnd < first or not any(n in sentence for n in names):
            continue
        said = sentence if len(sentence) <= JUDGED_CHARS else sentence[:JUDGED_CHARS].rsplit(" ", 1)[0] + "…"
        judged = f"{NOT_OURS_LABEL} (r{rnd}): “{said}”"
        if not _HEDGE_RE.search(sentence):
            return judged
        hedged = hedged or judged  # "might be pre-existing": only when nothing firmer follows
    return hedged


# Not a judgement: the agent setting out to check ("let me see whether it fails without my changes") or
# saying the opposite ("not pre-existing: introduced by my change")
_NOT_A_JUDGEMENT_RE = re.compile(r"(?i)^(?:let me|let's|i'll|i will|i need to|now i'll)\b|\b(?:whether|to see if|check if)\b|"
                                 r"\b(?:not|isn't|is not|wasn't) (?:a )?pre-?existing|"
                                 r"(?<!not )(?<!n't )\b(?:introduced|caused) by (?:my|the|our|this)")


def _not_ours_sentences(transcript: Transcript) -> list[tuple[int, str]]:
    """(round, sentence) of the agent's judgements that a failure is not the session's doing: read once
    per scan (`_ResultsCache.not_ours`), every record asks."""
    out: list[tuple[int, str]] = []
    for rnd in transcript.rounds:
        for msg in rnd.messages:
            if msg.role is not Role.ASSISTANT or not msg.text or "change" not in msg.text and "xisting" not in msg.text:
                continue
            text = msg.text
            for m in _NOT_OURS_RE.finditer(text):
                # its sentence: from the last end of one before it (a `.`, `!` or `?` then a space, or a line
                # break: `test_requests.py::x` holds a dot) to the next
                start = max((e.end() for e in _SENTENCE_END_RE.finditer(text, max(0, m.start() - 600), m.start())),
                            default=max(0, m.start() - 600))
                end = _SENTENCE_END_RE.search(text, m.end(), m.end() + 600)  # (bounded: a long line has no end)
                sentence = _LABEL_RE.sub("", " ".join(text[start:end.start() + 1 if end else m.end() + 600].split()))
                if not _NOT_A_JUDGEMENT_RE.search(sentence):
                    out.append((rnd.number, sentence))
    return out


def _same_failure(a: Occurrence, b: Occurrence) -> bool:
    """Two occurrences of one failure: a test they share, else the same message line."""
    if a.tests and b.tests:
        return not set(a.tests).isdisjoint(b.tests)
    return bool(a.detail) and a.detail == b.detail


def _unasked_targets(records: list[ErrorRecord], transcript: Transcript) -> None:
    """Of several errors a reproduction raised before the fix began, the bug under repair is the one the
    task names (its exception or its message): the others (`no such table` of a script not yet set up)
    are the script's own failures, not the target bug."""
    targets = [r for r in records if r.target_bug]
    if len(targets) < 2:
        return
    task = next((m.text for m in transcript.messages if m.role is Role.USER and not m.harness and m.text), "")
    if not task:
        return
    task = " ".join(task[:_TASK_CHARS].split()).lower()
    named = {id(r): _task_names(r, task) for r in targets}
    if any(named.values()):
        for r in targets:
            if not named[id(r)]:
                for o in r.occurrences:
                    o.target = False


_TASK_CHARS = 20_000


def _task_names(rec: ErrorRecord, task: str) -> bool:
    """Whether the task's text names the error: its exception's class, or its message (16 characters at least)."""
    kind = rec.id.split("_", 2)[-1]
    if len(kind) >= 6 and kind.lower() in task:
        return True
    for o in rec.occurrences:
        message = " ".join((o.detail or "").split(": ", 1)[-1].split()).rstrip(".").lower()
        if len(message) >= 16 and message[:80] in task:
            return True
    return False


def _occ(h: Hit, rnd: int, tid: str, msg: Message, source: str, call: ToolCall | None, target: bool) -> Occurrence:
    loc = Location(h.path, h.line, h.symbol, (call.command if call else None))
    if not loc.path and call is not None and call.path:
        loc.path = call.path
    return Occurrence(round=rnd, transcript=tid, evidence=h.evidence, message=msg.index, source=source,
                      start=h.start, end=h.end, location=loc, signals=h.signals, target=target,
                      detail=h.detail, ts_codes=list(h.ts_codes), tests=list(h.tests))


def _explanation(transcript: Transcript, after_round: int, after_message: int | None = None,
                 about: frozenset[str] = frozenset()) -> str | None:
    """The assistant's own account of the error: the first cause-like sentence it wrote next (`_replies`).
    `after_message`: the message that showed the error, when it was the user's (a pasted log): the reply
    of its own round answers it. `about`: the error's own words; when given, a sentence naming none of
    them explains something else (why a debug print showed nothing), not this error."""
    first = after_round - 1 if after_message is not None else after_round
    for _, msg in _replies(transcript, first, after_round, after_message):
        if msg.role is Role.ASSISTANT and msg.text:
            text = _TITLE_LINE.sub("", _THOUGHT.sub("", msg.text.split("```", 1)[0]))
            sentences = _SENTENCE.split(" ".join(text.split()))
            for i, sentence in enumerate(sentences):
                if _states_cause(sentence) and not (sentence.rstrip().endswith((":", "：")) and not _BECAUSE.search(sentence)) \
                        and (not about or _names_any(sentence, about)):
                    if i + 1 < len(sentences) and _REFUTED.match(sentences[i + 1]):
                        continue  # "This is because …? No, …": the agent's own answer rules it out
                    if i and _LIST_OPENER.search(sentences[i - 1]) and _hedged(sentences[i - 1]):
                        continue  # an item of "Possible causes: 1. …" ("可能的原因：1. …"): a candidate, no account
                    sentence = cut(_balanced(sentence.strip()), 200)
                    before = _balanced(sentences[i - 1].strip()) if i and _PRONOUN_OPENS.match(sentence) else ""
                    # "It fails because …": what "it" is, the sentence before says (the failing test's name)
                    return f"{before} {sentence}" if before and len(before) <= 160 else sentence
            return None
    return None


DIAGNOSIS_ROUNDS = 4  # the rounds up to a fix read for what the agent found wrong first
_MARKED = re.compile(r"\s*@[a-z_]+:", re.I)  # a marker's line (`@decision: …`, `@important: …`)


def _diagnosed(transcript: Transcript, last_round: int, fix_round: int, named: frozenset[str] = frozenset()) -> str | None:
    """What the agent said was wrong just before its fix, when its first reply to the error did not say
    (it went looking first): the latest cause-like sentence of the rounds up to the fix's, after the error
    ("I have multiple `@classmethod` decorators … and the docstring is broken (r64)"); not a plan, nor
    where it will look next, nor the words after the user asked something else."""
    rounds = transcript.rounds[max(last_round, fix_round - DIAGNOSIS_ROUNDS):fix_round]
    for rnd in reversed(rounds):
        if any(_asks_anew(m) for m in rnd.messages):
            return None  # the replies answer that ask, not the error
        for msg in reversed(rnd.messages):
            if msg.role is not Role.ASSISTANT or not msg.text or msg.harness:
                continue
            text = _TITLE_LINE.sub("", _THOUGHT.sub("", msg.text.split("```", 1)[0]))
            for sentence in reversed(_SENTENCE.split(" ".join(text.split()))):
                if _MARKED.match(sentence):
                    continue  # a marker the agent set ("@decision: default to sqlite…"): the marked items' line
                if len(sentence) >= 30 and _states_cause(sentence) and not _PLAN.match(sentence) \
                        and not sentence.rstrip().endswith((":", "：", "?", "？")) and not _restates(sentence, named):
                    said = cut(_balanced(sentence.strip()), 200)
                    return f"{said.rstrip('.。')} (r{rnd.number})"
    return None


# Words a sentence may hold beside the error's own and still say nothing of its cause ("Yes, the indentation is wrong")
_EMPTY_WORDS = frozenset({"yes", "indeed", "right", "wrong", "correct", "incorrect", "still", "there", "here", "seems",
                          "looks", "problem", "issue", "broken", "invalid", "again", "actually", "wait", "okay"})


def _restates(sentence: str, named: frozenset[str]) -> bool:
    """Whether a sentence only says the error again: every word of its own is the error's (its name's, its
    message's) or an empty one. Why: "cause: Yes, the indentation is wrong" for an IndentationError tells the
    successor nothing (django's r34, reader review 65)."""
    if not named:
        return False
    own = {w.lower() for w in _TERM_RE.findall(sentence)} - _EMPTY_WORDS - _PLAIN_TERMS
    return all(w in named or any(w in n or n in w for n in named if len(n) >= 5) for w in own)


_TERM_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]{3,}")
_PATH_WORD_RE = re.compile(r"[^\s\"'`()]*[/\\][^\s\"'`()]*")
_PLAIN_TERMS = frozenset({"error", "errors", "file", "line", "lines", "with", "that", "this", "from", "have", "none",
                          "most", "last", "call", "recent", "traceback", "takes", "given", "failed", "expected",
                          "true", "false", "self", "test", "tests"})


def error_terms(rec: ErrorRecord) -> frozenset[str]:
    """The words of an error's last message (its identifiers, the names it quotes), lower-cased, without
    the words every traceback says."""
    last = rec.occurrences[-1]
    text = _PATH_WORD_RE.sub(" ", f"{last.detail or ''} {last.evidence or ''}"[:2000])  # not its traceback's paths
    words = [t.lower() for t in _TERM_RE.findall(text)]
    if last.location.path:  # the erroring file by its name (`reports`), not by its folders (`_pytest`)
        words.append(file_name(last.location.path).rsplit(".", 1)[0].lower())
    words += [p for w in words if "_" in w for p in w.split("_") if len(p) >= 4]  # TLOG_CREATE_ENTRY_ERROR: entry
    return frozenset(w for w in words if w not in _PLAIN_TERMS)


def _id_words(rec: ErrorRecord) -> frozenset[str]:
    """The words of a record's id's name, lower-cased (`ERR_PY_IndentationError` → indentation, error)."""
    return frozenset(w.lower() for w in re.findall(r"[A-Z][a-z]+", rec.id.rsplit("_", 1)[-1]))


def _names_any(sentence: str, terms: frozenset[str]) -> bool:
    """Whether `sentence` says one of `terms` (a word, or part of a dotted or snake-cased name); a sentence
    in another script is taken as naming them: its words are not comparable."""
    if _WIDE_RE.search(sentence):
        return True
    return any(w.lower() in terms or any(p in terms for p in w.lower().split("_"))
               for w in _TERM_RE.findall(sentence))


_PRONOUN_OPENS = re.compile(r"(?:It|This|That)(?:'s)? (?!is because|means)")  # "This is because X": X names it


def _balanced(sentence: str) -> str:
    """A sentence whose code spans a split cut in two, without its backticks; a test's node id by its
    test (`test_bad_url`, not its file, class and parameters: a cut would keep those, not the name)."""
    sentence = _NODE_ID_RE.sub(r"\1", sentence)
    return sentence.replace("`", "") if sentence.count("`") % 2 else sentence


_NODE_ID_RE = re.compile(r"(?<![\w/.-])[\w/.-]+\.py::(?:\w+::)*(\w+)(?:\[[^\]\s`]*\])?")


def _replies(transcript: Transcript, first: int, after_round: int,
             after_message: int | None) -> Iterator[tuple[Round, Message]]:
    """The messages that may answer an error: from the round at index `first` to the one after round
    `after_round`, past message `after_message`, until the user asks something else (a reply to that
    answers it, not the error)."""
    for rnd in transcript.rounds[max(0, first):after_round + 2]:
        for msg in rnd.messages:
            if after_message is not None and msg.index <= after_message:
                continue
            if _asks_anew(msg):
                return
            yield rnd, msg


# a bold title alone on its line: no sentence of the account
_TITLE_LINE = re.compile(r"^[ \t]*\*\*[^*\n]+\*\*[ \t]*$", re.M)


def _users(transcript: Transcript, occ: Occurrence) -> bool:
    """Whether the occurrence is in the user's own words (a log they pasted), not a tool's output."""
    if occ.message is None or occ.source != "text" or not 0 <= occ.message < len(transcript.messages):
        return False
    msg = transcript.messages[occ.message]
    return msg.index == occ.message and msg.role is Role.USER and not msg.harness


# The agent answering its own question in the negative: the cause it asked about is ruled out
_REFUTED = re.compile(r"\s*(?:no|nope|not quite|actually,? no|wait,? no|that(?:'s| is) not it)\s*[,.!;:—]", re.I)
_WORKAROUND = re.compile(r"\b(?:circumvent\w*|work(?:ed|ing)? around|workaround|bypass\w*|sidestep\w*|"
                         r"without (?:needing|calling|using))\b", re.I)
WORKAROUND_CHARS = 200
_STEP_TITLE = re.compile(r"^[A-Z][\w'-]*(?: [A-Za-z][\w'-]*){0,5}: (?=[A-Z])")  # a reasoning step's title ("Bypassing the Block: ")


def _same_tool_success(transcript: Transcript, last: Occurrence, tool: str,
                       cache: _ResultsCache | None) -> tuple[int, ToolCall] | None:
    """(round, call) of the next successful call of the tool that failed, within three rounds after it."""
    for rnd in transcript.rounds[max(0, last.round - 1):last.round + 3]:
        results = _round_results(rnd, cache)
        for msg in rnd.messages:
            if last.message is not None and msg.index <= last.message:
                continue
            for call in msg.tool_calls:
                if call.name == tool and not call.continues and _succeeded(results.get(id(call))):
                    return rnd.number, call
    return None


def _workaround(transcript: Transcript, after_round: int, after_message: int | None) -> str | None:
    """The agent's account of how it did without a failed tool ("I've circumvented the rate limit. A
    successful call to `get_page_visual_overview` provided the frame data"): in its replies or its
    reasoning after the failure (`after_message`), in the failing round and the next, until the user
    asks anew, the sentence that says so, with the next one when it alone says little."""
    for rnd in transcript.rounds[max(0, after_round - 1):after_round + 1]:
        for msg in rnd.messages:
            if after_message is not None and msg.index <= after_message:
                continue  # written before the failure: a plan, not how it went on
            if _asks_anew(msg):
                return None
            if msg.role is not Role.ASSISTANT:
                continue
            for text in (*(t for t in msg.meta.get("thinking") or () if isinstance(t, str)), msg.text or ""):
                if _WORKAROUND.search(text, 0, 8000) is None:
                    continue
                sentences = _SENTENCE.split(" ".join(text[:8000].split()))
                k = next((i for i, x in enumerate(sentences) if _WORKAROUND.search(x)), None)
                if k is None:  # the match spanned a cut the sentence split made
                    continue
                said = _STEP_TITLE.sub("", sentences[k])
                if len(said) < 60 and k + 1 < len(sentences):
                    said += " " + sentences[k + 1]
                return cut(said.replace("`", "") if said.count("`") % 2 else said, WORKAROUND_CHARS)
    return None


_PLAN = re.compile(r"\s*(?:(?:okay|ok|first|now|next|then|so)\b,?\s*)?(?:I will|I'll|let me|let's|I need to|I'm going|I am going)\b",
                   re.I)  # what it will do next, not what went wrong
HEDGE_RE = re.compile(r"\b(?:likely|probably|possibly|perhaps|might|maybe|may be|seems?|I think|I suspect|I guess)\b",
                    re.I)
_HEDGE_CJK = re.compile("可能|也许|或许|似乎|好像|大概|应该是|估计|猜测|怀疑")  # no word boundaries in CJK


def _guessed(text: str) -> bool:
    """Hedged in its words, English or wide ("likely", "I suspect", "可能")."""
    return HEDGE_RE.search(text) is not None or _HEDGE_CJK.search(text) is not None


def _hedged(sentence: str) -> bool:
    """A guess, in English or in wide text ("possible causes", "可能的原因")."""
    return _guessed(sentence) or "possible" in sentence.lower()


MAX_DIAGNOSES = 8  # occurrences of one unresolved record whose following replies are read


def _diagnoses(transcript: Transcript, rec: ErrorRecord) -> list[str]:
    """A refused edit tried again and again without a fix: what the agent said caused it after each
    try (one cause-like sentence per reply of the next two rounds), its refrain (the same sentence
    after several tries: "the old text still doesn't match") left out; at most two, earliest first.
    The one after the last try alone is often a give-up, not a diagnosis."""
    found: list[tuple[str, set[str]]] = []
    seen_rounds: set[int] = set()
    for occ_round in rec.rounds[:MAX_DIAGNOSES]:
        moved_on = False
        for rnd in transcript.rounds[occ_round:occ_round + 2]:
            if moved_on or rnd.number in seen_rounds:
                continue
            seen_rounds.add(rnd.number)
            for msg in rnd.messages:
                if _asks_anew(msg):
                    moved_on = True
                    break
                if msg.role is not Role.ASSISTANT or not msg.text:
                    continue
                text = _THOUGHT.sub("", msg.text.split("```", 1)[0])
                why = next((x.strip() for x in _SENTENCE.split(" ".join(text.split()))
                            if len(x) >= 30 and _CAUSE.search(x) and not _PLAN.match(x)), None)
                if why:
                    why = cut(why.replace("`", "") if why.count("`") % 2 else why, 200)
                    found.append((why, set(re.findall(r"[a-z]{4,}", why.lower()))))
    kept: list[str] = []
    for i, (why, said) in enumerate(found):
        repeats = sum(1 for j, (_, other) in enumerate(found) if j != i and other
                      and len(said & other) * 3 >= 2 * min(len(said), len(other)))
        if repeats == 0 and why not in kept:
            kept.append(why.rstrip("."))
    return kept[:2]


NEW_ASK_WORDS = 8  # a user's message this long asks something of its own ("go on", "try again" do not)
_WIDE_RE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")  # kana, CJK ideographs, hangul


def _asks_anew(msg: Message) -> bool:
    """A request the user typed (not a tool's result nor the harness's text) long enough to be a new
    ask: the replies after it answer that, not the failure before it."""
    if msg.role is not Role.USER or msg.harness or msg.tool_results:
        return False
    if len(msg.text.split(None, NEW_ASK_WORDS)) >= NEW_ASK_WORDS:
        return True
    # written without spaces (Chinese, Japanese): two characters say about what a word does
    return not msg.text.isascii() and len(_WIDE_RE.findall(msg.text[:200])) >= 2 * NEW_ASK_WORDS


EDIT_REFUSED = ("ERR_TOOL_EditRejected", "ERR_TOOL_EditNotFound", "ERR_TOOL_InvalidArgument", "ERR_TOOL_InvalidRange",
                "ERR_TOOL_ReadFirst")
# Of those, the refusals of an edit itself, which end file by file with the edit that went through (not
# a view's bad range, nor an argument the tool did not take)
REFUSED_BY_FILE = ("ERR_TOOL_EditRejected", "ERR_TOOL_EditNotFound", "ERR_TOOL_ReadFirst")
# Failures of the agent's own reply or call, not of the code: an edit of some file made next did not end them
# (a "provide EXACTLY ONE action" complaint was "solved" by editing requests/models.py); the next well-formed
# call did.
_ENDED_BY_THE_NEXT_CALL = ("ERR_TOOL_FormatError", "ERR_TOOL_OutputTooLong", "ERR_TOOL_UnknownTool",
                           "ERR_TOOL_RateLimited", "ERR_TOOL_ContextOverflow", "ERR_TOOL_Timeout")


def _failed(res: ToolResult | None) -> bool:
    """A call that did nothing: an error status, or a tool that refused the edit in its reply's
    opening lines (a linter's rejection, old text not found) while reporting success."""
    if res is None:
        return False
    if res.is_error or res.exit_code not in (None, 0):
        return True
    return any(h.id in EDIT_REFUSED for h in classify((res.content or "")[:400], tool_output=True))


def changed_arguments(failed: ToolCall | None, retry: ToolCall, said: str = "", command_words: bool = False) -> str:
    """What the call that worked did differently from the one that failed, when it is the same tool:
    its short arguments that were added or changed (`end: 296` (was 295), `sandbox_permissions:
    require_escalated`), at most three, but not a text the change `said` shows already; "" when
    nothing short differs. `command_words`: a command rerun says the words it changed too."""
    if failed is None or failed.name != retry.name or not isinstance(retry.arguments, dict):
        return ""
    before = failed.arguments if isinstance(failed.arguments, dict) else {}
    new_command = retry.command != failed.command
    out: list[str] = []
    if command_words and new_command and failed.command and retry.command \
            and (words_changed := command_change(failed.command, retry.command)):
        out.append(words_changed)  # the command's own words that changed: the fix a reader would diff for
    for key, value in retry.arguments.items():
        old = before.get(key)
        if old == value or value == retry.command:
            continue  # the command line itself is shown already
        if new_command and isinstance(value, str) and _LABEL.fullmatch(value):
            continue  # a new command's caption (`description: Find next config`): the command is the change
        now, was = _short(value), _short(old)
        if now is None:  # a multi-line argument (`edit 287:296` + the new text): its first line, when that changed
            now, was = _head_line(value), _head_line(old)
            if now is None or now == was:
                continue
        if said and f"`{now}`" in said:
            continue  # the old or new text of an edit its key change quotes
        out.append(f"`{key}: {now}`" + (f" (was {was})" if was is not None else ""))
    return ", ".join(out[:3])


# Words only, two or more: a caption a person reads, not a setting the tool acts on.
_LABEL = re.compile(r"[A-Za-z][\w'’,.()-]*(?: [\w'’,.()/-]+)+")


def _head_line(value: object) -> str | None:
    """A multi-line string's first line, when short (a command with its input below it)."""
    if not isinstance(value, str) or "\n" not in value:
        return None
    head = value.split("\n", 1)[0].strip()
    return head if 0 < len(head) <= 40 else None


def _short(value: object) -> str | None:
    """A scalar or a list of scalars, as one short line; None for anything longer (code, text)."""
    if isinstance(value, list) and len(value) <= 4 and all(isinstance(v, (int, float, str)) for v in value):
        text = str(value)
    elif isinstance(value, (str, int, float, bool)):
        text = str(value)
    else:
        return None
    return text if len(text) <= 40 and "\n" not in text else None


def _edit_path(call: ToolCall) -> str | None:
    """The file a call edits: a file tool's path, else the first file a shell line edits in place
    (`sed -i -e … f`, `perl -pi`; the shared shell parser, events.shell_writes)."""
    if call.kind in (ToolKind.EDIT, ToolKind.WRITE):
        return call.path or "?"
    if not call.command:
        return None
    return next((path for kind, path in shell_writes(call.command) if kind is EventKind.EDIT), None)


def _written_paths(call: ToolCall) -> list[str]:
    """Files a shell line writes whole from text it carries (`cat <<'EOF' > fix.py`, a script that
    opens a file for writing): an edit of that file when it is the one that failed. Not a redirect of
    a run's output (`pytest > log.txt`): only a line with a heredoc carries the text it writes."""
    if not call.command or "<<" not in call.command:
        return []
    return [path for kind, path in shell_writes(call.command) if kind is EventKind.WRITE]


def _restored_paths(call: ToolCall) -> list[str]:
    """Files a shell line puts back as git has them (`git checkout -- f`, `git restore f`): a change of
    that file, the one that ends an error its broken edit caused."""
    if not call.command or "git" not in call.command:
        return []
    return [path for kind, path in shell_writes(call.command) if kind is EventKind.REVERT]


# The errors an edit itself causes (a splice that broke the file's syntax, an import it cut away)
_EDIT_BREAKS_RE = re.compile(r"SyntaxError|IndentationError|TabError|ImportError|ParseError|CompileError")
# A file an error's message names, with its folder (`(/testbed/lib/matplotlib/offsetbox.py)`)
_NAMED_FILE_RE = re.compile(r"(?<![\w.])(?:[\w.-]+/)+[\w-]+\.[A-Za-z]{1,5}\b")


@dataclass(slots=True)
class Fix:
    """What ended an error: the edit that followed (file, round, its key change) and the first run
    of the failing command after it that succeeded (as it was run)."""

    path: str | None = None
    round: int | None = None
    change: str = ""
    call: ToolCall | None = None
    passed_round: int | None = None
    passed_command: str | None = None
    past_round: int | None = None  # that run failed, but no longer with this error (it ran into another)
    restored: bool = False  # the edit put the file back as git has it (`git checkout -- f`)
    redone_round: int | None = None  # after a restore: the edit that made the change again
    rerun: bool = False  # no edit: the same program run with other arguments no longer printed the error


def _touches(names: frozenset[str], *sides: tuple[str, ...]) -> bool:
    """Whether a change's lines name one of an error's names (`get_draggable`)."""
    return any(name in ln for lines in sides for ln in lines for name in names)


def _change_touches(call: ToolCall, names: frozenset[str]) -> bool:
    """Whether an edit's removed or added lines name one of an error's names."""
    try:
        return any(_touches(names, h.removed, h.added) for c in call_changes(call) for h in c.hunks)
    except (ValueError, TypeError, re.error):
        return False


def key_change(call: ToolCall, result: ToolResult | None = None, before: tuple[str, ...] | None = None,
               names: frozenset[str] = frozenset(),
               reads: Callable[[str], tuple[str, ...] | None] | None = None) -> str:
    """The edit's key change in one short line: its first informative removed and added lines (whole
    lines only; a longer one is named by its definition or left out). An edit whose export kept its
    text only in the `result` (`edits.result_changes`, `edits.shown_text`) is told by that text. A whole
    file written again over content the session showed (`before`, its last whole write) is told by what
    the rewrite changed (`vllm_max_model_length=768` added), not by the definitions both versions hold.
    `reads`: a file's lines as the session wrote it, for a file read in (`sed '369r snippet.py'`)."""
    try:
        changes = call_changes(call)
    except (ValueError, TypeError, re.error):
        return ""
    # `sed '224r new.py'`: a file read in, by the file it went into and the line it went after
    read_in_at = {(c.path, h.context): h.reads_in for c in changes for h in c.hunks if h.reads_in and h.context}
    if reads is not None:
        changes = tuple(read_in(c, reads) for c in changes)
    if not changes and result is not None and result.content and not result.is_error:
        changes = result_changes(call, result.content) if call.path else []
        after = [h for c in changes for h in c.hunks if h.shown and h.context == AFTER_EDIT]
        shown = "\n".join(after[0].shown) if after else "" if changes else shown_text(result.content)
        if shown:  # the text after the edit, its old text unknown: named by a definition it holds, never by
            # its first line (a whole file's first line is no change of it)
            defined = definitions(shown.splitlines())
            return f"new text of `{defined[0]}`" if defined else ""
    # the hunk that touches the error's names first (`ann2.get_draggable()` among three), then a hunk of code
    # before one of comments only (`// MapStruct Mapper definition` removed above the interface that went)
    changes = [replace(c, hunks=tuple(sorted(c.hunks, key=lambda h: (not _touches(names, h.removed, h.added),
                                                                      not _codes(h.removed + h.added,
                                                                                 _hash_comments(c.path))))))
               for c in changes]
    for change in changes:
        hashes = _hash_comments(change.path or call.path)
        for hunk in change.hunks:
            if change.whole:
                if before is not None and (rewritten := _rewrite_change(before, hunk.added, names, hashes)):
                    return rewritten
                defined = definitions(hunk.added)
                return f"wrote {', '.join(f'`{n}`' for n in defined[:4])}" if defined else ""
            if hunk.deletes_matching:
                return f"deleted the lines matching `{hunk.deletes_matching}`"
            if hunk.removed[:1] and hunk.removed[0].startswith("<line(s) "):
                spec = hunk.removed[0][9:-1]
                span = re.fullmatch(r"(\d+),(\d+)", spec)  # sed's `225,312d`: a range, not two lines
                gone = f"lines {span[1]}-{span[2]}" if span else f"line(s) {spec}"
                # `sed -i '225,312d' f && sed -i '224r new.py' f`: the lines replaced by a file's, read in right
                # where they were (after the line before them, in the same file)
                put = read_in_at.get((change.path, f"append at {int(span[1]) - 1}")) if span else None
                if put:
                    return f"replaced {gone} with `{file_name(put)}`"
                return f"deleted {gone}"
            return _line_pair(hunk.removed, hunk.added, hunk.context, hashes)
    return ""


def _line_pair(removed: tuple[str, ...], added: tuple[str, ...], context: str | None = None,
               hashes: bool = False) -> str:
    """`old` → `new`, `added new` or `removed old`: the first informative line of each side; a side
    too long to quote names the definition it is in instead. `hashes`: `#` opens a comment (`_hash_comments`)."""
    old, new = _first_informative(removed, hashes), _first_informative(added, hashes)
    if len(old) > 100 or len(new) > 100:
        names = definitions(added) or ([context] if context else [])
        return f"changed `{names[0]}`" if names else ""
    if old and new:
        return f"`{old}` → `{new}`"
    if new:
        return f"added `{new}`"
    if old:
        return f"removed `{old}`"
    return ""


# A line that is only a comment (`// MapStruct Mapper definition`): the code beside it is the change. `#` is
# left out: a Markdown heading is the change of a document.
_COMMENT_LINE_RE = re.compile(r"^(?://|/\*|\*/?(?:\s|$)|<!--|--\s)")


# A file whose language opens a comment with `#` (Python, shell, Ruby, YAML, TOML, R, Perl, a Makefile)
_HASH_COMMENTS_RE = re.compile(r"(?:\.(?:py|pyi|sh|bash|zsh|rb|ya?ml|toml|r|pl|cfg|ini|conf)|(?:^|/)(?:Makefile|"
                               r"Dockerfile|\.gitignore|\.env\w*))$", re.I)


def _hash_comments(path: str | None) -> bool:
    return bool(path) and _HASH_COMMENTS_RE.search(path or "") is not None


def _comment(line: str, hashes: bool) -> bool:
    return _COMMENT_LINE_RE.match(line) is not None or hashes and line.startswith("#")


def _codes(lines: tuple[str, ...], hashes: bool = False) -> bool:
    """Whether a hunk's lines hold a line of code, not only comments and short lines."""
    return any(len(ln.strip()) > 2 and not _comment(ln.strip(), hashes) for ln in lines)


def _first_informative(lines: tuple[str, ...], hashes: bool = False) -> str:
    """A side's first line longer than two characters that is code, else its first such line."""
    said = [ln.strip() for ln in lines if len(ln.strip()) > 2]
    code = [ln for ln in said if not _comment(ln, hashes)]
    # an import serves the logic beside it: that logic's line tells the change
    return next((ln for ln in code if not _IMPORT_LINE.match(ln)), code[0] if code else said[0] if said else "")


REWRITE_DIFF_LINES = 4000  # a longer file's rewrite is told by its definitions: the diff is not worth its time
REWRITE_DIFF_CELLS = 250_000  # changed lines × changed lines compared at most (difflib is quadratic in them)
SIMILAR_LINES = 40  # added lines compared with the removed one
SIMILAR_CHARS = 200  # a longer added line is no line `_line_pair` would quote
SIMILAR_RATIO = 0.6


def _rewrite_change(before: tuple[str, ...], after: tuple[str, ...], names: frozenset[str] = frozenset(),
                    hashes: bool = False) -> str:
    """What a file's rewrite changed, said as `_line_pair` says an edit: a change that touches one of the
    error's `names` first, then a line it changed before a line it added (a debug print last), before a
    line it removed. A line that only moved is no change."""
    if not before or len(before) + len(after) > REWRITE_DIFF_LINES or before == after:
        return ""
    old_keys, new_keys = [ln.strip() for ln in before], [ln.strip() for ln in after]
    kept_old, kept_new = set(old_keys), set(new_keys)
    head = 0  # the lines both versions open and close with are no change: only the middles are compared
    while head < min(len(old_keys), len(new_keys)) and old_keys[head] == new_keys[head]:
        head += 1
    tail = 0
    while tail < min(len(old_keys), len(new_keys)) - head and old_keys[-1 - tail] == new_keys[-1 - tail]:
        tail += 1
    old_mid, new_mid = old_keys[head:len(old_keys) - tail], new_keys[head:len(new_keys) - tail]
    if len(old_mid) * len(new_mid) > REWRITE_DIFF_CELLS:  # a rewrite of everything: its definitions tell it
        return ""
    best: tuple[int, int, tuple[str, ...], tuple[str, ...]] | None = None
    matcher = difflib.SequenceMatcher(None, old_mid, new_mid, autojunk=False)
    for order, (tag, i1, i2, j1, j2) in enumerate(matcher.get_opcodes()):
        if tag == "equal":
            continue
        removed = tuple(ln for ln in before[head + i1:head + i2] if ln.strip() not in kept_new)
        added = tuple(ln for ln in after[head + j1:head + j2] if ln.strip() not in kept_old)
        if names and _touches(names, removed):  # the removed line naming the error first: its new form follows
            removed = tuple(sorted(removed, key=lambda ln: not _touches(names, (ln,))))
        said = _line_pair(removed, added, hashes=hashes)
        if not said:
            continue
        rank = 0 if said.startswith("`") else 2 if said.startswith("removed") else \
            3 if all(_DEBUG_LINE.match(ln) or len(ln.strip()) <= 2 for ln in added) else 1
        if not _codes(removed + added, hashes):  # a comment says what the code does; the code is the change
            rank += 4
        elif all(_IMPORT_LINE.match(ln) for ln in removed + added if ln.strip()):  # it serves the logic that changed
            rank += 2
        if names and _touches(names, removed, added):
            rank -= 4
        if best is None or (rank, order) < best[:2]:
            best = (rank, order, removed, added)
    # the chosen run's new form: the added line most like the removed one (compared once, for it alone)
    return _line_pair(best[2], _closest_first(best[2], best[3], hashes), hashes=hashes) if best else ""


# An import of Python, JavaScript/TypeScript, Go, Java, C/C++ or Rust
_IMPORT_LINE = re.compile(r"\s*(?:from\s+\S+\s+import\b|import\b|#\s*include\b|use\s+[\w:]+|require\(|"
                          r"(?:const|let|var)\s+[\w{}, ]+=\s*require\()")


def _closest_first(removed: tuple[str, ...], added: tuple[str, ...], hashes: bool = False) -> tuple[str, ...]:
    """`added` with the line most like the first informative removed one first (a condition rewritten
    among debug prints the rewrite added around it), when it is alike enough to be its new form."""
    old = _first_informative(removed, hashes)
    if not old or len(added) < 2:
        return added
    matcher = difflib.SequenceMatcher(None, autojunk=False)
    matcher.set_seq2(old)  # what it learns of the removed line is kept for every candidate
    best, best_ratio = 0, -1.0
    for i, line in enumerate(added[:SIMILAR_LINES]):
        if len(line) > SIMILAR_CHARS:
            continue
        matcher.set_seq1(line.strip())
        if matcher.real_quick_ratio() <= best_ratio or matcher.quick_ratio() <= best_ratio:
            continue  # the bounds say it cannot beat the best so far
        ratio = matcher.ratio()
        if ratio > best_ratio:
            best, best_ratio = i, ratio
    if best_ratio < SIMILAR_RATIO:  # none is its new form: a call replaced, by the first added line that calls
        calls = _CALLS_RE.search(old) is not None
        best = next((i for i, line in enumerate(added) if calls and _CALLS_RE.search(line.strip())
                     and not _COMMENT_LINE_RE.match(line.strip()) and not line.strip().startswith("#")), 0)
    if best == 0:
        return added
    return (added[best], *added[:best], *added[best + 1:])


_CALLS_RE = re.compile(r"[\w\]\)]\(")


_PRINT_CALL = r"print\(|console\.(?:log|debug)\(|fmt\.Print|System\.out\.print"  # a debug print, in any language
_DEBUG_LINE = re.compile(r"\s*(?:" + _PRINT_CALL + r"|echo |puts )")


_DEBUG_MARK_RE = re.compile(r"(?i)debug|print|console\.log|trace")


def _removes_debugging(call: ToolCall) -> bool:
    """An edit that only deletes debug output (`sed -i '/DEBUG:/d'`, removed `print(…)` lines): a cleanup."""
    try:
        hunks = [h for c in call_changes(call) for h in c.hunks]
    except (ValueError, TypeError, re.error):
        return False
    return bool(hunks) and all(
        not h.added and (h.deletes_matching and _DEBUG_MARK_RE.search(h.deletes_matching)
                         or h.removed and all(_DEBUG_LINE.match(ln) or not ln.strip() for ln in h.removed))
        for h in hunks)


def _put_back(transcript: Transcript, fix: Fix) -> int | None:
    """The round where a later edit added again the lines the fix removed: the fix was a probe (the
    change taken out to see the tests without it), not what ended the error for good."""
    if fix.call is None or fix.round is None:
        return None
    try:
        hunks = [h for c in call_changes(fix.call) for h in c.hunks]
    except (ValueError, TypeError, re.error):
        return None
    gone = {ln.strip() for h in hunks if not h.added for ln in (*h.removed, h.deletes_matching or "")
            if len(ln.strip()) >= 12 and not ln.startswith("<line(s) ")}
    if not gone:
        return None
    for rnd in transcript.rounds[fix.round:fix.round + 40]:
        for msg in rnd.messages:
            for call in msg.tool_calls:
                if call is fix.call or not (path := _edit_path(call)) or not fix.path or not same_file(path, fix.path):
                    continue
                try:
                    added = {ln.strip() for c in call_changes(call) for h in c.hunks for ln in h.added}
                except (ValueError, TypeError, re.error):
                    continue
                if gone & added:
                    return rnd.number
    return None


@dataclass(slots=True)
class _Timeline:
    """Each file's changes in the session, in order: (place among all, round, restored?, path, call) by file
    name, and each call's place. Read once per scan: every record's solution looks its fix up here."""

    by_name: dict[str, list[tuple[int, int, bool, str, ToolCall]]]
    place: dict[int, int]  # id(call) -> its place


# a line that applies the change again after putting the file back (`git checkout f && git apply p`)
_REAPPLIED_RE = re.compile(r"\bgit\s+(?:apply|stash\s+pop|cherry-pick)\b|\bpatch\s+-p")


def file_timeline(transcript: Transcript) -> _Timeline:
    """Every edit of a file and every line that put one back as git has it (`git checkout f`), in order;
    a restore that failed (`error: pathspec 'f' did not match`) put nothing back."""
    timeline = _Timeline({}, {})
    for rnd in transcript.rounds:
        results: dict[int, ToolResult | None] | None = None
        for msg in rnd.messages:
            for call in msg.tool_calls:
                path = _edit_path(call)
                changed = [(False, path)] if path else [(True, p) for p in _restored_paths(call)] \
                    if call.command and "git" in call.command else []
                if changed and changed[0][0]:
                    results = results if results is not None else results_of_calls(rnd.messages)
                    res = results.get(id(call))
                    if _failed(res) or res is not None and "did not match any file" in (res.content or "") \
                            or _REAPPLIED_RE.search(call.command or ""):
                        continue  # failed, or the line applies the change again (`git checkout f && git apply p`)
                for restored, p in changed:
                    k = len(timeline.place)
                    timeline.place.setdefault(id(call), k)
                    timeline.by_name.setdefault(file_name(p), []).append((k, rnd.number, restored, p, call))
    return timeline


class _LazyTimeline:
    """`file_timeline` of one transcript, read on first use: most scans have no fix it is asked about."""

    def __init__(self, transcript: Transcript) -> None:
        self._transcript = transcript
        self._timeline: _Timeline | None = None

    def get(self) -> _Timeline:
        if self._timeline is None:
            self._timeline = file_timeline(self._transcript)
        return self._timeline


def _later_changes(fix: Fix, timeline: _Timeline) -> list[tuple[int, bool, ToolCall]]:
    """(round, whether it put the file back as git has it, call) of each change of the fixed file after
    the fix, in order."""
    if fix.call is None or fix.round is None or not fix.path:
        return []
    after = timeline.place.get(id(fix.call))
    if after is None:
        return []
    return [(rnd, restored, call) for k, rnd, restored, path, call in timeline.by_name.get(file_name(fix.path), ())
            if k > after and same_file(path, fix.path)]


def _undone_later(fix: Fix, timeline: _Timeline) -> tuple[int, str] | None:
    """(round, command) of a later line that put the fixed file back as git has it (`git checkout f`),
    with no edit of that file after it: the fix did not survive, whatever it ended at the time
    (mini-requests: IDNA for every host, reverted; a restore then the same change again is no undoing)."""
    undone: tuple[int, str] | None = None
    for rnd, restored, call in _later_changes(fix, timeline):
        if restored:
            undone = (rnd, call.command or "")
        elif undone is not None:
            return None  # changed again after it was put back
    return undone


def _redone_later(fix: Fix, timeline: _Timeline) -> tuple[int, str, list[int]] | None:
    """(round, command, rounds) of a later line that put the fixed file back as git has it, and of the
    edits of that file after it, up to the run that passed: the fix as it stands is among those (sympy:
    `__ne__` deleted at r92, `git checkout` at r103, edited at r104 and deleted again at r107), not the
    one the error's runs first followed."""
    undone: tuple[int, str] | None = None
    again: list[int] = []
    for rnd, restored, call in _later_changes(fix, timeline):
        if restored:
            undone, again = (rnd, call.command or ""), []
        elif undone is not None and (fix.passed_round is None or rnd <= fix.passed_round) and rnd not in again:
            again.append(rnd)
    return (undone[0], undone[1], again) if undone is not None and again else None


def earlier_content(transcript: Transcript, path: str, call: ToolCall) -> tuple[str, ...] | None:
    """The whole content the session last wrote to `path` before `call` (a write, a heredoc), when no
    in-place edit of it came in between; None when unknown."""
    name = file_name(path)
    content: tuple[str, ...] | None = None
    for msg in transcript.messages:
        for c in msg.tool_calls:
            if c is call:
                return content
            if not _may_name(c, name):
                continue
            edited = _edit_path(c)
            named = [edited] if edited else _written_paths(c)
            heredocs = bool(c.command and "<<" in c.command)  # a line may write several files, each its own text
            if not heredocs and not any(same_file(p, path) for p in named):
                continue
            if isinstance(c.arguments, dict) and arg_text(c.arguments, ArgRole.OLD) or c.command and any(
                    same_file(m.group(1), path) for m in _APPENDS_RE.finditer(c.command)):
                content = None  # an in-place edit or an append: the whole content is no longer known
                continue
            try:
                mine = [ch for ch in call_changes(c) if same_file(ch.path or (named[0] if named else ""), path)]
            except (ValueError, TypeError, re.error):
                mine = []
            if not mine and not any(same_file(p, path) for p in named):
                continue  # the line wrote other files
            whole = [ch for ch in mine if ch.whole and ch.hunks]
            content = whole[-1].hunks[0].added if whole else None
    return None


_APPENDS_RE = re.compile(r">>\s*['\"]?([^\s'\";&|]+)")  # `cat >> notes.md <<EOF`: adds to it, does not write it whole


def _may_name(call: ToolCall, name: str) -> bool:
    """Whether a call can be about the file `name`: its path, its command or one of its text arguments
    holds the name (a quick test before the command is parsed)."""
    if name in (call.path or "") or name in (call.command or ""):
        return True
    args = call.arguments
    return isinstance(args, dict) and any(isinstance(v, str) and name in v for v in args.values())


def _succeeded(res: ToolResult | None) -> bool:
    """A run that ended well: no error status, no failed test in its summary, and no traceback or
    exception line of its own (an export without exit codes shows a crash only in its output)."""
    if res is None or res.is_error or res.exit_code not in (None, 0):
        return False
    content = res.content or ""
    summary = parse_test_summary(content)
    if summary and re.search(r"\b[1-9]\d* (?:failed|errors?)\b|FAILED", summary):
        return False
    if res.exit_code is not None:  # a status of 0 says it ended well, whatever a log line in it says
        return True
    return not ("Traceback" in content or "Error: " in content or "Exception: " in content) \
        or _CRASH_RE.search(content) is None


# A crash in a run's own output: Python's traceback header, or an exception's line at a line's start
_CRASH_RE = re.compile(r"^(?:Traceback \(most recent call last\):|[A-Za-z_][\w.]*(?:Error|Exception): )", re.M)


class _ResultsCache(dict[int, dict[int, ToolResult | None]]):
    """Each round's calls paired with their results (by id of the round), once per scan; and what the
    scan's walk found of the calls: the files each run of the session's own script rewrote, a line-range
    edit as its old/new pair, the files the session created, the shell edits that changed nothing."""

    def __init__(self) -> None:
        super().__init__()
        self.script_edits: dict[int, list[str]] = {}
        self.viewed: dict[int, ToolCall] = {}
        self.created: set[str] = set()
        self.no_effect: frozenset[tuple[int, str]] = frozenset()
        self.inferred_paths: dict[str, str] = {}  # call id → the file a path-less edit changed (its content named it)
        self.not_ours: list[tuple[int, str]] | None = None  # `_not_ours_sentences`, read when a record first asks
        self.runs: list[tuple[int, str, bool]] | None = None  # `_runs`, read when a record first asks


def _round_results(rnd: Round, cache: _ResultsCache | None) -> dict[int, ToolResult | None]:
    """`results_of_calls` for one round, computed once per scan when a cache is given."""
    if cache is None:
        return results_of_calls(rnd.messages)
    found = cache.get(rnd.number)
    if found is None:
        found = cache[rnd.number] = results_of_calls(rnd.messages)
    return found


def _fix_after(transcript: Transcript, rec: ErrorRecord, start: int, cache: _ResultsCache | None = None,
               until: tuple[int, int | None] | None = None, latest: bool = False) -> Fix:
    """The edit and the passing re-run that ended the error: an edit of the erroring file (the file its
    location names, else the one script its command ran; a heredoc that rewrites it counts) within 20
    rounds of its last occurrence (an agent may look around for a dozen rounds first), else an in-place
    edit of another file within the next two rounds (a later unrelated edit did not end this error),
    else, when the very command that failed passed within ten rounds, the last edit before that run.
    `until`: (round, message) where the next failure showed: an earlier failure's fix came before it;
    `latest`: the run there passed the failing test, so the edits up to it are candidates, the one touching
    the error's names first, else the last (the one the passing run followed)."""
    last = rec.occurrences[-1]
    cmd_key = _norm_command(last.location.command)
    # A run whose own script failed names that script (not for a malformed reply or call: its form failed)
    ended_by_next = rec.id in _ENDED_BY_THE_NEXT_CALL
    scripts = set() if ended_by_next or last.location.path else scripts_run(last.location.command or "")
    want = file_name(last.location.path) if last.location.path else next(iter(scripts)) if len(scripts) == 1 else None
    # the files its message names count as its own (`cannot import name 'X' from 'm' (/repo/m.py)`)
    wanted = {want, *(file_name(p) for p in _NAMED_FILE_RE.findall(last.detail or ""))} - {None}
    broke = _EDIT_BREAKS_RE.search(rec.id) is not None
    # (round, file, call, result, in place) of each change to a file, in the order the calls were made: an
    # in-place edit or a file tool's, or a whole file a shell line wrote from text it carries (a heredoc)
    changes: list[tuple[int, str, ToolCall, ToolResult | None, bool]] = []
    reruns: list[tuple[int, str, bool, ToolResult | None]] = []
    runs: dict[int, ToolResult | None] = {}  # each change (by its place in `changes`) → the output of the next run
    as_run = " ".join((last.location.command or "").split())
    file_runs = _file_runs(last.location.command) if last.location.command and not ended_by_next else frozenset()
    variants: list[tuple[int, int, ToolCall, ToolResult | None]] = []  # the same program run otherwise: (order, round, …)
    order: dict[int, int] = {}  # each call (by id) → its place among the calls
    for rnd in transcript.rounds[start:start + 20 if until is None else min(start + 20, until[0])]:
        results = _round_results(rnd, cache)
        for msg in rnd.messages:
            if until is not None and until[1] is not None and msg.index >= until[1]:
                break
            for call in msg.tool_calls:
                order[id(call)] = len(order)
                if call.continues:
                    continue  # more output of a run already counted: no run again
                if cache is not None and call.command and (msg.index, call.command.strip()) in cache.no_effect:
                    continue  # a substitution whose line held no such text (the events' line views): no edit
                path = _edit_path(call)
                if path == "?" and cache is not None and call.id:  # an export that kept no file name
                    path = cache.inferred_paths.get(call.id, path)
                if path:
                    res = results.get(id(call))
                    # A file tool's failed edit changed nothing (nor a block aider never applied); a shell
                    # line's edit ran even when a later part of the line (the build it chains) failed.
                    if call.command or not (_failed(res) or unapplied_block(msg, call, results)):
                        changes.append((rnd.number, path, call, res, True))
                    continue
                if call.command and call.kind is ToolKind.SHELL:
                    for k in range(len(changes) - 1, -1, -1):  # the changes no run has followed yet
                        if k in runs:
                            break
                        runs[k] = results.get(id(call))
                if file_runs and call.command and " ".join(call.command.split()) != as_run \
                        and _runs_again(file_runs, _file_runs(call.command)):
                    variants.append((order[id(call)], rnd.number, call, results.get(id(call))))
                if cmd_key and _norm_command(call.command) == cmd_key:
                    res = results.get(id(call))
                    reruns.append((rnd.number, call.command or "", _succeeded(res), res))
                else:
                    changes += [(rnd.number, p, call, results.get(id(call)), False) for p in _written_paths(call)]
                    if cache is not None and id(call) in cache.script_edits and _succeeded(results.get(id(call))):
                        # its script rewrote the file in place (a run that failed may have stopped before)
                        changes += [(rnd.number, p, call, results.get(id(call)), True)
                                    for p in cache.script_edits[id(call)]]
                    if broke:  # an error an edit caused: putting the file back ends it
                        changes += [(rnd.number, p, call, results.get(id(call)), True) for p in _restored_paths(call)]
    said = _said_again(last)
    changes = [c for k, c in enumerate(changes) if not _failed_attempt(c[1], runs.get(k), said)] or changes
    changes = [c for c in changes if not _removes_debugging(c[2])]  # a cleanup of debug prints ends no error
    same = [c for c in changes if file_name(c[1]) in wanted]
    # another file, but right after the error (not for a malformed reply or call: no edit ends those)
    near = [] if ended_by_next else [c for c in changes if c[4] and c[0] <= start + 2]
    # the very command ran again and passed, or ran past this error into another (a reproduction's next failure)
    again = next((r for r, c, ok, res in reruns if r <= start + 10 and " ".join(c.split()) == as_run
                  and (ok or _ran_past(res, said))), None)
    if not (same or near) and again and not ended_by_next:
        # The very command that failed passed later: the last change before that run ended it.
        near = [c for c in reversed(changes) if c[0] <= again][:1]
    first_edit = order[id((same or near)[0][2])] if same or near else len(order)
    said_before = said or (last.detail or "").strip()
    rerun = None if _ENDS_ITSELF_RE.search(rec.id) else next(
        (v for v in variants if v[0] < first_edit and _printed(v[3]) and said_before
         and said_before not in v[3].content and _runs_whole(v[2].command or "")), None)
    if rerun is not None:  # run again otherwise (`javac -cp classes` for a missing jar), it no longer said it
        return Fix(None, rerun[1], "", call=rerun[2], rerun=True, passed_round=rerun[1] if _succeeded(rerun[3]) else None)
    names = frozenset(w for w in _CODE_SHAPED.findall(last.detail or "") if not w.endswith(("Error", "Exception")))
    if until is not None and latest:  # a test that then passed: the change before that run touching its names, else the last
        pool = same or [c for c in changes if c[4]]
        near = [next((c for c in reversed(pool) if names and _change_touches(c[2], names)), pool[-1])] if pool else []
        same = []
    if not (same or near):
        return Fix()
    edit_round, edit_path, call, res, _ = (same or near)[0]
    before = earlier_content(transcript, edit_path, call) if edit_path != "?" else None
    restored = edit_path in _restored_paths(call)
    told = cache.viewed.get(id(call), call) if cache is not None else call  # a line-range edit: what it replaced
    fix = Fix(None if edit_path == "?" else edit_path, edit_round,
              "" if restored else key_change(told, res, before, names, lambda p: earlier_content(transcript, p, call)),
              call=call, restored=restored)
    # the first run of the failing command after the edit: passed, or ran past this error into another
    first = next(((r, c, ok, res) for r, c, ok, res in reruns if r >= edit_round), None)
    # (a script that printed a traceback and exited 0, having caught it, did not pass)
    passed = (first[0], first[1]) if first and first[2] and not _raised(first[3]) else None
    if passed:
        fix.passed_round, fix.passed_command = passed
    elif first and _ran_past(first[3], said):
        fix.past_round, fix.passed_command = first[0], first[1]
    if restored:  # put back, then the change made again properly: both are the fix
        redo = next((c for c in changes if order[id(c[2])] > order[id(call)] and c[4] and file_name(c[1]) ==
                     file_name(edit_path) and (not passed or c[0] <= passed[0])), None)
        if redo is not None:
            fix.redone_round = redo[0]
            fix.change = key_change(redo[2], redo[3], earlier_content(transcript, redo[1], redo[2]))
    return fix


def _raised(res: ToolResult | None) -> bool:
    """A run that printed a Python traceback and no test runner's summary: a script that caught an
    exception and printed it (its exit status says success; the run did not pass)."""
    return res is not None and "Traceback (most recent call last)" in res.content \
        and parse_test_summary(res.content) is None


def _ran_past(res: ToolResult | None, said: str) -> bool:
    """Whether a failed run printed something, but not the error's own line: it got past that error
    (a run the user denied or that was cancelled never ran)."""
    return bool(said) and res is not None and bool(res.content) and said not in res.content \
        and _NOT_RUN_RE.search(res.content[:300]) is None


_NOT_RUN_RE = re.compile(r"(?i)\b(?:denied|cancel+ed|rejected|aborted|interrupted|not (?:run|executed))\b")


_OPERAND_FILE_RE = re.compile(r"[\w.-]+\.[A-Za-z]\w{0,5}$")


# Errors a rerun's absence does not show ended: a timeout, a kill (the next run may simply be shorter)
_ENDS_ITSELF_RE = re.compile(r"Timeout|TimedOut|Killed|Interrupted")
_NO_OUTPUT = ("", "(no output)")


def _printed(res: ToolResult | None) -> bool:
    """Whether a run printed anything of its own (not an export's "(no output)")."""
    return res is not None and res.content.strip() not in _NO_OUTPUT


def _runs_whole(command: str) -> bool:
    """A run whose output is all there to read: not cut by a pipe (`| head -6` hides the error), not sent
    to a file, not sent to the background (`nohup … &` prints nothing of the run)."""
    plain = blank_quotes(command).replace("2>&1", "")  # stderr joined to the output is still read
    return "|" not in plain and ">" not in plain and not plain.rstrip().endswith("&")


@per_text(maxsize=1024)
def _file_runs(command: str) -> frozenset[tuple[str, frozenset[str]]]:
    """(program, the names of the files it works on) of each simple command of a line that names files
    (`javac -cp x.jar -d out Repro.java`: `("javac", {"Repro.java"})`); not a look at a file (`sed -n`,
    `cat`): looking again fixes nothing."""
    out = set()
    for part in split_commands(command):
        said = unredirected(run_words(part))[0]
        files = frozenset(file_name(w) for w in said[1:] if not w.startswith("-") and _OPERAND_FILE_RE.search(w))
        if files and not files <= {file_name(p) for p in shell_reads(part)}:
            program = said[0].rsplit("/", 1)[-1]
            if "-m" in said[1:-1]:  # `python -m pytest t.py` and `python t.py` are two programs
                program += " -m " + said[said.index("-m") + 1]
            out.add((program, files))
    return frozenset(out)


def _runs_again(failed: frozenset[tuple[str, frozenset[str]]], later: frozenset[tuple[str, frozenset[str]]]) -> bool:
    """Whether a later line runs a program of the failed line on a file it worked on (with other options,
    another classpath: the failed line itself is told apart by the caller)."""
    return any(p == q and not files.isdisjoint(others) for p, files in failed for q, others in later)


# A run's output that says the file an edit just touched no longer parses: that edit broke it.
_BROKEN_FILE_RE = re.compile(r"\b(?:SyntaxError|IndentationError|TabError|ParseError|error TS1\d{3})\b")


def _failed_attempt(path: str, after: ToolResult | None, said: str) -> bool:
    """An edit the next run showed did not end the error: that run printed the error again, or said
    the edited file no longer parses (a splice at the wrong line). Its fix is a later edit."""
    if after is None or not after.content:
        return False
    content = after.content
    if said and said in content:
        return True
    name = file_name(path)
    return bool(name) and name in content and _BROKEN_FILE_RE.search(content) is not None


def _next_success(transcript: Transcript, rec: ErrorRecord, start: int,
                  cache: _ResultsCache | None = None) -> tuple[int, str, ToolCall | None] | None:
    """Without an edit that ended it: the first run, within three rounds, of the same program (`ls`,
    `mvn`, `python`…) that succeeded — the corrected path, the retry — or within six, of the same
    program and first argument (`COREPACK_ENABLE_PROJECT_SPEC=0 pnpm --version` after looking around);
    for a tool's failure without a command line (a file tool, the model's API), the next read or command
    that succeeded, or the next reply (an error in the code ends with an edit: none of these). A run that
    prints the error again did not succeed, whatever its status."""
    last = rec.occurrences[-1]
    command = last.location.command
    program = (program_of(command) or None) if command else None
    if program is None and rec.family != "TOOL":
        return None  # an error in the code (an editor's diagnostic) ends with an edit, not with the next read
    said = _said_again(last)
    call_of = _program_call(command) if command else None
    for rnd in transcript.rounds[start:start + 6]:
        near = rnd.number <= start + 3
        results = _round_results(rnd, cache)
        for msg in rnd.messages:
            for call in msg.tool_calls:
                res = results.get(id(call))
                if call.continues or not _succeeded(res) or said and said in (res.content or ""):  # a pipe hid
                    continue  # its status; more output of a run is no run again
                if program and call.command and (program_of(call.command) == program if near
                                                 else _program_call(call.command) == call_of):
                    return rnd.number, f"`{_as_run(call.command)}`", call
                if near and not program and call.kind in (ToolKind.READ, ToolKind.SEARCH, ToolKind.SHELL):
                    what = call.command or " ".join(x for x in (call.name, call.path) if x)
                    return rnd.number, f"`{_as_run(what)}`", call
            if not near:
                continue
            if not program and msg.role is Role.ASSISTANT and msg.text.strip() and not msg.tool_calls:
                return rnd.number, "the next reply", None  # a failed model or tool call: the session went on
    return None


def _still_reproduced(transcript: Transcript, rec: ErrorRecord, cache: _ResultsCache | None = None) -> str:
    """A target bug its reproduction still printed after the session's edits of other files (the fix):
    said so, with the last of those edits. Why: a reproduction whose tests raise the bug's exception by
    design prints it after the fix too, and "no fix seen" would send a successor to fix it again."""
    last = rec.occurrences[-1]
    own = scripts_run(last.location.command or "")
    edited: tuple[int, str] | None = None
    for rnd in transcript.rounds[:last.round]:
        results = _round_results(rnd, cache)
        for msg in rnd.messages:
            for call in msg.tool_calls:
                path = _edit_path(call)
                if path and file_name(path) not in own and not _failed(results.get(id(call))) \
                        and not _REPRO_NAME.search(path):
                    edited = (rnd.number, file_name(path))
    if edited is None or edited[0] <= rec.occurrences[0].round:
        return ""
    said = f"still printed by the reproduction's last run (r{last.round}), after the edit of `{edited[1]}` (r{edited[0]})"
    first = next((o for o in rec.occurrences if o.round < edited[0] and o.source != "text"
                  and o.location.command == last.location.command), None)  # the same run, before the fix
    if first is not None and (new := _new_error_lines(_scanned_text(transcript, first), _scanned_text(transcript, last))):
        said += f", but that run prints what the first (r{first.round}) did not: " + ", ".join(f"`{x}`" for x in new)
    return said


NEW_LINES_SHOWN = 3
_ERROR_LINE_RE = re.compile(r"^\W*(?:E\s+)?([A-Z]\w*(?:Error|Exception|Warning)\b.{0,60}|"
                            r"The above exception .{0,60}|During handling of the above exception.{0,40})$", re.M)


def _new_error_lines(before: str, after: str) -> list[str]:
    """The error lines of a reproduction's later run that its first run lacked (a chain of causes where one
    error stood: `ValueError: 11`, "The above exception was the direct cause…"). Why: a reproduction that
    raises by design prints its error after the fix too; what changed in it is the fix's effect."""
    seen = {_ADDRESS_RE.sub("0x…", m.group(1).strip()) for m in _ERROR_LINE_RE.finditer(before)}
    out: list[str] = []
    for m in _ERROR_LINE_RE.finditer(after):
        line = m.group(1).strip()
        if _ADDRESS_RE.sub("0x…", line) not in seen and line not in out:  # an object's address differs run to run
            out.append(line)
    return out[:NEW_LINES_SHOWN] if seen else []


_ADDRESS_RE = re.compile(r"\b0x[0-9a-fA-F]{4,}\b")


def _scanned_text(transcript: Transcript, occ: Occurrence) -> str:
    """The text an occurrence was found in: its message's text, or the tool result it names."""
    if occ.message is None or not 0 <= occ.message < len(transcript.messages):
        return ""
    msg = transcript.messages[occ.message]
    if msg.index != occ.message:
        msg = next((m for m in transcript.messages if m.index == occ.message), msg)
    if occ.source.startswith("result:"):
        i = occ.result_index()
        return msg.tool_results[i].content if i is not None and i < len(msg.tool_results) else ""
    return msg.text


def _repro_passed(transcript: Transcript, rec: ErrorRecord, cache: _ResultsCache | None = None) -> str:
    """A target bug no later run printed again: the first run of a reproduction script (its own or a
    later version, `reproduction_script_v2.py`) that ended well after the last edit of the work (an
    earlier clean run may have tried a change later reverted; a later one may check another case, as a
    `reproduction_script_default.py` that checks the default is unchanged)."""
    last = rec.occurrences[-1]
    said = _said_again(last)
    edited = False
    found = ""
    for rnd in transcript.rounds[last.round:]:
        results = _round_results(rnd, cache)
        for msg in rnd.messages:
            for call in msg.tool_calls:
                path = _edit_path(call)
                if path and not _REPRO_NAME.search(path) and not _failed(results.get(id(call))):
                    edited, found = True, ""
                elif edited and not found and call.command and not call.continues \
                        and any(_REPRO_NAME.search(n) for n in scripts_run(call.command)):
                    res = results.get(id(call))
                    if _succeeded(res) and res is not None and res.content.strip() and not (said and said in res.content) \
                            and not _raised(res):
                        printed = _last_printed(res.content)
                        found = f"then the reproduction `{_as_run(call.command)}` ran clean (r{rnd.number})" + (
                            f", printing `{printed}`" if printed else "")  # what it printed: a caught error reads as one
    return found


PRINTED_CHARS = 100


def _last_printed(output: str) -> str:
    """The output's last line, when short enough to quote whole (one without backticks): a script that
    catches the error prints it and exits 0, and "ran clean" alone would read as the call succeeding."""
    line = next((ln.strip() for ln in reversed(output.strip().splitlines()) if ln.strip()), "")
    return line if len(line) <= PRINTED_CHARS and "`" not in line else ""


LATER_PASS_ROUNDS = 40  # an agent may investigate for dozens of rounds before the step that ends a failure


def _passed_later(transcript: Transcript, rec: ErrorRecord, start: int, cache: _ResultsCache | None = None) -> str:
    """With no edit close after it: the very command that failed, run again later and passing, and the
    step that came just before that run (a build of a stale package, an install, an edit), with the
    agent's words at that step. Why: "no fix seen" said of a check that later passed is false, and the
    step that made it pass is what a successor has to repeat."""
    last = rec.occurrences[-1]
    key = " ".join((last.location.command or "").split())  # the very line (`npm run build` is not `npm run check`)
    if not key or rec.id in _ENDED_BY_THE_NEXT_CALL:
        return ""
    said = _said_again(last)
    step: tuple[int, str, str] | None = None  # (round, what was done, what the agent said it was doing)
    for rnd in transcript.rounds[start:start + LATER_PASS_ROUNDS]:
        results = _round_results(rnd, cache)
        for msg in rnd.messages:
            for call in msg.tool_calls:
                if call.command and not call.continues and " ".join(call.command.split()) == key:
                    res = results.get(id(call))
                    if not _succeeded(res) or said and said in (res.content or "") or step is None or _raised(res):
                        return ""  # failed again (it is a later failure), or passed with nothing done first
                    how = f" — “{step[2]}”" if step[2] else ""
                    return f"then `{_as_run(call.command)}` passed (r{rnd.number}) after {step[1]} (r{step[0]}){how}"
                path = _edit_path(call)
                if path and not _failed(results.get(id(call))):
                    step = (rnd.number, f"an edit of `{file_name(path)}`", _step_words(msg))
                elif call.command and call.kind is ToolKind.SHELL and is_state_changing(call.command) \
                        and _succeeded(results.get(id(call))):
                    step = (rnd.number, f"`{_as_run(call.command)}`", _step_words(msg))
    return ""


def _not_seen_again(transcript: Transcript, rec: ErrorRecord, start: int, cache: _ResultsCache | None = None) -> str:
    """With no fix to name: the very command that failed, run again later (to the session's end) and
    printing the error in none of those runs ("not seen again: `pytest -n 2 reproduce_issue.py` ran 6 more
    times without it (r43-r82)"). Why: "no fix seen" reads as an open problem; a side effect of another
    failure (teardown noise after a crash) went with it, and a successor need not hunt for its fix."""
    last = rec.occurrences[-1]
    key = " ".join((last.location.command or "").split())
    said = _said_again(last)
    if not key or not said or rec.id in _ENDED_BY_THE_NEXT_CALL or _ENDS_ITSELF_RE.search(rec.id):
        return ""
    ran: list[int] = []
    for rnd in transcript.rounds[start:]:
        results = _round_results(rnd, cache)
        for msg in rnd.messages:
            for call in msg.tool_calls:
                if call.command and not call.continues and " ".join(call.command.split()) == key:
                    res = results.get(id(call))
                    if res is None or not res.content or _NOT_RUN_RE.search(res.content[:300]):
                        continue  # no output to judge by: it may not have run
                    if said in res.content:
                        return ""  # printed again: a later occurrence the scan did not count
                    ran.append(rnd.number)
    if not ran:
        return ""
    span = f"r{ran[0]}" if len(ran) == 1 else f"r{ran[0]}-r{ran[-1]}"
    times = "once more" if len(ran) == 1 else f"{len(ran)} more times"
    return f"not seen again: `{_as_run(last.location.command or key)}` ran {times} without it ({span})"


def _step_words(msg: Message) -> str:
    """The agent's first sentence in the reply that made a call (“The dist files are stale”), when short."""
    if msg.role is not Role.ASSISTANT or not msg.text:
        return ""
    text = _THOUGHT.sub("", msg.text.split("```", 1)[0]).strip()
    first = _SENTENCE.split(" ".join(text.split()), 1)[0].rstrip(":").strip() if text else ""
    return first if 12 <= len(first) <= 160 and not first.endswith("?") else ""


def _program_call(command: str) -> tuple[str, ...]:
    """The program a line runs with its first operand, else its first option (`pnpm build`, `pnpm
    --version`; `sed -i 's/a/b/' f` by its expression, not by `-i`; `python -c CODE` by its code): a run
    a few rounds later that matches it retries the very call, not just the program."""
    said = [w for w in unredirected(run_words(command))[0] if w != "&"]  # `2>&1`: where output goes; `&`: how
    if not said:
        return ()
    operand = next((w for w in said[1:] if not w.startswith("-")), None)
    return (said[0].rsplit("/", 1)[-1], operand if operand is not None else " ".join(said[1:2]))


def _users_run_after(transcript: Transcript, fix_round: int, said: str, rec_id: str, occ: Occurrence) -> int | None:
    """The round of the user's next pasted test run after the fix's (an IDE chat: the user runs the tests and
    pastes the report), when that run no longer prints the error's line and counts fewer failures than the
    paste that showed it; None when the next paste still prints it or fails as often ("Still failing: 1
    failed"), when the user pasted no run, or when the error is one whose absence shows nothing (a timeout)."""
    if not said or _ENDS_ITSELF_RE.search(rec_id) or occ.message is None \
            or not 0 <= occ.message < len(transcript.messages):
        return None
    before = _failures(parse_test_summary(transcript.messages[occ.message].text or "") or "")
    if before is None:
        return None
    for rnd in transcript.rounds[fix_round:fix_round + 1]:  # the user's next turn
        for msg in rnd.messages:
            if msg.role is Role.USER and not msg.harness and not msg.tool_results and msg.text \
                    and (summary := parse_test_summary(msg.text)) is not None:
                after = _failures(summary)
                return rnd.number if said not in msg.text and after is not None and after < before else None
    return None


_FAILURES_RE = re.compile(r"(\d+) (?:failed|failing|errors?)\b")


def _users_other_failure(transcript: Transcript, fix_round: int, occ: Occurrence) -> int | None:
    """The round of the user's next message after the fix's round, when it pastes a failure that is not
    this one (its error line absent); None when it says anything else (thanks first: a confirmation), repeats
    this error or is a test run with counts (the run again: `_users_run_after` reads it). A paste: a fenced
    block, or a line that opens on an error's word, not a request that speaks of errors."""
    said = (occ.detail or occ.evidence).strip().split("\n", 1)[0].strip()
    for rnd in transcript.rounds[fix_round:]:
        for msg in rnd.messages:
            if msg.role is Role.USER and not msg.harness and not msg.tool_results and msg.text.strip():
                text = msg.text
                pasted = ("```" in text or _PASTED_ERROR_LINE_RE.search(text) is not None) \
                    and _ERRORISH_RE.search(text) is not None and not _THANKS_RE.match(text) \
                    and parse_test_summary(text) is None
                return rnd.number if pasted and said and said not in text else None
    return None


# A log's line that opens on what went wrong (`[ERROR] …`, `TypeError: …`, `npm ERR! …`, `error TS2322: …`)
# (after a time stamp, or a place: `src/a.ts:18:1`, `18:1`)
_PASTED_ERROR_LINE_RE = re.compile(r"(?m)^\W{0,4}(?:\d\d:\d\d:\d\d\s+|\S+:\d+(?::\d+)?:?\s+)?(?:\[?(?:ERROR|Error|error|"
                                   r"FATAL|fatal)\b|[A-Z]\w*(?:Error|Exception)\b|npm ERR!|ELIFECYCLE|FAIL\b|✗|×)")
_THANKS_RE = re.compile(r"(?i)\s*(?:thanks|thank you|great|perfect|nice|awesome|it works|that (?:fixed|worked)|works now)\b")


def _failures(summary: str) -> int | None:
    """How many tests a runner's closing counts say failed (0 when it names none); None without counts."""
    if not summary:
        return None
    counts = [int(n) for n in _FAILURES_RE.findall(summary)]
    return max(counts) if counts else 0


def _said_again(occ: Occurrence) -> str:
    """The error's message line, when long enough to tell that a later run printed it again: a run
    whose status says success (`pnpm -v 2>&1 | head -5` exits with head's 0) failed the same way."""
    line = (occ.detail or occ.evidence).strip().split("\n", 1)[0].strip()
    return line if len(line) >= 24 and not EXIT_TAG_RE.fullmatch(line) else ""


def _intent(transcript: Transcript, fix: Fix, occ: Occurrence) -> str:
    """What the agent said it was doing just before an edit whose change the export does not show
    (“Adding a `matchMedia` mock so the HarmonyShell test can run”): in the last reply of the fix's
    round or the one before that names the error's words (`window.matchMedia is not a function`), the
    first sentence or list item that does, unhedged; never from before the user's last new ask."""
    detail = occ.detail or occ.evidence
    # the names the message gives in code's shapes (`matchMedia`, `max_model_len`), not its plain words
    names = {w for w in _CODE_SHAPED.findall(detail) if not w.endswith(("Error", "Exception"))}
    if not names or fix.round is None:
        return ""
    found = ""
    for rnd in transcript.rounds[max(0, fix.round - 2):fix.round]:
        for msg in rnd.messages:
            if _asks_anew(msg):
                found = ""  # the words before the user's new ask answered another one (an exporter's whole turn)
            if msg.role is Role.ASSISTANT and msg.text:  # a reply's words come before its calls
                text = _THOUGHT.sub("", msg.text.split("```", 1)[0])
                sentences = (x.strip() for line in text.splitlines() for x in _SENTENCE.split(line))
                found = next((x.rstrip(".") for x in sentences
                              if 30 <= len(x) <= 200 and not HEDGE_RE.search(x) and not x.endswith("?")
                              and names & set(_CODE_SHAPED.findall(x))), found)
            if fix.call is not None and any(c is fix.call for c in msg.tool_calls):
                return found  # only what was said up to the edit
    return found


# An identifier as code writes it: camelCase, snake_case or CapWords with a second capital (`matchMedia`,
# `max_model_len`, `HTMLElement`), four characters at least.
_CODE_SHAPED = re.compile(r"\b(?=\w{4,})(?:[a-z]+[A-Z]\w*|[A-Za-z]+_\w+|[A-Z]+[a-z]+[A-Z]\w*|[A-Z]{2,}[a-z]\w*)\b")


def _reread(transcript: Transcript, after: int, until: int, path: str | None) -> str | None:
    """How the agent looked at the file again between a refused edit and the edit that worked
    (`nl -ba x.md | sed -n '40,80p'` (r41)), or None. Why: a refused edit's old text did not match the
    file as it is; the look that showed its real lines (their padding, their line breaks) is the
    recovery a successor repeats, and "edited x" alone does not say it."""
    if not path:
        return None
    name = file_name(path)
    for rnd in transcript.rounds[after:until - 1]:  # the rounds after the refusal, before the fix's
        for msg in rnd.messages:
            for call in msg.tool_calls:
                if call.kind is ToolKind.READ and call.path and file_name(call.path) == name:
                    return f"`{call.name} {call.path}` (r{rnd.number})"
                if call.kind is ToolKind.SHELL and call.command and name in call.command and any(
                        file_name(p) == name for p in shell_reads(call.command)):  # a look at it, not a run
                    return f"`{_as_run(call.command)}` (r{rnd.number})"
    return None


# The model a harness names as it starts (aider's "Main model: gemini/gemini-2.5-pro with diff edit format")
_MODEL_LINE_RE = re.compile(r"^\W{0,3}(?:Main )?[Mm]odel: ([\w./@:-]+)", re.M)


def _model_named(msg: Message) -> str | None:
    """The model a message says is in use: its record's own `model` field, or a harness's model line (not a
    user's paste or a tool's output: a config they show names a model that is not in use)."""
    if msg.text and msg.harness and msg.role is not Role.ASSISTANT and (found := _MODEL_LINE_RE.findall(msg.text[:3000])):
        return found[-1]
    model = msg.meta.get("model")  # not Claude Code's `<synthetic>`, the harness's own error message
    return model if isinstance(model, str) and model and not model.startswith("<") else None


def _model_switch(transcript: Transcript, failed: Occurrence, until: int) -> tuple[int, str] | None:
    """(round, model) where another model than the one in use at the failure was named after it, up to
    round `until`, the reply that then succeeded; else None (the same model got past it: it waited)."""
    at = failed.message if failed.message is not None else -1
    before = None
    for rnd in transcript.rounds[:until]:
        for msg in rnd.messages:
            model = _model_named(msg)
            if not model:
                continue
            if msg.index <= at or (at < 0 and rnd.number <= failed.round):
                before = model
            elif before and model != before:
                return rnd.number, model
    return None


def _as_run(command: str) -> str:
    """A command as it was run: its first line, whole when short enough (a line it continues on the
    next, `… && \\`, ends in "…")."""
    line = code_line(command)
    if line.endswith("\\") and "\n" in command.strip():
        line = line[:-1].rstrip() + " …"
    return line if len(line) <= 160 else line[:159] + "…"


def _user_said_after(transcript: Transcript, index: int | None) -> str:
    """What the user said after a rejected call (`words_after`), within 160 characters."""
    return _clip_said(words_after(transcript.messages, index))


USER_SAID_CHARS = 160


def _clip_said(line: str) -> str:
    """A user's line within USER_SAID_CHARS, cut at a word."""
    return line if len(line) <= USER_SAID_CHARS else line[:USER_SAID_CHARS - 1].rsplit(" ", 1)[0] + "…"


def _writes_whole(call: ToolCall, path: str) -> bool:
    """The call writes `path` whole (a write tool, a redirection or a heredoc), not an edit of its text."""
    if call.kind is ToolKind.WRITE:
        return True
    return bool(call.command) and any(kind is EventKind.WRITE and same_file(p, path)
                                      for kind, p in shell_writes(call.command or ""))


def same_place(a: str, b: str, cwd: str | None) -> bool:
    """One file at one place: the same path once a relative one is taken from the working directory (not
    a bare name and a path in a folder: `utils.py` missed at the root is not `/testbed/src/utils.py`)."""
    x, y = (_absolute(p.replace("\\", "/").removeprefix("./"), cwd) for p in (a, b))
    if x == y:
        return True
    # no working directory known: an absolute path and a relative one it ends with, that names a folder
    return cwd is None and same_file(x, y) and (x.startswith("/") != y.startswith("/")) and "/" in min(x, y, key=len)


def _absolute(path: str, cwd: str | None) -> str:
    return posixpath.normpath(posixpath.join(cwd.replace("\\", "/"), path)) if cwd and not path.startswith(("/", "~")) \
        else path


_SLASH_COMMAND_RE = re.compile(r"\s*/[\w-]+(?:\s|$)")  # `/exit`, `/clear`: a command to the tool (a path is words)


def _user_next(transcript: Transcript, index: int | None) -> str:
    """The user's next words after a call they stopped (`_clip_said`): the harness's own notice
    of the abort ("[error: Request was aborted.]") may come between; a call of the agent's may not."""
    if index is None:
        return ""
    for after in transcript.messages[index + 1:index + 4]:
        if after.role is Role.USER and not after.harness and after.text.strip() and not _SLASH_COMMAND_RE.match(after.text):
            return _clip_said(after.text.strip().split("\n", 1)[0])
        if after.tool_calls:
            return ""
    return ""


_TYPED_BREAK_RE = re.compile(r"\\n[ \t]{2,}\S")  # `.\n    _parse(…)`: a break typed out, then the next line's indent


def _escaped_breaks(rec: ErrorRecord, calls_of: dict[int, ToolCall]) -> list[int]:
    """The rounds where an edit tool refused an old text that spells its line breaks as `\\n` (a
    backslash and an n, then the next line's indentation) and holds no real one: the file has a line
    break there, so it can never match. A string's own escape (`print("done\\n")`) is no such break.
    Only the refusals of the file the last one is of: the record's solution is about that failure."""
    return _refused_old_texts(rec, calls_of, lambda old: "\n" not in old and _TYPED_BREAK_RE.search(old) is not None)


# A line an edit quoted with the margin marks a tool printed beside the file's lines (aider's `│` for context,
# `█` for the line it points at): the file holds no such marks
_MARGIN_RE = re.compile(r"^[│█]", re.M)


# aider's answer to a SEARCH block that matched nothing, one section per block: the block, then the file's
# nearest lines, fenced (with as many backticks as the file's own fences need)
_REFUSAL_SECTION_RE = re.compile(r"^## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in (.+)$",
                                 re.M)
_NEAREST_RE = re.compile(r"Did you mean to match some of these actual lines from [^\n?]+\?\s*\n+(`{3,})[^\n]*\n(.*?)\n\1[ \t]*$",
                         re.S | re.M)
_SEARCH_BLOCK_RE = re.compile(r"<<<<<<< SEARCH[^\n]*\n(.*?)\n=======", re.S)
_USERS_EDITS_RE = re.compile(r"Committing (\S+) before applying edits")  # aider commits pending edits first
_APPLIED_RE = re.compile(r"Applied edit to (\S+)")
_COMMITTED_RE = re.compile(r"^>?\s*Commit [0-9a-f]{7,}\b", re.M)
MISMATCH_CHARS = 80


def refusal_cause(transcript: Transcript, occurrences: list[Occurrence]) -> str:
    """Why an edit tool's old text matched nothing, read off the latest refusal of one file that says
    (aider's section for that file: "Did you mean to match…"): the lines its SEARCH held that the
    file's nearest lines lack, and whether the user's own edits of that file were committed in that
    round before the edit (aider's "Committing f before applying edits", when no edit of the agent's
    to f was left uncommitted: then they were the agent's). Why: "no exact match" restated is no
    cause; the monochromatic session's refusals came of the user's edits."""
    for occ in reversed(occurrences):
        path = occ.location.path or ""
        text = _scanned_text(transcript, occ)
        for head, body in _sections(text):
            if not path or not same_file(head, path):  # (same_file reads `\` as `/`)
                continue
            near, block = _NEAREST_RE.search(body), _SEARCH_BLOCK_RE.search(body)
            if near is None or block is None:
                continue
            actual = {ln.strip() for ln in near.group(2).splitlines() if ln.strip()}
            lacking = [ln.strip() for ln in block.group(1).splitlines() if ln.strip() and ln.strip() not in actual]
            if not lacking:
                continue
            more = f" (+{len(lacking) - 1})" if len(lacking) > 1 else ""
            said = f"its SEARCH held `{cut(lacking[0], MISMATCH_CHARS)}`{more}, which the file's nearest lines lack " \
                   f"(r{occ.round})"
            if _users_edits_first(transcript, occ.round, path):
                said = f"the user's own edits of `{file_name(path)}` were committed just before (r{occ.round}): the " \
                       f"file had changed since the agent saw it; " + said
            return said
    return ""


def _sections(text: str) -> list[tuple[str, str]]:
    """aider's refusal output split by block: (the file it names, the section's text); the whole text
    under no name when it has no such headings."""
    heads = list(_REFUSAL_SECTION_RE.finditer(text))
    if not heads:
        return [("", text)]
    return [(m.group(1).strip(), text[m.end():heads[i + 1].start() if i + 1 < len(heads) else len(text)])
            for i, m in enumerate(heads)]


def _users_edits_first(transcript: Transcript, rnd_number: int, path: str) -> bool:
    """Whether aider committed pending edits of `path` in round `rnd_number` before applying the
    agent's, and the agent had left none of its own uncommitted there (its last "Applied edit to"
    that file was followed by aider's commit)."""
    if not 0 < rnd_number <= len(transcript.rounds):
        return False
    rnd = transcript.rounds[rnd_number - 1]
    said = "\n".join(t for m in rnd.messages if m.role is not Role.ASSISTANT
                     for t in (m.text, *(r.content for r in m.tool_results)) if "before applying edits" in t)
    if not any(same_file(m.group(1), path) for m in _USERS_EDITS_RE.finditer(said)):
        return False
    for before in reversed(transcript.rounds[:rnd_number - 1]):
        for m in reversed(before.messages):
            for text in (m.text, *(r.content for r in m.tool_results)):
                applied = [a for a in _APPLIED_RE.finditer(text) if same_file(a.group(1), path)]
                if applied:  # the agent's last edit of it: committed by aider after it, or still pending
                    return _COMMITTED_RE.search(text, applied[-1].end()) is not None
    return True


def _margin_marked(rec: ErrorRecord, calls_of: dict[int, ToolCall]) -> list[int]:
    """The rounds where an edit tool refused an old text copied with a tool's margin marks (`│`, `█`)."""
    return _refused_old_texts(rec, calls_of, lambda old: _MARGIN_RE.search(old) is not None)


_EXPECTED_LINES_RE = re.compile(r"^[^\n]*\bexpected lines\b[^\n]*:[ \t]*\n", re.I | re.M)  # Codex's apply_patch
_NUMBER_MARGIN_RE = re.compile(r"^[ \t]*\d+(?:→|\t|:)")  # `nl -ba`, `cat -n`, a Read's `  48→`, `grep -n`
SPACING_LOOK_ROUNDS = 5  # the rounds after a refusal whose outputs may show the file's own lines
_SPACED_MIN_CHARS = 12  # a line this long once its spaces are squeezed: `}` or `)` says nothing


def _spacing_cause(rec: ErrorRecord, transcript: Transcript, calls_of: dict[int, ToolCall],
                   cache: _ResultsCache | None = None) -> str:
    """Why an edit's old text matched nothing, when the file's own lines (printed within a few rounds
    after a refusal by a call that reads that file: a re-read, `nl -ba`, a view; no edit's result, no
    refusal's echo of the next attempt) hold one of its lines with other spacing only: aligned table
    columns, tabs for spaces, a changed indent. The most common refusal of all, and the one a successor
    repeats unless told; the agent's "possibly whitespace" is no finding. "" when none shows, or when such
    a line is also printed as the old text has it (the file holds both: the spacing is not why)."""
    if rec.id not in REFUSED_BY_FILE:
        return ""
    for occ in reversed(rec.occurrences):
        call = calls_of.get(id(occ))
        target = file_name(occ.location.path or (call.path if call is not None and call.path else ""))
        if not target:
            continue
        old = arg_text(call.arguments, ArgRole.OLD) if call is not None and isinstance(call.arguments, dict) else ""
        if not old and (m := _EXPECTED_LINES_RE.search(text := _scanned_text(transcript, occ))):
            old = text[m.end():]
        expected = {" ".join(ln.split()): ln.strip() for ln in (old or "").splitlines()
                    if len(" ".join(ln.split())) >= _SPACED_MIN_CHARS}
        if not expected:
            continue
        first = (old or "").lstrip("\n").split("\n", 1)[0].strip()  # may start mid-line: its indent is no cause
        found = ""
        for rnd_number, line in _lines_read(transcript, occ.round, target, cache):
            bare = _NUMBER_MARGIN_RE.sub("", line, count=1).rstrip()
            said = expected.get(" ".join(bare.split()))
            if said is None:
                continue
            indent = _indent_of(old or "", said)
            same_indent = indent == bare[:len(bare) - len(bare.lstrip())]
            if said == bare.strip() and (said == first or same_indent):
                if said == first:
                    continue  # the first line may start mid-line: matched whole, it says nothing either way
                return ""  # printed as the old text has it: whatever failed, it was not this line's spacing
            if not found and said != bare.strip():
                found = f"its old text had other spacing than the file{_spacing_seen(bare.strip())} (r{rnd_number})"
            elif not found:
                found = (f"its old text had other indents than the file: `{cut(said, _SPACING_HEAD)}` "
                         f"{_spaces(indent + said)}, the file's {_spaces(bare)} (r{rnd_number})")
        if found:
            return found
    return ""


def _lines_read(transcript: Transcript, rnd_number: int, target: str,
                cache: _ResultsCache | None = None) -> Iterator[tuple[int, str]]:
    """(round, line) of the lines printed within `SPACING_LOOK_ROUNDS` rounds from `rnd_number` by calls
    that read the file named `target` (a file tool's read or view, a shell line naming it that edits
    nothing), each output cut at `SPACING_READ_CHARS`; never an edit's result nor an edit tool's refusal
    (it echoes the old text the agent sent next)."""
    for rnd in transcript.rounds[max(0, rnd_number - 1):rnd_number + SPACING_LOOK_ROUNDS]:
        results = _round_results(rnd, cache)  # paired once per scan, as for the fixes
        for msg in rnd.messages:
            for call in msg.tool_calls:
                res = results.get(id(call))
                if res is None or not res.content or _edit_path(call) or refused(res.content[:2000]):
                    continue
                named = file_name(call.path) == target if call.path else bool(call.command and target in call.command)
                if named and not _written_paths(call):
                    yield from ((rnd.number, line) for line in res.content[:SPACING_READ_CHARS].splitlines())


SPACING_READ_CHARS = 200_000  # of one output: a re-read of the lines around an edit is far shorter
_SPACING_HEAD = 24  # a line named by its opening words: a shortened record cuts a longer span's middle
_PADDED_CELL_RE = re.compile(r"^\|[^|\n]*? {2,}\|")  # a table's first cell padded to its column's width


def _spacing_seen(line: str) -> str:
    """How the file's line spaces what the old text spaced otherwise, in words a shortened record keeps
    (runs of spaces in a code span are squeezed when shown): a table padded to aligned columns, else the
    line's opening words."""
    if _PADDED_CELL_RE.match(line) is not None:
        return ", whose table pads its columns to one width"
    return f": the file has `{cut(line, _SPACING_HEAD * 2)}`"


def _indent_of(text: str, stripped: str) -> str:
    """The indent of the first line of `text` that holds `stripped`."""
    line = next((ln for ln in text.splitlines() if ln.strip() == stripped), stripped)
    return line[:len(line) - len(line.lstrip())]


def _spaces(line: str) -> str:
    """A line's indent in words: "1 tab", "4 spaces", "2 tabs and 1 space"."""
    lead = line[:len(line) - len(line.lstrip())]
    tabs, spaces = lead.count("\t"), lead.count(" ")
    said = [f"{n} {word}{'s' if n > 1 else ''}" for n, word in ((tabs, "tab"), (spaces, "space")) if n]
    return " and ".join(said) or "no indent"


def _refused_old_texts(rec: ErrorRecord, calls_of: dict[int, ToolCall], wrong: Callable[[str], bool]) -> list[int]:
    """The rounds of the record's refusals (of the file its last one is of: an earlier file's ended
    apart) whose old text `wrong` says can never match."""
    if rec.id not in REFUSED_BY_FILE:
        return []
    out: dict[int, None] = {}
    last = file_name(rec.occurrences[-1].location.path or "")
    for occ in rec.occurrences:
        if file_name(occ.location.path or "") != last or (call := calls_of.get(id(occ))) is None \
                or not isinstance(call.arguments, dict):
            continue
        old = arg_text(call.arguments, ArgRole.OLD)
        if old and wrong(old):
            out[occ.round] = None
    return list(out)


_MISS_WORDS_RE = re.compile(r"No such file|not found|does not exist|unable to read|cannot access|ENOENT", re.I)


def _unnamed_misses_dropped(records: list[ErrorRecord], transcript: Transcript) -> list[ErrorRecord]:
    """The records without the tool's "no such file" notices, printed beside work that went on (in a
    message's text, or a call's output that did not fail), of files neither the user nor the agent ever
    named (in their words, but for such a notice, or in a call's arguments): aider's repo map warning of
    screenshots deleted outside the session ("swappy-….png: unable to read: [Errno 2]") is no miss of the
    agent's, and left the record "unresolved" at the end. A failed command's miss stays (`make dist`'s
    "cp: cannot stat …": the Makefile named the file), and so does a program's own FileNotFoundError."""
    misses = {file_name(o.location.path) for r in records if r.id == "ERR_TOOL_FileNotFound"
              for o in r.occurrences if o.location.path and _beside_work(transcript, o)}
    if not misses:
        return records
    names_re = re.compile("|".join(map(re.escape, sorted(misses, key=len, reverse=True))))
    named: set[str] = set()
    for msg in transcript.messages:
        for c in msg.tool_calls:  # a call's own arguments name the file, whatever words surround it
            named.update(names_re.findall(str(c.arguments)))
        if msg.role in (Role.USER, Role.ASSISTANT) and msg.text and names_re.search(msg.text):
            named.update(m.group(0) for m in names_re.finditer(msg.text)
                         if not _MISS_WORDS_RE.search(_line_at(msg.text, m.start())))
        if named >= misses:
            return records
    out = []
    for r in records:
        if r.id == "ERR_TOOL_FileNotFound":
            kept = [o for o in r.occurrences if not o.location.path or file_name(o.location.path) in named
                    or not _beside_work(transcript, o)]
            if not kept:
                continue
            if len(kept) < len(r.occurrences):
                r.occurrences[:] = kept
        out.append(r)
    return out


def _beside_work(transcript: Transcript, occ: Occurrence) -> bool:
    """Whether an occurrence was printed where work went on: a message's own text, or the output of a
    call that did not fail."""
    if occ.message is None or not 0 <= occ.message < len(transcript.messages):
        return False
    i = occ.result_index()
    if i is None:
        return occ.source == "text"
    msg = transcript.messages[occ.message]
    if msg.index != occ.message:
        msg = next((m for m in transcript.messages if m.index == occ.message), msg)
    res = msg.tool_results[i] if i < len(msg.tool_results) else None
    return res is not None and not res.is_error and res.exit_code in (None, 0)


def _line_at(text: str, at: int) -> str:
    """The whole line of `text` that holds position `at`."""
    return text[text.rfind("\n", 0, at) + 1:(end if (end := text.find("\n", at)) >= 0 else len(text))]


def infer_solution(rec: ErrorRecord, transcript: Transcript, cache: _ResultsCache | None = None,
                   failed_call: ToolCall | None = None, escaped: list[int] | None = None, marked: list[int] | None = None,
                   timeline: _LazyTimeline | None = None, probe: bool = False, spaced: str = "") -> str:
    """What ended the error — the edit that followed (file, key change; what its arguments changed
    from `failed_call`, the call that failed) and the command that then passed — with the
    assistant's own account of the cause; never the error text again. `escaped`: the rounds whose
    refused old text spelled its line breaks as `\\n` (`_escaped_breaks`), a cause read off the calls."""
    last = rec.occurrences[-1]
    parts: list[str] = []
    if rec.target_bug:
        parts.append("the target bug, reproduced on purpose")
    base = next((o for o in rec.occurrences if o.baseline and _same_failure(o, last)), None)
    judged = ""
    if base is not None:  # the code before the session's changes failed so too: not the session's doing
        parts.append(f"pre-existing: it failed with the session's changes stashed too (r{base.round})")
        own = _own_failures_gone(rec, base, last)
        if own:
            parts.append(own)
    elif judged := _judged_not_ours(transcript, rec, cache):
        parts.append(judged)
    # a pre-existing failure's runs are no verdicts on edits; a tool's refusals have their own episodes
    tried = "" if base is not None or judged or rec.family == "TOOL" else _tried_before(rec, transcript, cache)
    final_round = transcript.rounds[-1].number if transcript.rounds else last.round
    if rec.id in _USERS_CALL and (said := _user_said_after(transcript, last.message)):
        parts.append(f"the user said: “{said}”")
    elif rec.id == "ERR_TOOL_UserAborted":
        said = _user_next(transcript, last.message)
        parts.append("the user stopped it" + (f", then said: “{said}”" if said else ""))
    pasted = _users(transcript, last)  # the user's paste opens its round: the reply of that round may fix it
    fix = _fix_after(transcript, rec, last.round - 1 if pasted else last.round, cache)
    # the agent's words after a malformed reply or call are about its work, not about that failure
    why = None if rec.id in _ENDED_BY_THE_NEXT_CALL else \
        _explanation(transcript, last.round, last.message if pasted else None,
                     frozenset() if rec.family == "TOOL" else error_terms(rec))
    if not fix.round and rec.count > 1 and rec.id in EDIT_REFUSED:
        why = "; ".join(_diagnoses(transcript, rec)) or why
    elif why is None and fix.round and fix.round >= last.round + 2 and rec.family != "TOOL" and not fix.rerun:
        why = _diagnosed(transcript, last.round, fix.round, _id_words(rec) | error_terms(rec))  # found while looking
    if fix.rerun and fix.call is not None:
        changed = changed_arguments(failed_call, fix.call, command_words=True) if failed_call is not None else ""
        outcome = "succeeded" if fix.passed_round else "no longer printed it"
        # what changed after the outcome, not in parentheses around it: `changed` holds its own "(was …)"
        parts.append(f"then `{_as_run(fix.call.command or '')}` {outcome} (r{fix.round})"
                     f"{f', rerun with {changed}' if changed else ''}")
    elif fix.round:
        text = _edited(fix)
        if rec.id == "ERR_TOOL_FileNotFound" and fix.path and last.location.path and fix.call is not None \
                and _writes_whole(fix.call, fix.path) and same_place(fix.path, last.location.path, transcript.cwd):
            # the file the read missed is the one the fix wrote whole: it did not exist, and the session made it
            text = f"it did not exist: created `{fix.path}` (r{fix.round})"
        if fix.restored and fix.call is not None:
            text = f"restored `{fix.path}` from git with `{_as_run(fix.call.command or '')}` (r{fix.round})"
            if fix.redone_round:
                text += f", then edited it again (r{fix.redone_round})"
        reread = _reread(transcript, last.round, fix.round, fix.path) if rec.id in EDIT_REFUSED else None
        if reread:  # the record's location names the file
            text = f"re-read it with {reread}, then edited it (r{fix.round})"
        changed = changed_arguments(failed_call, fix.call, fix.change or "") if fix.call is not None else ""
        if changed:
            text += f" with {changed}"
        if fix.change:
            text += f": {fix.change}"
            if (back := _put_back(transcript, fix)) is not None:  # said first: a budget cuts a line at its end
                text = f"a probe, not the fix: {text} (put back at r{back})"
            elif not fix.restored and (undone := _undone_later(
                    fix, (timeline or _LazyTimeline(transcript)).get())) is not None:
                text += f" (undone by `{_as_run(undone[1])}` at r{undone[0]})"
            elif not fix.restored and (redone := _redone_later(
                    fix, (timeline or _LazyTimeline(transcript)).get())) is not None:
                text += f" (put back by `{_as_run(redone[1])}` at r{redone[0]}, edited again r{', r'.join(map(str, redone[2][:4]))}{', …' if len(redone[2]) > 4 else ''})"
        elif not why and (said := _intent(transcript, fix, last)):  # what it did, said in its words
            text += f" — “{said}”"
        if fix.passed_round and fix.passed_command:
            text += f"; then `{_as_run(fix.passed_command)}` passed (r{fix.passed_round})"
        elif fix.past_round and fix.passed_command:
            text += f"; then `{_as_run(fix.passed_command)}` failed differently (r{fix.past_round})"
        elif pasted and (shown := _users_run_after(transcript, fix.round, _said_again(last), rec.id, last)):
            text += f"; then the user's test run no longer printed it (r{shown})"
        elif pasted and (other := _users_other_failure(transcript, fix.round, last)):
            # the user's next word was another failure: it shows nothing of this one's run (reader review 59:
            # npm-publish's pasted build failure read as solved by the edit that followed it)
            text += f"; not seen checked: the user's next message (r{other}) pasted another failure"
        elif fix.round >= final_round and not fix.restored and (rec.family != "TOOL" or rec.id == "ERR_TOOL_NonZeroExit"):
            text = f"tried, never checked (the session ends): {text}"  # an attempt, not a known fix
        elif rec.family != "TOOL" and not pasted and last.location.command \
                and not _ran_again(transcript, last.location.command, fix.round, cache):
            # the session went on, but never ran what failed, nor any test, again: an attempt all the same (a
            # build failed, an edit followed, and the work turned elsewhere: reader review 59's docs build)
            text = f"tried, never checked (`{_as_run(last.location.command)}` never ran again): {text}"
        parts.append(text)
    shifted = _shifted_lines(transcript, rec, cache) if _BROKEN_SYNTAX_RE.search(rec.id) else ""
    if shifted:  # read off the command itself: a cause, whatever the agent guessed; said first, as shortening keeps
        parts.insert(0, shifted)
        why = None
    if why:  # a hedged account is the agent's guess, not the cause: a successor must not act on it as fact
        # the account itself, not the sentence before that says what "it" is (a wide stop leaves an empty piece)
        # (or its verdict before the account: "X seems unrelated to my changes. It fails because …" is a guess,
        # however sure the sentence after it sounds)
        said = [p for p in _SENTENCE.split(why) if p.strip()] or [why]
        account = said[-1]
        hedged = _guessed(account) or account.rstrip().endswith(("?", "？")) or (len(said) > 1 and _guessed(said[0]))
        label = "the agent's guess: " if hedged else "cause: "  # told as what it is, fix or none
        parts.append(label + why.rstrip(".。"))
    if escaped:  # seen in the calls themselves, beside the agent's own account
        more = ", …" if len(escaped) > 4 else ""
        parts.append(f"its old text had `\\n` typed out, not a line break (r{', r'.join(map(str, escaped[:4]))}{more})")
    if rec.id in REFUSED_BY_FILE and (cause := refusal_cause(transcript, [o for o in rec.occurrences if file_name(
            o.location.path or "") == file_name(last.location.path or "")])):
        parts.append(cause)
    if spaced:  # read off the refused text and the file's lines printed next
        parts.append(spaced)
    if marked:
        more = ", …" if len(marked) > 4 else ""
        parts.append(f"its old text was copied with the tool's margin marks (`│`, `█`), which the file does not hold "
                     f"(r{', r'.join(map(str, marked[:4]))}{more})")
    # A tool that failed (not a command): the same tool called again and succeeding ended it, else the
    # agent's own account of doing without it, else the next success of any kind.
    tool = failed_call.name if failed_call is not None and not (failed_call.command or last.location.command) \
        and rec.family == "TOOL" and not fix.round else None
    again = _same_tool_success(transcript, last, tool, cache) if tool else None
    around = _workaround(transcript, last.round, last.message) if tool and again is None else None
    # a file missed at one place and named at another: where it is, rather than whatever call next worked
    found = _found_elsewhere(transcript, rec, cache) if rec.id == "ERR_TOOL_FileNotFound" and not fix.round \
        and again is None and not around else ""
    if found:
        parts.append(found)
    if again is not None:
        retry = (again[0], f"`{_as_run(again[1].command)}`" if again[1].command else "the same call", again[1])
    else:
        # a target bug's run shows the bug on purpose: another program's success after it ended nothing
        retry = None if fix.round or around or found or rec.target_bug or probe or rec.id == "ERR_TOOL_UserAborted" \
            else _next_success(transcript, rec, last.round, cache)
    still = _repro_passed(transcript, rec, cache) or _still_reproduced(transcript, rec, cache) \
        if rec.target_bug and not fix.round and not around else ""
    if still:
        parts.append(still)
    if around:
        parts.append(f"worked around it: “{around}”")
    if retry:
        rnd, what, call = retry
        changed = changed_arguments(failed_call, call, command_words=True) if call is not None else ""
        if changed and failed_call is not None and call is not None and call.command == failed_call.command:
            what = "the same call" if call.command is None else "the same command"  # only its arguments changed
        elif what == "the same call" and failed_call is not None and call is not None and call.path \
                and failed_call.path and file_name(call.path) == file_name(failed_call.path) \
                and not same_place(call.path, failed_call.path, transcript.cwd):
            what = f"the same call on `{_relative(call.path, transcript.cwd)}`"  # the place that worked
        if call is None and rec.id in MODEL_SIDE and (switch := _model_switch(transcript, last, rnd)):
            at = f" (r{switch[0]})" if switch[0] != rnd else ""
            what = f"the model was switched to `{switch[1]}`{at}, and the next reply"
        # a reply's format refused: what ended it was a reply in the format, not what that reply ran
        kept_format = "the next reply kept to the format: " if rec.id == "ERR_TOOL_FormatError" else ""
        parts.insert(len(parts) - (1 if why else 0),
                     f"then {kept_format}{what}{f' rerun with {changed}' if changed else ''} succeeded (r{rnd})")
    elif not fix.round and not around and not still and not found:
        later = "" if probe else _passed_later(transcript, rec, last.round, cache)
        advised = _advised(transcript, last) if pasted and not later else None
        if advised:
            parts.append(advised)
        if later:
            parts.insert(len(parts) - (1 if why else 0), later)
        elif probe:
            parts.append(PROBE_NOTE)
        elif any(p.startswith(NOT_OURS_LABEL) for p in parts) or rec.id in _USERS_CALL:
            pass  # nothing to fix (the user's own choice, or not the session's bug): "no fix seen" would mislead
        elif rec.id == "ERR_TOOL_Timeout" and (read_on := _read_on(transcript, failed_call, last.round, cache)):
            parts.append(read_on)
        elif "NotFound" in rec.id and (otherwise := _tests_ran_otherwise(transcript, last, cache)):
            parts.append(otherwise)
        elif rec.id in _HARNESS_NOTES and (narrowed := _narrowed_after(transcript, last, cache)):
            parts.append(narrowed)
        elif rec.id not in _HARNESS_NOTES and (went_on := _went_on(transcript, last, failed_call, cache)):
            gone = substituted_last(rec.id, [last])  # backticks in double quotes: the text lacks the words
            lacks = (f", but the text it wrote lacks its {len(gone)} backticked words (the shell ran them as commands)"
                     if len(gone) > 1 else f", but the text it wrote lacks `{gone[0]}` (the shell ran it as a command)"
                     if gone else "")
            parts.append(f"the command itself went on and ended with `{went_on}` (r{last.round}){lacks}")
            if gone and not _amended_after(transcript, last.round):
                parts.append("no later command mended that text (`gh pr edit`, `git commit --amend`): it stands so")
        elif why and rec.family == "TOOL" and _DOES_WITHOUT_RE.search(why):  # a missing file, a refused tool
            parts.append("the agent went on without it")  # its own decision ended it: nothing left to fix
        elif (gone := _not_seen_again(transcript, rec, last.round, cache)):
            parts.append(gone)
        else:
            parts.append(f"unresolved at r{last.round}" if last.round >= final_round
                         else f"no fix seen after r{last.round}")
    if tried:
        parts.append(tried)
    return "; ".join(parts)


# The agent's account of doing without what failed ("I'll continue with the workflow that is present", "proceed
# without it", "skip it for now"): the failure ended there, by its choice.
_DOES_WITHOUT_RE = re.compile(r"(?i)\b(?:(?:continu|proceed)\w* (?:without|with (?:the )?(?:what|workflow) (?:is|that))|"
                              r"go(?:ing)? on without|"
                              r"do(?:ing)? without|skip(?:ping)? (?:it|that|this)|work(?:ing)? without|"
                              r"move on without|carry on without)\b")


# A debug print's change: a print call, a DEBUG tag, or a printed name wrapped in `type()`/`repr()` (`value` →
# `type(value)`)
_DEBUG_PRINT_RE = re.compile(r"\b(?:" + _PRINT_CALL + r"|println!?\()|\bDEBUG\b|^`\{?(\w+)\}?` → `\{?(?:type|repr|id)\(\1\)\}?`")
TRIED_GAPS = 6  # of a recurring failure's gaps between occurrences, the last ones looked into
TRIED_SHOWN = 2  # of a failure's earlier attempts that failed the same way again, the last ones told
TRIED_WHY_CHARS = 120  # of the agent's account of an attempt whose change is not known


def _ran_again(transcript: Transcript, command: str, after: int, cache: _ResultsCache | None = None) -> bool:
    """Whether a command of the failing one's program, or a test run, ran from round `after` on (the fix's own
    round: a `sed -i … && bash run.sh` is the edit and its check in one call)."""
    program = program_of(command)
    return any(r >= after and (p == program or test) for r, p, test in _runs(transcript, cache))


def _runs(transcript: Transcript, cache: _ResultsCache | None) -> list[tuple[int, str, bool]]:
    """(round, program, a test run) of every command the session ran, in order: read once per scan (a record's
    solution asks for them, and a session holds thousands of records and calls)."""
    if cache is not None and cache.runs is not None:
        return cache.runs
    runs = [(rnd.number, program_of(call.command), is_test_command(call.command))
            for rnd in transcript.rounds for msg in rnd.messages for call in msg.tool_calls if call.command]
    if cache is not None:
        cache.runs = runs
    return runs


def _tried_before(rec: ErrorRecord, transcript: Transcript, cache: _ResultsCache | None) -> str:
    """A failure that came back the same way after edits (the same test's same locator error at r5, r6,
    r7 and r8): the last attempts that did not end it, each with what it changed and the round it failed
    again. Why: a successor otherwise repeats them ("wait for the element", "expand all first")."""
    occs = rec.occurrences
    if len(occs) < 3 or not _same_failure(occs[0], occs[-1]) and (occs[0].detail or "") != (occs[-1].detail or ""):
        return ""
    told: list[str] = []
    for i in range(len(occs) - 2, max(-1, len(occs) - 2 - TRIED_GAPS), -1):  # the last few gaps: bounded work
        here, then = occs[i], occs[i + 1]
        if then.round <= here.round:
            continue
        # (a failure the user pasted opens its round: the reply in that round is the attempt)
        fix = _fix_after(transcript, ErrorRecord(rec.id, list(occs[:i + 1])),
                         here.round - 1 if _users(transcript, here) else here.round, cache, until=(then.round, then.message))
        # (not the file that fails: a test the session wrote and keeps rewriting is its work, not a probe)
        scratch = fix.path is not None and cache is not None and file_name(fix.path) in cache.created \
            and file_name(fix.path) != file_name(then.location.path or "")
        # a debug print, or an edit of a script the session made to look (`check_lazy_type.py`), is no attempt
        if fix.round and not fix.rerun and not scratch and not _DEBUG_PRINT_RE.search(fix.change or ""):
            what = f": {fix.change}" if fix.change else ""
            if not what:  # an edit whose text the export did not keep: the idea behind it, in the agent's words
                pasted = _users(transcript, here)
                why = _explanation(transcript, here.round - 1 if pasted else here.round, here.message if pasted else None)
                width = TRIED_WHY_CHARS if why is None or why.isascii() else TRIED_WHY_CHARS // 2  # wide: 2 a char
                what = f" (“{cut(why, width)}”)" if why else ""
            told.append(f"{_edited(fix)}{what}, failed again (r{then.round})")
        if len(told) == TRIED_SHOWN:
            break
    # one clause (", then "): a budget keeps or drops the attempts together, never one without its label
    return "tried before: " + ", then ".join(reversed(told)) if told else ""


WENT_ON_CHARS = 100
_USERS_CALL = frozenset({"ERR_TOOL_UserRejected", "ERR_TOOL_UserAborted"})  # the user's choice: their words end it
_HARNESS_NOTES = frozenset({"ERR_TOOL_OutputTooLong"})  # a harness's note on a run's output: the run itself went on
_ERRORISH_RE = re.compile(r"(?i)\b(?:error|fail\w*|denied|not found|no such|cannot|can't|unable|invalid|fatal|"
                          r"exception|traceback|abort\w*)\b|^\(eval\)|^\S+: line \d+:|^[\w.]*(?:Error|Exception|Warning)\b")


# A checker an avoidance may add as a further step (`; type-check with `mypy a.py``): only where the session uses it
_CHECKERS = ("mypy", "ruff", "pyright", "flake8", "pylint")
_CHECKER_CALL = r"`(?:" + "|".join(_CHECKERS) + r")\b[^`]*`"
# "(or `ruff check` rule E999)", "; type-check with `mypy a.py`", " or type-check with `mypy a.py`"
_ADDED_STEP_RE = re.compile(r"\s+\((?:or\s+)?[^()]*" + _CHECKER_CALL + r"[^()]*\)|(?:;\s+|\s+or\s+)[^;()`]*"
                            + _CHECKER_CALL + r"[^;()]*")


class _Mentioned:
    """Whether a program's name appears in the session (its commands or any message): read once per name."""

    def __init__(self, transcript: Transcript) -> None:
        self.transcript = transcript
        self.known: dict[str, bool] = {}

    def __call__(self, name: str) -> bool:
        if name not in self.known:
            self.known[name] = any(name in (c.command or "") for m in self.transcript.messages for c in m.tool_calls) \
                or any(name in m.text for m in self.transcript.messages if m.text)
        return self.known[name]


_CHANGE_RE = re.compile(r"`([^`\n]+)` → `([^`\n]+)`")
_ADVISED_RE = re.compile(r"`([^`\n]+)`")
_STEP_WORD_RE = re.compile(r"[A-Za-z_]{5,}")


def not_what_failed(advice: str, solution: str, ran: frozenset[str] = frozenset()) -> str:
    """An avoidance whose suggested step is what the fix took out (django: "create/migrate the database
    (`manage.py migrate`)" where the fix replaced `call_command('migrate')` by a schema editor): the fix's
    change is the advice, the code it took out what failed here (not the advised command: `manage.py` was
    never run, `call_command('migrate')` was). The step counts as taken out when the removed
    code calls it or passes it as a string (`migrate(`, `'migrate'`), not when a word of it is only there
    (`'build/'` is no `npm run build`); `ran`: the record's own command lines, whose advice to run them
    again is not the fix's business."""
    change = _CHANGE_RE.search(solution)
    if not change or not advice:
        return advice
    removed, added = change.group(1).lower(), change.group(2).lower()
    for span in _ADVISED_RE.findall(advice):
        if " ".join(span.split()) in ran:
            continue
        words = [w for w in _STEP_WORD_RE.findall(span.lower()) if w not in ("python", "manage", "install")]
        if any(re.search(rf"['\"]{w}['\"]|\b{w}\s*\(", removed) and w not in added for w in words):
            # the removed code is what failed, not the advised command (`manage.py` was never run)
            return f"as the fix did: `{change.group(1)}` (what failed here) → `{change.group(2)}`"
    return advice


def unused_checkers_dropped(advice: str, used: Callable[[str], bool]) -> str:
    """An avoidance without the further step that suggests a checker the session never ran nor named
    ("check call signatures …; type-check with `mypy a.py`" in a session that never used mypy): a successor
    reads it as the project's practice, and reviewers read it as the fix."""
    if not advice or not any(c in advice for c in _CHECKERS):
        return advice
    def keep(m: re.Match[str]) -> str:
        named = [c for c in _CHECKERS if f"`{c}" in m.group(0)]
        return m.group(0) if any(used(c) for c in named) else ""
    trimmed = _ADDED_STEP_RE.sub(keep, advice).strip()
    return trimmed or advice


def _seen(views: LineViews, call: ToolCall, output: str) -> None:
    """A read's numbered view of its file (a read tool's, or one shell line's `nl`/`cat -n`/`grep -n`)."""
    if call.kind == ToolKind.READ and call.path:
        views.seen(call.path, "", output)
    elif call.kind == ToolKind.SHELL and call.command and len(read := shell_reads(call.command)) == 1 \
            and not is_state_changing(call.command):  # a line that also writes: its output may be from before
        views.seen(read[0], call.command, output)


def _changed(views: LineViews, call: ToolCall, res: ToolResult) -> None:
    """A file the call changed: its numbered view no longer holds (an edit its tool refused changed nothing)."""
    if call.kind in (ToolKind.EDIT, ToolKind.WRITE) and call.path and not _failed(res) and not refused(res.content):
        views.forget(call.path)
    elif call.kind == ToolKind.SHELL and call.command and is_state_changing(call.command):
        views.forget_all()  # a script's writes, a stash, a checkout: no view is known to hold


def _went_on(transcript: Transcript, occ: Occurrence, call: ToolCall | None, cache: _ResultsCache | None) -> str:
    """The last line of a command's output that printed an error on its way and then ended well (its exit
    status 0 or none, its last line no error: zsh's `(eval):1: no such file or directory` from backticks in
    a PR body, then the PR's URL). Why: "no fix seen" of such an error reads as if the command failed."""
    if call is None or not call.command or occ.round < 1 or occ.round > len(transcript.rounds):
        return ""
    rnd = transcript.rounds[occ.round - 1]
    res = _round_results(rnd, cache).get(id(call)) if rnd.number == occ.round else None
    if res is None or res.is_error or res.exit_code not in (None, 0) or not res.content:
        return ""
    lines = [ln.strip() for ln in res.content.strip().splitlines() if ln.strip() and not ln.strip().startswith("```")]
    last = lines[-1] if lines else ""
    said = _said_again(occ)
    if not last or _ERRORISH_RE.search(last) or (said and said in last) or len(lines) < 2 \
            or "Traceback (most recent call last)" in res.content or (occ.detail and occ.detail.strip() in last):
        return ""
    return last if len(last) <= WENT_ON_CHARS else last[:WENT_ON_CHARS].rsplit(" ", 1)[0] + "…"


def _read_on(transcript: Transcript, call: ToolCall | None, after: int, cache: _ResultsCache | None) -> str:
    """A command the harness stopped waiting for, read on by later calls (`ToolCall.continues`), and how it
    ended there ("not stuck: the agent read on at r13, and the run finished with `Tests run: 8700 …`;
    `BUILD SUCCESS`", the counts of all its output), or that the agent interrupted it (`C-c`). Why: "no fix
    seen" and an advice to cut it short with `timeout 120` read as if the five-minute build never finished."""
    running = (call.continues or call.id) if call is not None else None
    if running is None:
        return ""
    seen: list[str] = []  # the run's output so far: what it printed before the harness stopped waiting, then more
    first = next((i for i, rnd in enumerate(transcript.rounds[:after]) for m in rnd.messages for c in m.tool_calls
                  if c.id == running), max(0, after - 1))
    for rnd in transcript.rounds[first:]:
        results = _round_results(rnd, cache)
        for msg in rnd.messages:
            for c in msg.tool_calls:
                res = results.get(id(c)) if c.id == running or c.continues == running else None
                if res is None:
                    continue
                seen.append(res.content or "")
                if c.continues is None or unfinished(res):
                    continue
                if _interrupts(c, res):
                    return f"interrupted: the agent stopped the run at r{rnd.number}"
                counts = parse_test_summary("\n".join(seen))
                end = _closing_line(res.content)
                told = "; ".join(f"`{t}`" for t in dict.fromkeys(x for x in (counts, end) if x))
                return f"not stuck: the agent read on at r{rnd.number}, and the run finished" + \
                    (f" with {told}" if told else "")
    return ""


_INTERRUPT_KEYS = frozenset({"c-c", "^c", "\x03", "ctrl+c", "ctrl-c"})


def _interrupts(call: ToolCall, res: ToolResult) -> bool:
    """A read-on that stopped the run: a control key sent (`C-c`), or the status of a run so stopped."""
    keys = [v for v in call.arguments.values() if isinstance(v, str)]
    return any(k.strip().lower() in _INTERRUPT_KEYS for k in keys) or res.exit_code in (130, -2)


OTHERWISE_ROUNDS = 10  # a test runner that could not start, replaced soon by another way to run the tests
_MISSING_RE = re.compile(r"No such file|cannot access|does not exist|not found|ENOENT", re.IGNORECASE)


def _found_elsewhere(transcript: Transcript, rec: ErrorRecord, cache: _ResultsCache | None,
                     until: int | None = None) -> str:
    """A file the session missed at one place (a read, an `ls`), then read at another within a few
    rounds (a file tool's path, a reading command's operand) or listed by a look-up's output (`find`,
    `ls`, `grep -l`): `core/src/main/…/JSON.java` after `src/main/…/JSON.java`, `sympy/sets/sets.py`
    after `sympy/core/sets.py`. Where the file is, since "no fix seen" sent a successor looking again.
    Only the last miss's path (an earlier miss is `_earlier_found`'s), and only a name with an
    extension: a folder's or a bare word's name is borne by too many places. Never a path of a
    traceback, a diff, a URL, a glob or a redirection: those name other files, or files written.
    `until`: the round of the next miss, for an earlier one."""
    cwd = transcript.cwd
    last = rec.occurrences[-1]
    missed = next((o.location.path for o in _last_run_of(rec.occurrences) if _file_like(o.location.path)), None)
    if missed is None:
        return ""
    name = file_name(missed)
    gone = _relative(missed.replace("\\", "/"), cwd)
    for rnd in transcript.rounds[last.round:last.round + OTHERWISE_ROUNDS]:
        if until is not None and rnd.number >= until:
            break
        results = _round_results(rnd, cache)
        for msg in rnd.messages:
            for call in msg.tool_calls:
                res = results.get(id(call))
                if res is None or _MISSING_RE.search(res.content[:300]):  # (`grep` of no match exits 1: it read)
                    continue
                for path in _read_places(call, res.content):
                    if file_name(path) == name and not same_place(path, missed, cwd) \
                            and _relative(path.replace("\\", "/"), cwd) != gone:
                        return f"it is at `{_relative(path, cwd)}` (r{rnd.number})"
    return ""


def _file_like(path: str | None) -> bool:
    name = file_name(path) if path else ""
    return "." in name.strip(".") and not name.endswith(".")


def _last_run_of(occurrences: list[Occurrence]) -> list[Occurrence]:
    """The last occurrence and those of the rounds just before it, latest first: one search that missed
    a file, then its folder (`JSON.java`, then `ls src/main`)."""
    out = [occurrences[-1]]
    for o in reversed(occurrences[:-1]):
        if o.round < out[-1].round - 1:
            break
        out.append(o)
    return out


_READERS = frozenset({"cat", "head", "tail", "less", "more", "nl", "wc", "stat", "file", "grep", "rg", "sed", "awk",
                      "ls", "find", "fd", "Get-Content", "type", "bat"})
_PATTERN_FIRST = frozenset({"grep", "rg"})
# options whose value may look like a file (`-name sets.py`, `--include '*.py'`): not a place read
_VALUED_OPTIONS = frozenset({"-name", "-iname", "-path", "-ipath", "-e", "-f", "-g", "--glob", "--include", "--exclude",
                             "--exclude-dir"})
_LISTERS = frozenset({"find", "fd", "ls", "rg", "grep", "git"})  # whose output lines may be paths found
_NOT_A_PLACE_RE = re.compile(r"://|[*?\[\]{}$]|^[ab]/")  # a URL, a glob, a variable, a diff's `a/` `b/` side


def _read_places(call: ToolCall, output: str) -> list[str]:
    """The files a call that worked read or listed: a read or edit tool's path; the operands of a
    reading or look-up command (resolved against its leading `cd`); the lines of a look-up's output
    that are paths (`./sympy/sets/sets.py`, `src/a.py:12:` of `grep -rn`)."""
    if call.kind in (ToolKind.READ, ToolKind.EDIT) and call.path:
        return [call.path]
    if not call.command:
        return []
    out: list[str] = []
    listed = False
    base = ""  # the folder the line's `cd`s moved to: its later parts' relative paths are inside it
    for part in split_commands(call.command):
        cd = leading_cd(part)
        plain = words(part)
        if cd is None and len(plain) == 2 and plain[0] == "cd":  # `cd x` as its own part of the line
            cd = (plain[1], "")
        if cd is not None:
            base = cd[0] if cd[0].startswith(("/", "~")) else posixpath.join(base, cd[0])
            part = cd[1]
        said, _ = unredirected(run_words(part))  # where output goes is written, not read (`2>/dev/null`)
        if not said or said[0] not in _READERS:
            continue
        listed = listed or said[0] in _LISTERS
        skip = False  # the word after an option that takes a value (`-name sets.py`)
        pattern = said[0] in _PATTERN_FIRST and not any(w in ("-e", "-f", "--regexp", "--file") for w in said)
        for word in said[1:]:
            if skip or word.startswith("-"):
                skip = word in _VALUED_OPTIONS
                continue
            if pattern:  # grep's first operand is what it looks for, not where
                pattern = False
                continue
            if _NOT_A_PLACE_RE.search(word) or not _file_like(word):
                continue
            out.append(posixpath.join(base, word) if base and not word.startswith(("/", "~")) else word)
    if listed:
        for line in output[:4000].splitlines():
            word = _LINE_SUFFIX_RE.sub("", line.strip()).strip()
            if word and " " not in word and ("/" in word or "\\" in word) and not _NOT_A_PLACE_RE.search(word):
                out.append(posixpath.join(base, word) if base and not word.startswith(("/", "~")) else word)
    return out


# A command that prints a part of what it reads: a stage of `head`/`tail`/`grep`/`wc`, a `sed -n` range, `nl … | sed`
_NARROWS_RE = re.compile(r"\|\s*(?:head|tail|grep|wc|cut)\b|\bsed -n\b|\bgrep -[A-Za-z]*[nmlc]|--tb=(?:short|line|no)")


def _narrowed_after(transcript: Transcript, occ: Occurrence, cache: _ResultsCache | None) -> str:
    """A harness's note that an output was too long, then the agent's next command that printed only a
    part (`sed -n '1040,1060p' f`, `… | tail -20`) and drew no such note: the way the session went on.
    Why: "no fix seen" of a note the agent answered by narrowing its commands reads as a fault left."""
    again = _norm_command(occ.location.command)
    rerun = ""
    for rnd in transcript.rounds[occ.round:occ.round + 3]:
        results = _round_results(rnd, cache)
        for msg in rnd.messages:
            for call in msg.tool_calls:
                res = results.get(id(call))
                if not call.command or res is None or _MISSING_RE.search(res.content[:300]) \
                        or any(h.id in _HARNESS_NOTES for h in classify(res.content, tool_output=True)):
                    continue
                if _NARROWS_RE.search(call.command) and _succeeded(res) and _narrows(call.command, occ.location.command):
                    return f"then it printed parts only: `{_as_run(call.command)}` (r{rnd.number})"
                if again and not rerun and _norm_command(call.command) == again:
                    # the same command again, with no such note (fewer failures to print, or a crash: what it
                    # printed is its own record's); the agent's narrowing, when it came, says more
                    rerun = f"then `{_as_run(call.command)}` ran again without the note (r{rnd.number})"
    return rerun


def _narrows(command: str, noted: str | None) -> bool:
    """Whether a narrowed command is the noted one's, printing less: the same program (`pytest … | tail -20`
    after `pytest …`), or a file the noted one printed whole (`sed -n '225,235p' f` after `cat f`); any, when
    which command drew the note is not known. Not a view of another file after a test run's long log (sympy's
    `nl -ba basic.py | sed -n …` was no answer to its test output)."""
    if not noted:
        return True
    if program_of(noted) == program_of(command):
        return True
    files = {w for w in words(noted) if _file_like(w)}
    return any(w in files for w in words(command))


_LINE_SUFFIX_RE = re.compile(r":\d.*$")  # `src/x.py:12:` of a match: the file


def _relative(path: str, cwd: str | None) -> str:
    """A path as the session's working directory sees it (the directory's own prefix dropped)."""
    path = path.replace("\\", "/")
    root = (cwd or "").replace("\\", "/").rstrip("/")
    return path[len(root) + 1:] if root and path.startswith(root + "/") else path.removeprefix("./")


def _tests_ran_otherwise(transcript: Transcript, occ: Occurrence, cache: _ResultsCache | None) -> str:
    """A test command that could not start (sympy's `python3 -m pytest …`: "No module named pytest"), then
    the tests run by another program that printed its counts (`bin/test …`): the way round it."""
    command = occ.location.command or ""
    if not command or not is_test_command(command):
        return ""
    program = _program_call(command)[:1]
    for rnd in transcript.rounds[occ.round:occ.round + OTHERWISE_ROUNDS]:
        results = _round_results(rnd, cache)
        for msg in rnd.messages:
            for call in msg.tool_calls:
                if not call.command or call.continues or not is_test_command(call.command) \
                        or _program_call(call.command)[:1] == program:
                    continue
                res = results.get(id(call))
                if res is not None and res.content and (counts := parse_test_summary(res.content)):
                    return f"then the tests ran another way: `{_as_run(call.command)}` → {cut(counts, 80)} (r{rnd.number})"
    return ""


_RULE_LINE_RE = re.compile(r"^[\W_]*$|^\[\w+\]\s*[-=*]{3,}\s*$|^\[\w+\]\s*(?:Total time|Finished at)\b")


def _closing_line(output: str) -> str:
    """An output's last line that says something (not a rule of dashes, a timestamp or a duration)."""
    for line in reversed(output.strip().splitlines()[-12:]):
        line = line.strip()
        if line and not _RULE_LINE_RE.search(line):
            return line if len(line) <= WENT_ON_CHARS else line[:WENT_ON_CHARS].rsplit(" ", 1)[0] + "…"
    return ""


PROBE_NOTE = "a probe of a library (a `-c` one-liner): what the library does, no fault of the work"
# A one-line script run to try a library (`python3 -c "import idna; idna.encode('*')"`, `node -e …`)
_ONE_LINER_RE = re.compile(r"^\s*(?:python[\d.]*|node|ruby|perl)\s+-[ce]\s")
_FRAME_RE = re.compile(r'File "([^"]+)", line \d+')
_ENVIRONMENT_PATH_RE = re.compile(r"site-packages|dist-packages|[\\/]lib[\\/]python\d|node_modules|^<")


def probed(call: ToolCall | None, occ: Occurrence) -> bool:
    """An error a one-line script raised inside a library (every frame of its traceback is the script's
    `<string>` or an installed package's): the agent trying the library, not a failure of its work."""
    if call is None or not call.command or not _ONE_LINER_RE.match(call.command):
        return False
    frames = _FRAME_RE.findall(occ.evidence or "")
    # (at least one frame an installed package's: an error raised in the one-liner itself is the session's)
    return any(not f.startswith("<") for f in frames) and all(_ENVIRONMENT_PATH_RE.search(f) for f in frames)


def _edited(fix: Fix) -> str:
    """The fix's edit by its file and round ("edited `a.py` (r12)"), or by its round alone."""
    return f"edited `{fix.path}` (r{fix.round})" if fix.path else f"an edit (r{fix.round})"


EARLIER_SHOWN = 2  # a record's earlier failures told with their fix, the first ones
EARLIER_SAID_CHARS = 100


def earlier_fixes(rec: ErrorRecord, transcript: Transcript, cache: _ResultsCache | None = None,
                  calls_of: dict[int, ToolCall] | None = None) -> list[tuple[tuple[int, ...], str]]:
    """What ended each of the record's earlier failures, when an edit or a passing run did before the
    next one showed: (the failure's rounds and the fix's, "`AssertionError: The node[reftarget] is not
    'int': 'x'` — edited `sphinx/domains/python.py` (r95): …, then `test_domain_py_xrefs` no longer
    failed (r97)"). The last failure's fix is the record's solution. An edit is told only with what it
    changed, or when a test it was followed by no longer failed: a bare "edited x" may be anything.
    `calls_of`: each occurrence's failing call (by id), to tell what the edit that went through did otherwise."""
    refused = rec.id in REFUSED_BY_FILE  # an edit tool's refusals of one file end with an edit of it that went through
    if rec.id == "ERR_TOOL_FileNotFound":  # each miss ends where the file was found (pi's three misses, three causes)
        return _earlier_found(rec, transcript, cache)
    if rec.family == "TOOL" and not refused:  # a tool's other failures end by calling it otherwise, not by an edit
        return []
    calls = calls_of or {}
    out: list[tuple[tuple[int, ...], str]] = []
    commands: dict[int, set[str]] = {}  # each round's failing command lines, once per record
    for o in rec.occurrences:
        commands.setdefault(o.round, set()).add(" ".join((o.location.command or "").split()))
    for ep in earlier_episodes(rec.occurrences, by_file=refused):
        last = ep.occurrences[-1]
        part = ErrorRecord(rec.id, list(ep.occurrences))
        fix = _fix_after(transcript, part, last.round - 1 if _users(transcript, last) else last.round, cache,
                         until=(ep.next_round, ep.next_message), latest=bool(ep.tests))
        if fix.rerun and fix.call is not None:
            text = f"then `{_as_run(fix.call.command or '')}` no longer printed it (r{fix.round})"
        elif fix.round and (fix.change or ep.tests):
            text = _edited(fix)
            if fix.restored and fix.call is not None:
                text = f"restored `{fix.path}` with `{_as_run(fix.call.command or '')}` (r{fix.round})"
            if ep.file and fix.call is not None and (failed := calls.get(id(last))) is not None:
                changed = changed_arguments(failed, fix.call, fix.change or "")
                text += f" with {changed}" if changed else ""
            if fix.change:
                text += f": {fix.change}"
        elif not ep.file and _rerun_next(commands, last, ep.next_round) \
                and (got := _installed_before(transcript, last.round, ep.next_round, ep.said, cache)) is not None:
            fix = Fix(None, got[0], "")
            text = f"{INSTALLED} `{_as_run(got[1])}` (r{got[0]})"
        else:
            continue
        if ep.file and (not fix.path or not same_file(fix.path, ep.file)):
            continue  # a refused file's failure ends with an edit of that file, not of another one nearby
        if ep.tests:
            text += f", then `{label_of_test(ep.tests[0])}` no longer failed (r{ep.next_round})"
        elif fix.passed_round and fix.passed_command:
            text += f", then `{_as_run(fix.passed_command)}` passed (r{fix.passed_round})"
        if ep.file and (cause := refusal_cause(transcript, list(ep.occurrences))):
            text += f"; {cause}"
        if ep.file:  # what failed is the edits of that file; the record's Error line quotes the refusals
            n = len(ep.occurrences)
            said = f"{n} refused edit{'s' if n > 1 else ''} of `{file_name(ep.file)}`"
        else:
            quoted = cut(ep.said, EARLIER_SAID_CHARS)
            said = (f"“{quoted}”" if "`" in quoted else f"`{quoted}`") if quoted else "a failure"
        rounds = tuple(sorted({o.round for o in ep.occurrences} | ({fix.round} if fix.round else set())))
        out.append((rounds, f"{said} — {text}"))
        if len(out) == EARLIER_SHOWN:
            break
    return out


def _earlier_found(rec: ErrorRecord, transcript: Transcript, cache: _ResultsCache | None) -> list[tuple[tuple[int, ...], str]]:
    """Each earlier miss of a file with where the session then found it, before the next miss."""
    out: list[tuple[tuple[int, ...], str]] = []
    for ep in earlier_episodes(rec.occurrences):
        found = _found_elsewhere(transcript, ErrorRecord(rec.id, list(ep.occurrences)), cache, until=ep.next_round)
        if found:
            quoted = cut(ep.said, EARLIER_SAID_CHARS)
            said = (f"“{quoted}”" if "`" in quoted else f"`{quoted}`") if quoted else "a failure"
            out.append((tuple(sorted({o.round for o in ep.occurrences})), f"{said} — {found}"))
        if len(out) == EARLIER_SHOWN:
            break
    return out


INSTALLED = "ended with the install"


def _installed_first(installed: str, solution: str) -> str:
    """A record's solution with the install that ended its earlier failure first, then the later failure's
    status ("no fix seen after r48") before the agent's account: a budget cuts a solution's last clauses."""
    parts = solution.split("; ")
    status = [p for p in parts if p.startswith(("no fix seen", "unresolved"))]
    return "; ".join([installed, *(f"the later failure: {p}" for p in status), *(p for p in parts if p not in status)])


def _rerun_next(commands: dict[int, set[str]], last: Occurrence, next_round: int) -> bool:
    """Whether the failure that replaced an episode came from the very command that had failed (a run of
    the suite again, not a probe of another thing). `commands`: each round's failing command lines."""
    key = " ".join((last.location.command or "").split())
    return bool(key) and key in commands.get(next_round, ())


def _installed_before(transcript: Transcript, start: int, end: int, said: str,
                      cache: _ResultsCache | None) -> tuple[int, str] | None:
    """The last package install that succeeded between a failure's round and the round a failure of
    another message replaced it (requests' "fixture 'httpbin' not found", then `pip install pytest-httpbin`,
    then only "fixture 'mocker' not found"): what ended that failure, where no edit did."""
    found = None
    for rnd in transcript.rounds[start:max(start, end - 1)]:
        results = _round_results(rnd, cache)
        for msg in rnd.messages:
            for call in msg.tool_calls:
                if not (call.command and call.kind is ToolKind.SHELL and installs(call.command)):
                    continue
                res = results.get(id(call))
                if _succeeded(res) and res is not None and not _INSTALL_FAILED_RE.search(res.content) \
                        and _names_package(call.command, said):
                    found = (rnd.number, call.command)
    return found


# pip's and npm's own word that nothing was installed (an export keeps no exit status)
_INSTALL_FAILED_RE = re.compile(r"(?m)^(?:ERROR:|npm ERR!|npm error\b|E:)|No matching distribution|Could not find a version")
_WORD_RE = re.compile(r"[a-z][a-z0-9]{2,}")
_PACKAGE_PARTS_RE = re.compile(r"[-_.=<>\[\]@/~^]+")


def _names_package(command: str, said: str) -> bool:
    """Whether an install names a package whose name (or a part of it: `pytest-httpbin`'s `httpbin`) the
    failure's message says (`fixture 'httpbin' not found`): the install was for it."""
    words = set(_WORD_RE.findall(said.lower()))
    after = command.split(" install", 1)[-1] if " install" in command else command.split(" add ", 1)[-1]
    named = [w for w in after.split() if not w.startswith("-")]
    if not named or re.search(r"(?:^|\s)-[re]\b|--requirement\b|--editable\b", after):
        return True  # the project's own requirements (`-r requirements-dev.txt`, `-e .`, a bare `npm install`)
    for word in named:
        parts = {p for p in _PACKAGE_PARTS_RE.split(word.lower()) if len(p) >= 3 and not p.isdigit()}
        # a part that is a word of the message or begins one (`pytest-mock` for "fixture 'mocker'")
        if any(w == p or len(p) >= 4 and w.startswith(p) for p in parts for w in words):
            return True
    return False


ADVISED_OPTIONS = 3  # of an answer's options, told in a record
ADVISED_CHARS = 90  # each: its first sentence, cut


def _advised(transcript: Transcript, occ: Occurrence) -> str | None:
    """What the agent advised doing about an error the user pasted, when it answered in words only (no
    edit followed): the options of its latest such answer before the user asked something new ("advised
    (r3): publish with `--provenance=false`; bump the version…"). A short follow-up ("I never published
    this version") is no new ask: the answer to it refines the advice."""
    found: tuple[int, list[str]] | None = None
    seen: Round | None = None
    for rnd, msg in _replies(transcript, occ.round - 1, occ.round, occ.message or 0):
        if rnd is not seen:
            seen = rnd
            if any(m.tool_calls for m in rnd.messages):
                break  # the agent went to work: what it did is the fix, or there is none
        if msg.role is Role.ASSISTANT and msg.text and not msg.harness and (options := options_in(msg.text)):
            found = (rnd.number, options)
    return _told(found)


def _told(found: tuple[int, list[str]] | None) -> str | None:
    if found is None:
        return None
    rnd, options = found
    said = [cut(_first_sentence(o), ADVISED_CHARS) for o in labeled_first(options)[:ADVISED_OPTIONS]]
    return f"advised (r{rnd}): " + OPTION_SEP.join(said)  # one clause: a fit to a width cuts each, drops none


def _first_sentence(option: str) -> str:
    """An option's first sentence: it says the option ("临时绕过：加 `--provenance=false` 重新发布")."""
    return _SENTENCE_END.split(option, 1)[0].rstrip("。.;；")


_SENTENCE_END = re.compile(r"(?<=[.!?])\s|(?<=[。！？])")
