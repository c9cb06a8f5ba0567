"""Events: what happened in a transcript, each with its round number.

Loaders normalise every agent's tool vocabulary into ToolCall.kind (read/write/edit/shell/...);
this module turns those calls, their results, the shell command lines themselves (`sed -i`,
`cat > f <<EOF`, `git apply`, ...), aider's "Applied edit to" lines and the text of every
message (markers, decisions, todos, test counts) into one flat, ordered list of events.
"""

from __future__ import annotations

import os
import re
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from enum import StrEnum

from compaction.edit_owner import in_language, owner
from compaction.edits import (
    FileChange,
    Hunk,
    anchored_change,
    call_changes,
    changes_nothing,
    new_text,
    numbered_lines,
    pair_hunks,
    read_in,
    refused,
    replay,
    result_changes,
    same_file,
    shown_text,
    shows_numbered,
    snippet_diff,
    without_labelled_blocks,
)
from compaction.git_output import git_file_changes
from compaction.lexical import holds_word
from compaction.line_views import LineViews
from compaction.literal_heads import LinePattern, Scanner, heads, matches_at, positions
from compaction.mdsafe import inline_code
from compaction.memo import per_text
from compaction.model import Message, Role, Round, ToolCall, ToolKind, ToolResult, Transcript
from compaction.shell import (
    blank_quotes,
    first_word,
    made_dirs,
    scripts_run,
    split_commands,
    transfer,
    transfers,
    unredirected,
    without_heredoc_body,
    words,
)
from compaction.template_noise import without_template_noise
from compaction.transcripts.path_spelling import PathSpellings, file_name
from compaction.transcripts.tool_shapes import classify


class EventKind(StrEnum):
    READ = "read"
    WRITE = "write"  # whole file created or overwritten
    EDIT = "edit"
    DELETE = "delete"
    MOVE = "move"  # renamed unchanged (git output's 100% renames): `path` the new place, `text` the old
    REVERT = "revert"  # `git checkout -- f`, `git restore f`: back to the committed state; aider `/undo` (commit_hash)
    COMMAND = "command"
    TEST = "test"  # a test run's reported counts (also emitted as a COMMAND)
    COMMIT = "commit"
    MARKER = "marker"  # @important / @decision / @warning / @todo, verbatim
    DECISION = "decision"
    CONSTRAINT = "constraint"
    TODO = "todo"  # a todo list item or a stated next step
    REQUEST = "request"  # a user request (the task and later asks)


@dataclass(frozen=True, slots=True)
class Miss:
    """A line-addressed substitution (`sed -i 'Ns/a/b/'`) whose line held no `a`: the substitution, what
    the line held as last seen (None: not seen), and the definition the line lies in with the line that
    opens it ("", 0: not seen), which say what the agent meant to change where."""

    hunk: Hunk
    held: str | None = None
    scope: str = ""
    opened: int = 0


@dataclass(slots=True)
class Event:
    """One thing that happened, typed by kind: file events (read/write/edit/delete/revert) carry
    `path` (and `command`, `via_shell` when a shell line did it); commands carry `command`,
    `exit_code`, `failed`, `test`, `test_summary`, `search`, `state_changing`; todos `status`;
    markers `marker`; commits `commit_hash` (and `path` when it committed the user's own edits of
    that file, aider's `Committing f before applying edits`); text events (request, decision, constraint) `text`."""

    kind: EventKind
    round: int
    message_index: int
    path: str | None = None
    command: str | None = None
    exit_code: int | None = None
    text: str = ""
    tool: str | None = None
    state_changing: bool = False  # commands: changed files, packages, git state
    # Typed by kind (each kind sets only its own):
    failed: bool = False  # a tool call or command whose result was an error or a non-zero exit
    via_shell: bool = False  # file events: parsed out of a shell command line, not a file tool
    git_output: bool = False  # file events: reported by a git command's output (`compaction.git_output`)
    inferred: bool = False  # file events: a path-less change whose content named its file (`_named_by_content`)
    call_id: str | None = None  # inferred file events: the path-less call's id (the error memory's fixes name its file)
    test: bool = False  # commands: a test run (by its command line or its output's counts)
    test_summary: str | None = None  # commands: the runner's closing counts, verbatim
    search: bool = False  # commands: a search tool's call (grep/glob tools), not a shell command
    continued: bool = False  # tests: counts read from more output of a command still running
    status: str | None = None  # todos: the item's status (pending, in_progress, done…; "next": a stated plan)
    marker: str | None = None  # markers: important | decision | warning | todo
    commit_hash: str | None = None  # commits
    hunks: tuple[Hunk, ...] = ()  # writes/edits: the lines removed and added, when the payload shows them
    whole: bool = False  # writes/edits: `hunks` hold the file's entire new content
    moved: tuple[str, str] | None = None  # a `mv`/`git mv`'s write and deletion: (source, destination)
    unchanged: bool = False  # edits: applied, but its new text was its old one (the file is as it was)
    proposed: bool = False  # edits: an aider block a reply proposed and aider never applied (/ask, architect mode)
    missed: int = 0  # line-addressed substitutions (`sed -i 'Ns/a/b/'`) of it whose line held no such text
    misses: tuple[Miss, ...] = ()  # those substitutions, each with its line's text and definition

    @property
    def missed_where(self) -> tuple[str, ...]:
        """The missed substitutions by line and what it held ("line 1048 holds `\"\"\"`, not `…`")."""
        return tuple(_missed_where(m.hunk, m.held) for m in self.misses)


MARKER_RE = re.compile(r"@(important|decision|warning|todo)\b", re.IGNORECASE)
_MARKER_LINE_RE = re.compile(r"(?m)^[^\n]*@(?:important|decision|warning|todo)\b[^\n]*", re.IGNORECASE)

# --- shell command analysis -------------------------------------------------------------------

_REDIRECT_RE = re.compile(r"(?<![0-9&<>=-])>{1,2}\s*(['\"]?)([^\s'\";&|<>()]+)\1")
_HEREDOC_CAT_RE = re.compile(r"\bcat\s+(?:<<-?\s*['\"]?\w+['\"]?\s*)?>{1,2}\s*(['\"]?)([^\s'\";&|<>]+)\1")
_TEE_RE = re.compile(r"\btee\s+(?:-a\s+)?(['\"]?)([^\s'\";&|<>-][^\s'\";&|<>]*)\1")
_SED_I_RE = re.compile(r"\bsed\s+(?:-[a-zA-Z]*\s+)*-i")
_PY_INLINE_RE = re.compile(r"\bpython[0-9.]*\s+(?:-\s*<<|-c\b)")  # a python script given inline
_PY_OPEN_W_RE = re.compile(r"open\(\s*['\"]([^'\"]+)['\"]\s*,\s*['\"][wa]")
_WRITE_TEXT_RE = re.compile(r"Path\(\s*['\"]([^'\"]+)['\"]\s*\)\.write_text")
_PATCH_FILE_RE = re.compile(r"^(?:\+\+\+ b/|\*\*\* (?:Update|Add) File: )(\S+)", re.MULTILINE)
_PATCH_DELETE_RE = re.compile(r"^\*\*\* Delete File: (\S+)", re.MULTILINE)
_READ_CMDS = {"cat", "head", "tail", "nl", "less", "more", "bat", "view"}
_SEARCH_CMDS = {"grep", "rg", "ag", "find", "ls", "tree", "fd", "git grep", "locate", "wc"}
# The package managers a command line runs to install or remove packages (one list for both uses below)
_PACKAGE_MANAGERS = (r"(?:pip3?|python3? -m pip|uv(?: pip)?|poetry|pipx|npm|yarn|pnpm|bun|cargo|go|mvn|gradle|apt-get|"
                     r"apt|brew|gem|conda|mamba|micromamba)")
_STATE_CMDS = re.compile(
    rf"^(?:sudo\s+)?{_PACKAGE_MANAGERS}"
    r"\s+(?:install|add|remove|uninstall|update|upgrade|get|mod)\b"
    r"|^(?:git\s+(?:commit|apply|am|checkout|switch|reset|revert|merge|rebase|stash|add|rm|mv|restore|cherry-pick|push|pull|clone|init))\b"
    r"|^git\s+tag\s+(?!-l\b|--list\b|-n\d*\b|--contains\b|--points-at\b)\S"  # a tag made or deleted, not listed
    r"|^(?:mv|cp|rm|mkdir|rmdir|touch|chmod|chown|ln|patch|unzip|tar\s+-?x)\b"
    r"|^(?:make|cmake|npm run build|tsc\b(?!.*--noEmit))"
)
_TEST_CMD_RE = re.compile(
    r"\b(?:pytest|py\.test|tox|nox|unittest|runtests\.py|manage\.py test|npm (?:run )?test|yarn test|pnpm test|"
    r"jest|vitest|mocha|go test|cargo test|mvn\b[^\n]*\btest|gradle\w*\s+test|ctest|make (?:test|check)|rspec|bin/test)"
    r"(?!\.\w)"  # not a runner's file (`cat tox.ini`, `pytest.ini`, `jest.config.js`): reading it runs nothing
)

# Test summaries: pytest "=== 3 failed, 14 passed in 1.2s ===", unittest "Ran 12 tests", maven, jest, go, cargo.
_PYTEST_SUMMARY_RE = re.compile(
    r"^=+ ((?:\d+ (?:passed|failed|errors?|skipped|xfailed|xpassed|warnings?|deselected|rerun)(?:, )?)+)"
    r"(?: in [\d.]+s(?: \([\d:]+\))?)? =+$",
    re.MULTILINE,
)
_UNITTEST_RE = re.compile(r"^Ran (\d+) tests? in [\d.]+s[^\S\n]*\n\s*+(OK(?: \([^)]*\))?|FAILED \([^)]*\))", re.MULTILINE)
_MAVEN_RE = re.compile(r"Tests run: (\d+), Failures: (\d+), Errors: (\d+), Skipped: (\d+)(?!,\s*Time)")
_JEST_RE = re.compile(r"^Tests:\s++(.*\d total)$", re.MULTILINE)
_VITEST_RE = re.compile(r"^[ \t]*Tests[ \t]{2,}((?:\d+ \w+ \| )*\d+ \w+ \(\d+\))[ \t]*$", re.MULTILINE)  # vitest
_CARGO_RE = re.compile(r"^test result: (ok|FAILED)\. (\d+ passed; \d+ failed[^\n]*)$", re.MULTILINE)
_SYMPY_RE = re.compile(r"tests finished: ([^=\n]*?), in [\d.]+ seconds")
# `go test`'s line per package: its time, or `(cached)` when the result was reused (it passed all the same)
_GO_RE = re.compile(r"^(ok|FAIL)\s+(\S+)\s+(?:[\d.]+s|\(cached\))(?:\s+coverage:[^\n]*)?$", re.MULTILINE)
GO_NAMED = 4  # packages named in a summary

# --- text analysis ----------------------------------------------------------------------------

# (a wide stop ends a sentence with no space after it: "先运行测试。然后…")
_SENTENCE_RE = re.compile(r"(?<=[.!?。！？])\s+(?=[A-Z`\"'(\[]|[\u4e00-\u9fff])|(?<=[。！？])(?=[^\s」』）)\]”’》】〉])|\n{1,}")
# Its phrases grouped by first letter (`I…`, `the…`/`to…`, `r…`): the regex engine tries each alternative of a
# branch at every position, and alternatives opening with different letters exclude each other, so grouping them
# finds the same matches with a third fewer tries (the pattern has too many openings for `literal_heads`).
_DECISION_RE = re.compile(
    r"\b(?:I(?:(?:'ll| will) (?:use|go with|keep|switch|implement|change|modify|add|avoid|not)|"
    r" should(?: probably| just)? (?:use|override|implement|change|modify|keep|replace|switch|avoid|not(?! have))\b|"
    r" (?:decided|chose|choose|prefer)|nstead of)|we (?:decided|should|must|will use|need to keep)|decid(?:e|ed|ing) to|"
    r"r(?:ather than|oot cause is)|"
    r"t(?:he (?:(?:best|right|correct|cleanest|simplest|proper) (?:fix|approach|solution|way|place)|"
    r"fix (?:is|should|will)|root cause|issue is (?:that|caused)|problem is (?:that|caused))|"
    r"o (?:preserve|maintain|keep) (?:backward|compatib))|backward[- ]compatib|approach:|plan:|strategy:)",
    re.IGNORECASE,
)
# The same choices said in Chinese (decided, change to, switch to, cut, give up, adopt): the seed's own language.
# Not 而不是 ("rather than"): most often it contrasts in an explanation ("returns `false`, not the string").
# Apart from `_DECISION_RE`: its word boundary is no boundary between two CJK characters.
_DECISION_CJK_RE = re.compile(r"决定|決定|改成|改为|改為|改用|砍掉|放弃|放棄|采用|採用|不再使用")
# The agent telling what the user said or wants ("The user is pointing out that the README still says "Bastion V2"
# instead of …", its thinking's first line after a request): reported words, no choice of the agent's
USER_REPORTED_RE = re.compile(r"^\W*(?:the|so the|ok(?:ay)?,? the) user(?:'s)? (?:is |has |had |was )?(?:\w+ing|"
                              r"wants?|asks?|asked|says?|said|points?|pointed|mentions?|mentioned|notes?|noted|"
                              r"requests?|requested|reports?|reported|would like|needs?|prefers?|thinks?|feels?)\b",
                              re.IGNORECASE)
# A line the agent quoted from a tool's output ("DeprecationWarning: Using … from 'collections' instead of from
# 'collections.abc' is deprecated", whole in quotes or in one code span, or opening on an exception's class name):
# the output's words, not the agent's choice, whatever "instead of" it holds. A bare "Warning:" is the agent's.
QUOTED_OUTPUT_RE = re.compile(r"^\s*(?:[\"“][^\"“”]*[\"”]\W*$|`[^`]*`\W*$|[\w.]*[A-Za-z](?:Error|Warning|Exception):)")
# An offer to the user ("If you'd rather move it, say the word and I'll…", "Want me to…", "Let me know
# if…"): what the agent would do if asked, never a choice it made nor the reason for one.
OFFER_RE = re.compile(r"^(?:If you(?:['’]d| would)? (?:rather|prefer|like|want)|Want me to|Would you like|Shall I|"
                      r"Should I|Let me know|Happy to)\b|\b(?:say the word|let me know (?:if|whether)|if you['’]d like)\b",
                      re.IGNORECASE)

_CONSTRAINT_RE = re.compile(
    r"\b(?:do not|don't|never|must not|must|should not|shouldn't|only|make sure|ensure|without modifying|"
    r"you (?:need|have) to|requirement|constraint)\b"
    # what the user wants left as it is ("No change on `specstory sync`", "leave the tests alone")
    r"|(?:^|[.!;:]\s+|\n\s*|\bplease\s+)(?:make\s+)?no changes? (?:on|to)\b"
    r"|(?:^|[.!;:,]\s+|\n\s*|\bplease\s+|\bbut\s+|\band\s+)(?:leave|keep)\b[^.?\n]{0,40}?\b(?:alone|as it is|as is|unchanged|"
    r"untouched)\b(?![^.\n]*\?)"
    # an order to stop what the agent was doing ("stop doing shit!", "just stop committing"): it stands
    r"|(?:^|[.!;:,]\s+|\n\s*|\bplease\s+|\bjust\s+)stop (?:doing|running|making|changing|touching|committing|adding|"
    r"using|editing|creating)\b"
    # the language the user wants replies in ("answer in Chinese", "用中文回答"): every later reply keeps it
    r"|\b(?:answer|reply|respond|write|explain|talk|speak)\b[^.\n]{0,20}?\bin (?:[a-z]+ )?"
    r"(?:english|chinese|mandarin|cantonese|japanese|korean|spanish|french|german|italian|portuguese|russian|"
    r"arabic|hindi|dutch|polish|turkish|vietnamese|thai|indonesian|swedish|ukrainian|hebrew|greek)\b",
    re.IGNORECASE,
)
# The same in wide text, searched apart: a word boundary never falls inside a run of CJK characters ("请不要修改测试"
# is one "word"), so these go without one; "不要紧" (never mind), "要不要" (whether to) and "是否必须" (whether it
# must) are no orders, "只要不要改测试" (as long as the tests are not changed) is one.
_CONSTRAINT_CJK_RE = re.compile(r"禁止|(?<!是否)(?<!不)必须|(?:(?<!要)|(?<=只要))不要(?!紧)|别再|用(?:中文|英文|英语|日文|日语)|(?:中文|英文)(?:回答|回复)|"
                                r"日本語で|한국어로")
# A timestamp (`2025-09-25T22:44:30.0442684Z`, `[2025-09-25 22:44]`). A line that opens with one is output the
# user pasted (a CI log), not their words: its `--name-only` or `must` is no constraint of theirs.
TIMESTAMP_RE = re.compile(r"\[?\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?\]?")
STAMPED_LINE_RE = re.compile(r"^[ \t]*" + TIMESTAMP_RE.pattern + r"[ \t]?", re.M)  # a line's opening stamp
_STAMPED_LINES_RE = re.compile(STAMPED_LINE_RE.pattern + r".*\n?", re.M)  # such lines whole
_BOX_CHAR_RE = re.compile("[\u2500-\u257f]")  # box drawing: a terminal UI's frame
_FRAMED_LINES_RE = re.compile("^[ \t]*[\u2500-\u257f][^\n]*\n?", re.MULTILINE)
# Work left ("the remaining failures", "two tasks remaining"), not a quantity ("the remaining height").
_WORK_NOUNS = r"(?:work|tasks?|steps?|items?|issues?|todos?|errors?|failures?|tests?|bugs?|problems?|fixes|changes|files|questions)"
REMAINING_WORK = rf"remaining\s+(?:(?!(?:in|of|to|on|at|for)\b)\w+\s+)?{_WORK_NOUNS}\b|\b{_WORK_NOUNS}\s+remaining\b"
_NEXT_RE = re.compile(
    r"\b(?:next,? I(?:'ll| will)|next step|next steps|then I(?:'ll| will)|now I(?:'ll| will| need to)|"
    r"I still need to|" + REMAINING_WORK + r"|TODO\b|still to do|left to do|I should now|let me now|下一步|待办)",
    re.IGNORECASE,
)
_TODO_LINE_RE = re.compile(r"^[^\S\n]*(?:[-*]|\d+\.)\s*\[( |x|X)\]\s+(.+)$", re.MULTILINE)
_TODO_LINES = LinePattern(_TODO_LINE_RE)  # tried at line breaks, not at every position of a long message
_BOX_RE = re.compile(r"\[[ xX]\]")  # "[ ]", "[x]" or "[X]": one scan for "[" (three 3-letter finds cost ten times more)
_STAMPED_LINE = LinePattern(STAMPED_LINE_RE)
_AIDER_APPLIED_RE = re.compile(r"^>?[^\S\n]*Applied edit to (.*\S)\s*$", re.MULTILINE)
_AIDER_COMMIT_RE = re.compile(r"^>?[^\S\n]*Commit ([0-9a-f]{7,40}) (.+)$", re.MULTILINE)
_AIDER_DIRTY_RE = re.compile(r">?\s*Committing (.+?) before applying edits\.[ \t]*\n[> \t]*\Z")
_AIDER_UNDO_RE = re.compile(r"^>?[^\S\n]*Removed: ([0-9a-f]{7,40}) (.+)$", re.MULTILINE)
_GIT_COMMIT_OUT_RE = re.compile(r"^\[[\w./-]+ (?:\(root-commit\) )?([0-9a-f]{7,40})\] (.+)$", re.MULTILINE)


def shell_writes(command: str) -> list[tuple[EventKind, str]]:
    """Files a shell command line writes, edits or deletes (best effort, no execution)."""
    return list(_shell_writes(command))


@per_text(maxsize=4096)
def _shell_writes(command: str) -> tuple[tuple[EventKind, str], ...]:
    out: list[tuple[EventKind, str]] = []
    seen: set[str] = set()

    def add(kind: EventKind, path: str, moved_away: bool = False) -> None:
        """Each file once, but a file written then moved away by the same line (`> b.tmp && mv b.tmp b`)."""
        path = path.strip().strip("'\"")
        again = moved_away and (EventKind.WRITE, path) in out and (EventKind.DELETE, path) not in out
        if not path or (path in seen and not again) or path.startswith(("/dev/", "&")) or path in {"-", "/dev/null"}:
            return
        if path.lower() in _NULL_DEVICES:  # Windows' `2>nul`, PowerShell's `> $null`
            return
        if not re.search(r"[\w]", path):
            return
        seen.add(path)
        out.append((kind, path))

    head = command.split("<<", 1)[0] if "<<" in command else command
    body = command[len(head):]
    # Redirections in the command part (not inside a heredoc body, a quoted script or a python -c
    # string): found where the shell sees them, read from the original text. The lines before a
    # heredoc's are commands too (`# make the agent\ncat > f <<EOF`).
    redirect_part = without_heredoc_body(command)
    if ">" in redirect_part:  # both patterns need one (blanking quotes adds none)
        for m in _unquoted_matches(_HEREDOC_CAT_RE, redirect_part, "cat"):
            add(EventKind.WRITE, m.group(2))
        for m in _unquoted_matches(_REDIRECT_RE, redirect_part, ">"):
            target = m.group(2)
            if re.fullmatch(r"\d+", target) or target.startswith("$"):
                continue
            add(EventKind.WRITE, target)
    if "tee" in command:
        for m in _unquoted_matches(_TEE_RE, redirect_part, "tee"):
            add(EventKind.WRITE, m.group(2))
    for part in split_commands(command):
        word = first_word(part)
        if word not in _WRITING_PROGRAMS and word.lower() not in _PS_FILE_CMDS:
            continue  # a program that changes no file by its arguments: its words are not split
        args = words(part)
        if args and args[0] != word and word in args:  # `sudo rm x`, `time mv a b`: the program's own arguments
            args = args[args.index(word):]
        if word == "sed" and _SED_I_RE.search(part):
            files = _sed_files(args)
            for f in files:
                add(EventKind.EDIT, f)
        elif word in {"perl", "ruby"} and any(a.startswith("-i") or a == "-pi" or a.startswith("-pi") for a in args):
            for a in args[1:]:
                if not a.startswith("-") and re.search(r"\.\w+$", a) and " " not in a:
                    add(EventKind.EDIT, a)
        elif word == "rm":
            for a in args[1:]:
                if not a.startswith("-"):
                    add(EventKind.DELETE, a)
        elif word in {"mv", "cp", "git"} and (moved := transfer(args)) is not None:
            for source, destination in moved.pairs():  # `mv f dir/`: dir/f
                add(EventKind.WRITE, destination)
                if moved.moves:
                    add(EventKind.DELETE, source, moved_away=True)
        elif word == "touch":
            for a in args[1:]:
                if not a.startswith("-"):
                    add(EventKind.WRITE, a)
        elif word == "git" and len(args) > 2 and args[1] in {"checkout", "restore"} and not (
                {"-b", "-B", "--orphan"} & set(args)) and not _unstages_only(args):
            # `git checkout -b feature/x`: a new branch, no file; `git restore --staged f`: the index only
            for a in args[2:]:
                if a.startswith("-") or a in {"HEAD", "."} or not re.search(r"/|\.\w+$", a):
                    continue
                add(EventKind.REVERT, a)
        elif word.lower() in _PS_FILE_CMDS and (target := ps_path(ps_words(part))):
            kind = _PS_FILE_CMDS[word.lower()]
            if word.lower() != "new-item" or not re.search(r"(?i)-itemtype\s+dir", part):
                add(kind, target)
        elif word == "git" and len(args) > 1 and args[1] in {"apply", "am"}:
            for m in _PATCH_FILE_RE.finditer(body):
                add(EventKind.EDIT, m.group(1))
        elif word == "patch":
            for m in _PATCH_FILE_RE.finditer(body):
                add(EventKind.EDIT, m.group(1))
    if "python" in command and _PY_INLINE_RE.search(command):  # the literal first: a `\b` pattern is tried everywhere
        for m in _PY_OPEN_W_RE.finditer(command):
            add(EventKind.WRITE, m.group(1))
        for m in _WRITE_TEXT_RE.finditer(command):
            add(EventKind.WRITE, m.group(1))
    if "*** Begin Patch" in command:
        for m in _PATCH_FILE_RE.finditer(command):
            add(EventKind.EDIT, m.group(1))
        for m in _PATCH_DELETE_RE.finditer(command):
            add(EventKind.DELETE, m.group(1))
    return tuple(out)


_WRITING_PROGRAMS = frozenset({"sed", "perl", "ruby", "rm", "mv", "cp", "touch", "git", "patch"})  # the branches below
_NULL_DEVICES = {"nul", "nul:", "$null", "con", "con:", "/dev/null"}
# PowerShell cmdlets (and their aliases) that change the file of their -Path/-FilePath or first argument.
_PS_FILE_CMDS = {"set-content": EventKind.WRITE, "out-file": EventKind.WRITE, "add-content": EventKind.EDIT,
                 "new-item": EventKind.WRITE, "remove-item": EventKind.DELETE, "del": EventKind.DELETE,
                 "erase": EventKind.DELETE}
_PS_READ_CMDS = {"get-content", "gc", "type"}
_PS_PATH_PARAMS = {"-path", "-filepath", "-literalpath", "-pspath", "-lp"}
_PS_SWITCHES = {"-force", "-nonewline", "-append", "-noclobber", "-passthru", "-whatif", "-confirm", "-recurse",
                "-raw", "-wait"}


_PS_WORD_RE = re.compile(r"'[^']*'|\"[^\"]*\"|[^\s'\"]+")


def ps_words(segment: str) -> list[str]:
    """PowerShell's words: quotes group, a backslash is a path separator (never an escape)."""
    return [w[1:-1] if w[:1] in "'\"" and len(w) >= 2 else w for w in _PS_WORD_RE.findall(segment)]


def ps_path(args: list[str]) -> str | None:
    """The file a PowerShell cmdlet names: its -Path/-FilePath value, else its first positional argument."""
    i = 1
    while i < len(args):
        a = args[i]
        low = a.lower()
        if low.startswith("-"):
            name, _, inline = low.partition(":")
            if name in _PS_PATH_PARAMS:
                value = a.split(":", 1)[1] if inline else (args[i + 1] if i + 1 < len(args) else "")
                return value or None
            i += 1 if name in _PS_SWITCHES or inline else 2
            continue
        return a
    return None


def _unquoted_matches(pattern: re.Pattern[str], text: str, opening: str):
    """`pattern`'s matches where the shell would see them (outside quotes), read from `text` itself;
    every match opens with `opening`, so only its places are tried (`literal_heads.matches_at`)."""
    blanked = blank_quotes(text)
    for m in matches_at(pattern, positions(blanked, (opening,)), blanked):
        original = pattern.match(text, m.start())
        if original is not None:
            yield original


def _sed_files(args: list[str]) -> list[str]:
    """Files of `sed -i [-e SCRIPT]... SCRIPT FILE...`."""
    files: list[str] = []
    script_seen = False
    i = 1
    while i < len(args):
        a = args[i]
        if a in {"-e", "--expression", "-f"}:
            script_seen = True
            i += 2
            continue
        if a.startswith("-"):
            i += 1
            continue
        if not script_seen:
            script_seen = True
        else:
            files.append(a)
        i += 1
    return [f for f in files if f not in {"|", ">"}]


_OUTPUT_REDIRECT_RE = re.compile(r"[0-9&]?>{1,2}")
_QUOTING = frozenset("'\"\\")  # a first word holding none of these is the program's name as written
_MAY_READ = _READ_CMDS | {"sed"}
_PS_READ_PATH_RE = re.compile(r"\w\.\w+$|[/\\]")
_SED_RANGE_RE = re.compile(r"[\d,]+p?|'.*'|\d+")  # a line range or a quoted script: no file
_READ_PATH_RE = re.compile(r"[\w]\.[\w]+$|/")


def shell_reads(command: str) -> list[str]:
    """Files a read-only command prints (cat/head/tail/nl/sed -n ...p)."""
    return list(_shell_reads(command))


@per_text(maxsize=4096)  # the events, the file blocks and the error memory read the same command lines
def _shell_reads(command: str) -> tuple[str, ...]:
    paths: list[str] = []
    for part in split_commands(command):  # a heredoc's body is data: not read
        for piece in part.split("|")[:1]:
            head = piece.split(None, 1)[:1]
            if not head or (_QUOTING.isdisjoint(head[0]) and head[0] not in _MAY_READ
                            and head[0].lower() not in _PS_READ_CMDS):
                continue  # its program (the first word, when unquoted) prints no file: no words to split
            args, _ = unredirected(words(piece))  # `cat a 2>/dev/null`: where output goes is no file read
            if not args:
                continue
            word = args[0]
            if word.lower() in _PS_READ_CMDS and (target := ps_path(ps_words(piece))):
                if _PS_READ_PATH_RE.search(target):
                    paths.append(target)
                continue
            if word in _READ_CMDS or (word == "sed" and "-n" in args and not _SED_I_RE.search(piece)):
                for before, a in zip(args, args[1:], strict=False):
                    if _OUTPUT_REDIRECT_RE.fullmatch(before):  # `cat > f <<EOF` writes f, reads none
                        continue
                    if a.startswith("-") or _SED_RANGE_RE.fullmatch(a) or a.endswith("p") and "," in a:
                        continue
                    if _READ_PATH_RE.search(a) and not a.startswith(("$", "<", ">")):
                        paths.append(a)
    return tuple(paths)


_LEADING_CD_AND_RE = re.compile(r"^(?:cd\s+\S+\s*&&\s*)")


def is_state_changing(command: str) -> bool:
    if shell_writes(command):
        return True
    for part in split_commands(command):
        stripped = part.strip()
        stripped = _LEADING_CD_AND_RE.sub("", stripped) if stripped.startswith("cd") else stripped
        if _STATE_CMDS.search(stripped):
            return True
    return False


def is_test_command(command: str) -> bool:
    """A test runner's command line (pytest, jest, go test, mvn test…), its heredoc body aside; not a
    package manager installing one (`pip install pytest-xdist`, `npm i -D vitest`), nor a look-up naming one
    (`pip list | grep pytest-httpbin`, `which pytest`): those run no test."""
    line = without_heredoc_body(command)
    if not _TEST_CMD_RE.search(line):
        return False
    if _INSTALL_RE.search(line):
        line = _INSTALL_RE.sub(" ", line)
    if _LOOKUP_RE.search(line):
        line = _LOOKUP_RE.sub(" ", line)
    return bool(_TEST_CMD_RE.search(line))


# A look-up whose arguments may name a test runner (`grep pytest`, `which jest`, `pip show pytest`), up to the
# end of its command: it runs none
_LOOKUP_RE = re.compile(r"(?:^|(?<=[\s;&|(]))(?:e?grep|rg|which|whereis|command -v|type|(?:pip3?|python3? -m pip) "
                        r"(?:list|show|freeze)|npm (?:ls|list|view|info))\b[^;&|\n]*")


# A package manager's install (`pip install x`, `uv add x`, `npm i -D x`, `apt-get install x`) up to the
# end of its command: the packages it names are not programs it runs.
_INSTALL_RE = re.compile(rf"\b{_PACKAGE_MANAGERS}\s+(?:install|add|i|get)\b[^;&|\n]*")


def installs(command: str) -> bool:
    """Whether a command line installs packages (`pip install pytest-httpbin`, `npm i -D x`)."""
    return _INSTALL_RE.search(command) is not None


_SUMMARY_HINTS = ("passed", "failed", "Tests run:", "tests finished", "test result:", "Ran ", "error", "FAIL", "ok ")


# The `^`-anchored patterns searched by their line breaks (`literal_heads.LinePattern`): tried only at a line's
# start, not at every position of an output.
_PYTEST_SUMMARY_LINES = LinePattern(_PYTEST_SUMMARY_RE)
_UNITTEST_LINES = LinePattern(_UNITTEST_RE)
_JEST_LINES = LinePattern(_JEST_RE)
_CARGO_LINES = LinePattern(_CARGO_RE)
_GO_LINES = LinePattern(_GO_RE)
_GIT_COMMIT_OUT_LINES = LinePattern(_GIT_COMMIT_OUT_RE)


@per_text(maxsize=4096)  # the events, the error memory and the current-work source read the same outputs
def parse_test_summary(output: str) -> str | None:
    """The test runner's closing counts, verbatim (e.g. '3 failed, 14 passed')."""
    if not any(map(output.__contains__, _SUMMARY_HINTS)):
        return None
    found = None
    for m in _PYTEST_SUMMARY_LINES.finditer(output):
        found = m.group(1).strip().rstrip(",")
    if found:
        # the run crashed in pytest itself (an xdist worker, a plugin): its counts alone read like any run's
        # (pytest-5787: "2 failed" of the bug, of a crash and of the fix alike: code review 25)
        crash = _INTERNAL_ERROR_RE.search(output) if "INTERNALERROR>" in output else None
        return f"{found}, INTERNALERROR: {crash.group(1).strip()}" if crash else found
    unittest_runs = list(_UNITTEST_LINES.finditer(output))
    if unittest_runs:
        m = unittest_runs[-1]
        return f"Ran {m.group(1)} tests: {m.group(2)}"
    maven = list(_MAVEN_RE.finditer(output)) if "Tests run: " in output else []  # its literal opening first
    if maven:
        ends = [m.end() for m in _MAVEN_BUILD_RE.finditer(output)] if "BUILD " in output else []
        # several builds in one output: the modules of the last one that ran tests
        builds = [[m for m in maven if a <= m.start() < b] for a, b in zip([0, *ends], [*ends, len(output) + 1], strict=True)]
        return _maven_summary(next(b for b in reversed(builds) if b))
    sympy = _SYMPY_RE.findall(output) if "tests finished: " in output else []
    if sympy:
        return sympy[-1]
    hits = _JEST_LINES.findall(output)
    if hits:
        h = hits[-1]
        return " ".join(h) if isinstance(h, tuple) else h
    hits = _CARGO_LINES.findall(output)
    if hits:
        told = _cargo_summary(hits)
        last = output.rfind("test result: ")
        # a binary started after the last result and its own not in the output (cut by `| tail -40`, or the
        # run stopped): the counts are not the run's
        unseen = len(_CARGO_RUNNING_RE.findall(output, last)) if "Running " in output[last:] else 0
        return f"{told} (the results of {unseen} more test binar{'ies' if unseen > 1 else 'y'} not in the output)" \
            if unseen else told
    hits = _VITEST_RE.findall(output) if "Tests  " in output else []
    if hits:
        return hits[-1]
    hits = _GO_LINES.findall(output)
    if hits:
        return _go_summary(hits)
    return None


_MAVEN_BUILD_RE = re.compile(r"BUILD (?:SUCCESS|FAILURE)")
# pytest's own crash: its first exception line (what went wrong first; a worker's later fallout follows it)
_INTERNAL_ERROR_RE = re.compile(r"^INTERNALERROR> ([A-Z]\w*(?:Error|Exception|Interrupt)\b[^\n]{0,80})", re.MULTILINE)


def _maven_summary(results: list[re.Match[str]]) -> str:
    """Surefire's closing `Tests run:` lines, one per module of a reactor build, added up ("Tests run: 1392,
    Failures: 0, Errors: 0, Skipped: 0 in 3 modules"): the last module's alone (its 2 tests) is not the build's."""
    if len(results) == 1:
        return results[0].group(0)
    run, failures, errors, skipped = (sum(int(m.group(i)) for m in results) for i in range(1, 5))
    return f"Tests run: {run}, Failures: {failures}, Errors: {errors}, Skipped: {skipped} in {len(results)} modules"


_CARGO_RUNNING_RE = re.compile(r"^\s+Running (?!`)\S", re.MULTILINE)  # a test binary (`cargo run`'s is quoted)
_CARGO_COUNT_RE = re.compile(r"(\d+) (passed|failed|ignored)")


def _cargo_summary(results: list[tuple[str, str]]) -> str:
    """`cargo test`'s `test result:` lines, one per test binary, added up ("ok 66 passed; 0 failed in 5
    test binaries"): the last binary's alone (`simulation_checks`' 15) is not the suite's count."""
    if len(results) == 1:
        return " ".join(results[0])
    counts = {"passed": 0, "failed": 0, "ignored": 0}
    for _, said in results:
        for n, what in _CARGO_COUNT_RE.findall(said):
            counts[what] += int(n)
    status = "FAILED" if any(s == "FAILED" for s, _ in results) else "ok"
    ignored = f"; {counts['ignored']} ignored" if counts["ignored"] else ""
    return f"{status} {counts['passed']} passed; {counts['failed']} failed{ignored} in {len(results)} test binaries"


def _go_summary(lines: list[tuple[str, str]]) -> str:
    """`go test ./...`'s packages in one line: the failed ones by name, then how many passed, named
    below their common prefix ("FAIL pkg/cloud; ok 9 packages: ., pkg/spi, pkg/utils, …"): every
    package counts, its result reused (`(cached)`) or not."""
    names = [pkg for _, pkg in lines]
    try:
        prefix = os.path.commonpath(names) if len(names) > 1 else ""
    except ValueError:  # absolute and relative names mixed: no common prefix
        prefix = ""
    short = {pkg: (pkg[len(prefix):].lstrip("/") or ".") if prefix else pkg for pkg in names}
    failed = [short[p] for status, p in lines if status == "FAIL"]
    passed = [short[p] for status, p in lines if status == "ok"]
    parts = [f"FAIL {', '.join(failed)}"] if failed else []
    if passed:
        listed = ", ".join(passed[:GO_NAMED]) + (", …" if len(passed) > GO_NAMED else "")
        parts.append(f"ok {len(passed)} package{'s' if len(passed) != 1 else ''}: {listed}")
    return "; ".join(parts)


# --- extraction ---------------------------------------------------------------------------------


def results_of_calls(round_messages: list[Message]) -> dict[int, ToolResult | None]:
    """Each tool call of a round (keyed by `id(call)`) with its result: by call id, else the next
    result not claimed by id, in order. One pairing rule for the events, the error memory and the
    findings."""
    by_id: dict[str, ToolResult] = {}
    ordered: list[ToolResult] = []
    for msg in round_messages:
        for res in msg.tool_results:
            if res.call_id:
                by_id[res.call_id] = res
            ordered.append(res)
    ids = {call.id for msg in round_messages for call in msg.tool_calls if call.id}
    # A result that names a call of this round is that call's alone: the order gives the others only
    # what no call claimed (a call whose result never came gets None, not its neighbour's).
    positional = iter([res for res in ordered if not (res.call_id and res.call_id in ids)])
    out: dict[int, ToolResult | None] = {}
    for msg in round_messages:
        for call in msg.tool_calls:
            res = by_id.get(call.id) if call.id else None
            out[id(call)] = res if res is not None else next(positional, None)
    return out


def _todo_items(call: ToolCall) -> list[tuple[str, str]]:
    """(status, text) items of a todo tool call, across agents' shapes."""
    args = call.arguments or {}
    items = args.get("todos") or args.get("plan") or args.get("task_list") or args.get("items") or []
    out = []
    if isinstance(items, list):
        for it in items:
            if isinstance(it, dict):
                text = it.get("content") or it.get("step") or it.get("title") or it.get("description") or ""
                status = str(it.get("status") or it.get("state") or "pending")
                if text:
                    out.append((status, str(text)))
            elif isinstance(it, str):
                out.append(("pending", it))
    return out


_SLASH_RE = re.compile(r"^/[a-z-]+\b(?:\s+\S+){0,3}\s*$")


# A message made only of tagged blocks (`<command-name>/exit</command-name>`, `<local-command-stdout>…`)
# is the tool echoing a local command, not something the user asked.
_WRAPPED_RE = re.compile(r"(?:\s*<([A-Za-z][\w-]*)>.*?</\1>)+\s*", re.DOTALL)


_ASSENT_RE = re.compile(r"^\s*(?:(?:yes|yeah|yep|yup|sure|ok(?:ay)?|please|do it|go ahead|go for it|sounds good|"
                        r"great|perfect|lgtm|let'?s do (?:it|that)|that works|please do|好的?|可以|行|是的|对)[\s,.!]*)+"
                        r"(?:please|thanks?(?: you)?|那就这样)?[\s.!]*$", re.IGNORECASE)


def is_assent(text: str) -> bool:
    """A short yes ("ok", "sure, go ahead", "好的") that takes up what was offered, asking nothing of its own."""
    return _ASSENT_RE.match(text) is not None


def is_follow_up_request(text: str) -> bool:
    """A later user message that states a request: not a slash command (`/exit`, `/add f`, `/run x`
    drive the tool) and more than a few characters."""
    stripped = text.strip()
    return len(stripped) > 3 and not _SLASH_RE.match(stripped) and not _WRAPPED_RE.fullmatch(stripped)


Pairings = dict[int, tuple[Round, dict[int, ToolResult | None]]]  # id(round) -> (the round, results_of_calls)


def extract_events(transcript: Transcript, max_requests: int | None = None,
                   pairings: Pairings | None = None) -> list[Event]:
    """All events of a transcript in order. Pure; safe to call more than once.

    `pairings`, when given, gets each round's call/result pairing (`results_of_calls`) by `id(round)`,
    the round kept beside it: the fact sources pair the same rounds again (`FactContext.results_of`),
    and a compaction hands them these instead.

    `max_requests` keeps the first REQUEST event (the task) and only the last `max_requests`
    follow-up requests (`is_follow_up_request`) of the others: a compaction can show no more than
    its budget holds, so memory follows what is kept, not the number of user messages read — a
    session of 500,000 requests would otherwise hold 500,000 events that no summary can show."""
    events: list[Event] = []
    state = _CommandState(cwd=transcript.cwd, by_line=edits_by_line(transcript))
    later: deque[tuple[int, Event]] | None = None if max_requests is None else deque(maxlen=max(0, max_requests))
    first_request = True
    for rnd in transcript.rounds:
        round_start = len(events)
        results = results_of_calls(rnd.messages)
        if pairings is not None:
            pairings[id(rnd)] = (rnd, results)
        for msg in rnd.messages:
            if msg.meta.get("final_patch_echo"):
                continue  # the harness's diff of the final state: not evidence of an edit
            start = len(events)
            _text_events(events, rnd.number, msg)
            if later is not None and msg.role is Role.USER:
                i = next((k for k in range(start, len(events)) if events[k].kind is EventKind.REQUEST), None)
                if i is not None and not first_request:
                    request = events.pop(i)  # re-inserted at its place below, if still kept
                    if is_follow_up_request(request.text) or is_assent(request.text):  # a "yes" answers a question
                        later.append((i, request))
                elif i is not None and events[i].text.strip():
                    first_request = False  # the task: always kept
            # only aider's blocks ask (a `search_replace` call without a result of its own)
            applied = _paths_applied(msg, results) if any(c.name == "search_replace" for c in msg.tool_calls) else _NONE
            for call in msg.tool_calls:
                _call_events(events, rnd.number, msg, call, results.get(id(call)), state, applied)
        if state.unnamed_writes:
            _named_after(events, rnd, state.unnamed_writes, state)
            state.unnamed_writes.clear()
        if state.unnamed_deletes:
            _deleted_after(events, rnd, state.unnamed_deletes, state)
            state.unnamed_deletes.clear()
        if state.unchanged:  # unless another edit of the round changed the file
            of_round = events[round_start:]
            changed = {e.path for e in of_round if e.kind is EventKind.EDIT and e.tool != "aider" and not e.unchanged}
            for e in of_round:
                if e.tool == "aider" and e.path in state.unchanged - changed:
                    e.unchanged = True
            state.unchanged.clear()
    spell = PathSpellings.for_paths((e.path for e in events), transcript.cwd)
    if spell.windows:  # one spelling per file: `a\\b.ts` and `a/b.ts` are one file
        for e in events:
            if e.path:
                e.path = spell(e.path)
            if e.moved:
                e.moved = (spell(e.moved[0]), spell(e.moved[1]))
    _rooted(events)
    _placed_names(events)
    if later:  # requests carry no path: the kept ones go back in their places after the respelling
        return _merge_at(events, later)
    return events


def _placed_names(events: list[Event]) -> None:
    """A file the agent's account named by its name alone (`101-intent-capture-phase.mdc`, given to a path-less
    write) takes the one path of that name the session's other events show (`.cursor/rules/101-…mdc`): one
    file, one record, created where it was, not a second file beside the one a later edit changed."""
    bare = [e for e in events if e.inferred and e.path and "/" not in e.path and "\\" not in e.path]
    if not bare:
        return
    placed: dict[str, set[str]] = {}
    for e in events:
        if e.path and not e.inferred and ("/" in e.path or "\\" in e.path):
            placed.setdefault(file_name(e.path), set()).add(e.path)
    for e in bare:
        where = sorted(placed.get(e.path, set()), key=len)
        if where and all(same_file(p, where[-1]) for p in where):  # one file, however spelt: its fullest spelling
            e.path = where[-1]


def _rooted(events: list[Event]) -> None:
    """A relative path that is an absolute one of the session without its leading slash takes the slash:
    Copilot Chat's export spells a problems check's file `Users/me/repo/test/x.spec.ts` beside the reads'
    `/Users/me/repo/test/x.spec.ts`, and the document named the one file twice, the second by its whole path.
    Only a path of three names or more: `src/x.py` beside a root-level `/src/x.py` may be two files."""
    absolute = {e.path for e in events if e.path and e.path.startswith("/")}
    if not absolute:
        return
    for e in events:
        if e.path and e.path[0] not in "/.~" and e.path.count("/") >= 2 and "/" + e.path in absolute:
            e.path = "/" + e.path


def argument_strings(value: object, depth: int = 0, *, max_depth: int = 8, max_items: int | None = None) -> list[str]:
    """The string leaves of a tool call's arguments (a todo item, a file's content, a command);
    `max_depth` and `max_items` (per container) bound the walk for callers that only sample them."""
    if isinstance(value, str):
        return [value]
    if depth > max_depth:
        return []
    items = list(value.values()) if isinstance(value, dict) else value if isinstance(value, list | tuple) else ()
    return [s for v in items[:max_items] for s in argument_strings(v, depth + 1, max_depth=max_depth,
                                                                    max_items=max_items)]


def _strings_with_at(calls: list[ToolCall]) -> list[str]:
    """The string leaves of the calls' arguments that hold an `@` (where a marker may be), in the order
    `argument_strings` gives them: a flat argument dict (most calls) is read without the recursion."""
    out: list[str] = []
    for c in calls:
        args = c.arguments
        if not args:
            continue
        if not isinstance(args, dict):
            out.extend(s for s in argument_strings(args) if "@" in s)
            continue
        for v in args.values():
            if isinstance(v, str):
                if "@" in v:
                    out.append(v)
            else:
                out.extend(s for s in argument_strings(v, 1) if "@" in s)
    return out


def _merge_at(events: list[Event], kept: deque[tuple[int, Event]]) -> list[Event]:
    """`events` with each kept (position, event) put back where it was taken out: positions count
    the events present when it was taken, so later ones shift by the number of those dropped."""
    out: list[Event] = []
    it = iter(kept)
    nxt = next(it, None)
    for i, e in enumerate(events):
        while nxt is not None and nxt[0] <= i:
            out.append(nxt[1])
            nxt = next(it, None)
        out.append(e)
    while nxt is not None:
        out.append(nxt[1])
        nxt = next(it, None)
    return out


def _text_events(events: list[Event], rnd: int, msg: Message) -> None:
    texts = [msg.text] if msg.text else []
    texts += [r.content for r in msg.tool_results if r.content]
    # A marker is kept wherever the model saw it, tool-call arguments included (a todo item, a
    # written file's text, a command's comment).
    marked = texts + _strings_with_at(msg.tool_calls) if msg.tool_calls else texts
    for text in marked:
        if "@" in text and MARKER_RE.search(text):
            for m in _MARKER_LINE_RE.finditer(text):
                line = m.group(0).strip()
                kind = MARKER_RE.search(line).group(1).lower()
                events.append(Event(EventKind.MARKER, rnd, msg.index, text=line, marker=kind))
    if msg.harness or msg.role is Role.TOOL:
        for text in texts:
            if "Applied edit to" in text:
                for m in _AIDER_APPLIED_RE.finditer(text):
                    events.append(Event(EventKind.EDIT, rnd, msg.index, path=m.group(1).strip(), tool="aider"))
            if "Commit " in text:
                for m in _AIDER_COMMIT_RE.finditer(text):
                    # `Committing f before applying edits.` just above: the user's own edits to f, which
                    # the harness committed (the file changed under the model): the commit names f.
                    at = text.rfind("Committing ", max(0, m.start() - 400), m.start())
                    own = _AIDER_DIRTY_RE.match(text[text.rfind("\n", 0, at) + 1:m.start()]) if at >= 0 else None
                    events.append(Event(EventKind.COMMIT, rnd, msg.index, text=m.group(2).strip(),
                                        commit_hash=m.group(1), path=own.group(1).strip() if own else None))
            if "Removed: " in text:  # aider's `/undo`: that commit's edits are thrown away
                for m in _AIDER_UNDO_RE.finditer(text):
                    events.append(Event(EventKind.REVERT, rnd, msg.index, text=m.group(2).strip(), commit_hash=m.group(1)))
        return
    if msg.role is Role.USER:
        events.append(Event(EventKind.REQUEST, rnd, msg.index, text=msg.text))
        said = _Prose(users_words(without_template_noise(msg.text)), 30000)  # a template's hidden text is no ask
        constraints = _sentences_matching(said, _CONSTRAINT_RE)
        if not said.text.isascii() and _CONSTRAINT_CJK_RE.search(said.text):
            constraints += [s for s in _sentences_matching(said, _CONSTRAINT_CJK_RE) if s not in constraints]
        for sentence in constraints:
            if len(sentence) < 400:
                events.append(Event(EventKind.CONSTRAINT, rnd, msg.index, text=sentence))
        return
    if msg.role is Role.ASSISTANT and msg.text:
        boxed = _BOX_RE.search(msg.text) is not None  # a todo line's box: most texts have none
        todo_lines = _TODO_LINES.findall(msg.text) if boxed else []
        for status, item in ((("done" if c.strip() else "pending"), t) for c, t in todo_lines):
            events.append(Event(EventKind.TODO, rnd, msg.index, text=item.strip(), status=status))
        prose = _Prose(msg.text, 6000)  # decisions and next steps read the same prose: cut and lowered once
        decisions = _sentences_matching(prose, _DECISION_RE)
        if not prose.text.isascii() and _DECISION_CJK_RE.search(prose.text):
            decisions += [s for s in _sentences_matching(prose, _DECISION_CJK_RE) if s not in decisions]
        for sentence in decisions:
            if len(sentence) <= 500 and not sentence.startswith("    ") and not OFFER_RE.search(sentence) \
                    and not QUOTED_OUTPUT_RE.match(sentence) and not USER_REPORTED_RE.match(sentence):
                events.append(Event(EventKind.DECISION, rnd, msg.index, text=sentence))
        for sentence in _sentences_matching(prose, _NEXT_RE):
            if len(sentence) <= 500 and sentence not in decisions and not sentence.startswith("    "):
                events.append(Event(EventKind.TODO, rnd, msg.index, text=sentence, status="next"))


def users_words(text: str) -> str:
    """A user's message without the lines they pasted rather than wrote: a log's stamped lines and a
    terminal screen's framed ones (`│ Step 2: Team Roster │`). Their sentences are output, not the
    user's constraints or preferences."""
    if "-" in text and _STAMPED_LINE.search(text):
        text = _STAMPED_LINES_RE.sub("", text)
    if _BOX_CHAR_RE.search(text):
        text = _FRAMED_LINES_RE.sub("", text)
    return text


def without_fences(text: str, mark: str = " ") -> str:
    """`text` with each fenced block (an unclosed one runs to the end) replaced by `mark` (a space; a line of
    its own where the reader must see that code stood there); str.find does in one pass what a lazy DOTALL
    regex does a character at a time."""
    start = text.find("```")
    if start < 0:
        return text
    out: list[str] = []
    pos = 0
    while start >= 0:
        out.append(text[pos:start])
        out.append(mark)
        close = text.find("```", start + 3)
        if close < 0:  # unclosed: to the end, keeping a final newline as `$` does
            pos = len(text) - 1 if text.endswith("\n") and len(text) - 1 >= start + 3 else len(text)
            break
        pos = close + 3
        start = text.find("```", pos)
    out.append(text[pos:])
    return "".join(out)


def _lowercase_twin(pattern: re.Pattern[str]) -> tuple[re.Pattern[str], bool]:
    """The same case-insensitive pattern for lowercased text, and whether its leading `\\b` was
    taken off: Python's IGNORECASE matching costs about twice a plain scan of `text.lower()`, and a
    pattern that opens with `\\b` is tried at every position, while one that opens with a branch of
    literals is searched by its first letters (the boundary is then checked by `_twin_matches`)."""
    assert not re.search(r"\\[A-Z]", pattern.pattern)
    source = pattern.pattern.lower()
    bounded = source.startswith("\\b(?:")
    if bounded:
        source = source[2:]
    return re.compile(source, pattern.flags & ~re.IGNORECASE), bounded


# By the pattern's identity (the pattern kept beside its twin, so that a reused id is seen): hashing a
# compiled pattern walks its whole compiled code, microseconds per message for `_DECISION_RE`.
_LOWER_TWINS: dict[int, tuple[re.Pattern[str], tuple[re.Pattern[str], bool, tuple[str, ...] | None]]] = {}


def _twin_of(pattern: re.Pattern[str]) -> tuple[re.Pattern[str], bool, tuple[str, ...] | None]:
    """The lowercase twin, whether it was bounded, and the literal openings of its matches (made once)."""
    known = _LOWER_TWINS.get(id(pattern))
    if known is not None and known[0] is pattern:
        return known[1]
    twin, bounded = _lowercase_twin(pattern)
    found = (twin, bounded, heads(twin))
    _LOWER_TWINS[id(pattern)] = (pattern, found)
    return found


def _twin_matches(pattern: re.Pattern[str], lowered: str):
    """The matches `pattern` (case-insensitive) would find in the text whose lowercase is `lowered`:
    tried only where one of the twin's literal openings occurs (`literal_heads`), when it has some."""
    twin, bounded, openings = _twin_of(pattern)
    search = twin.search if openings is None else Scanner(twin, openings, lowered).search
    if not bounded:
        pos = 0
        while (m := search(lowered, pos)) is not None:  # finditer's matches: none is empty (they open with text)
            yield m
            pos = m.end() if m.end() > m.start() else m.start() + 1
        return
    pos = 0
    while (m := search(lowered, pos)) is not None:
        before = lowered[m.start() - 1] if m.start() else " "
        if before.isalnum() or before == "_":  # no word boundary here: try one character later
            pos = m.start() + 1
            continue
        yield m
        pos = max(m.end(), m.start() + 1)


def count_matches(pattern: re.Pattern[str], text: str) -> int:
    """How many matches `pattern` (case-insensitive, opening with a branch of words) finds in `text`,
    found in its lowercase when offsets agree (see `_lowercase_twin`): about twice as fast."""
    lowered = text.lower()
    if len(lowered) != len(text):
        return sum(1 for _ in pattern.finditer(text))
    return sum(1 for _ in _twin_matches(pattern, lowered))


class _Prose:
    """A message's first `limit` characters without code blocks, and their lowercase when its
    offsets agree (a few Unicode letters change length when lowered): made once per message."""

    __slots__ = ("text", "lowered")

    def __init__(self, text: str, limit: int) -> None:
        self.text = without_fences(text[:limit])
        lowered = self.text.lower()
        self.lowered: str | None = lowered if len(lowered) == len(self.text) else None


def _sentences_matching(prose: _Prose, pattern: re.Pattern[str]) -> list[str]:
    """The sentences of the prose (code blocks excluded) that contain a match of `pattern`, in order.

    One scan of the whole text finds the matches; only the sentences around them are cut out,
    so long messages cost one regex pass rather than one per sentence."""
    text = prose.text
    out: list[str] = []
    last_end = -1
    matches = _twin_matches(pattern, prose.lowered) if prose.lowered is not None else pattern.finditer(text)
    for m in matches:
        if m.start() < last_end:
            continue
        start = 0
        for b in _SENTENCE_RE.finditer(text, max(0, m.start() - 600), m.start() + 1):
            start = b.end()
        nxt = _SENTENCE_RE.search(text, m.end())
        end = nxt.start() if nxt else len(text)
        sentence = text[start:end].strip()
        last_end = end
        if len(sentence) > 12 or len(sentence) >= 5 and not sentence.isascii():  # a CJK sentence says as much in fewer
            out.append(sentence)
    return out


MAX_VIEWS_KEPT = 8  # of one file's numbered views: the latest serve (`snippet_diff` tries three)


@dataclass(slots=True)
class _CommandState:
    cwd: str | None = None  # the transcript's working directory
    made_dirs: set[str] = field(default_factory=set)  # the directories the session's `mkdir`s made
    last_command: Event | None = None
    unnamed_changes: int = 0  # write/edit calls so far that named no file (Cursor's bare `write`)
    unnamed_deletes: list[tuple[int, int]] = field(default_factory=list)  # the same, of its path-less deletes
    unnamed_writes: list[tuple[int, int]] = field(default_factory=list)  # (round, message index) of this round's
    unchanged: set[str] = field(default_factory=set)  # this round's files an edit left as they were
    views: LineViews = field(default_factory=LineViews)  # each file's lines, by number, as a read last showed them
    by_line: bool = False  # the session edits by line number (`edits_by_line`): only then are the views kept
    _names: set[str] = field(default_factory=set)  # the file names the events so far name (`known_names`)
    _named_upto: int = 0
    read_text: dict[str, list[str]] = field(default_factory=dict)  # path -> its reads' outputs (`_known_texts`)
    # file name -> (path, output) of what showed its lines by number, oldest first: its reads, its edits'
    # snippets (`snippet_diff`); `./main.go` read and `/repo/main.go` edited are one file (`same_file`)
    numbered_views: dict[str, list[tuple[str, str]]] = field(default_factory=dict)

    def saw_numbered(self, path: str, output: str) -> None:
        """Keep an output that shows `path`'s lines by number (the latest few per file); it is parsed only
        when an edit's snippet asks (`numbered_of`): most sessions never do."""
        if shows_numbered(output):
            views = self.numbered_views.setdefault(file_name(path), [])
            views.append((path, output))
            del views[:-MAX_VIEWS_KEPT]

    def numbered_of(self, path: str) -> list[tuple[tuple[int, str], ...]]:
        """The views kept of `path`'s lines, oldest first: those of its own spellings, parsed."""
        return [numbered_lines(output) for seen, output in self.numbered_views.get(file_name(path), ())
                if same_file(seen, path)]

    def forget_numbered(self, path: str) -> None:
        """A change made otherwise (`sed -i`, a write, an edit with its payload): the views no longer show the file."""
        if views := self.numbered_views.get(file_name(path)):
            views[:] = [v for v in views if not same_file(v[0], path)]
    written: dict[str, tuple[str, ...]] = field(default_factory=dict)  # path -> its lines, last written whole
    written_as: dict[str, str | None] = field(default_factory=dict)  # file name -> its one path written (None: several)

    def known_names(self, events: list[Event]) -> set[str]:
        """The file names of every path the events name, read on from where the last ask stopped."""
        for e in events[self._named_upto:]:
            if e.path:
                self._names.add(file_name(e.path))
        self._named_upto = len(events)
        return self._names

    def named(self, path: str) -> None:
        """An event inserted before the read mark (`_named_after`): its name known, the mark moved past it."""
        self._names.add(file_name(path))
        self._named_upto += 1


def _continued_output(events: list[Event], rnd: int, msg: Message, result: ToolResult | None,
                      state: _CommandState) -> None:
    """A call reading more output of a command still running (OpenHands' `is_input`, Codex's `write_stdin`):
    its output, test counts included, belongs to that command."""
    prev = state.last_command
    summary = parse_test_summary(result.content) if result and result.content else None
    if prev is None or not summary:
        return
    old = prev.test_summary
    prev.test_summary = summary if not old or old == summary else f"{old}; then {summary}"
    prev.test = True
    events.append(Event(EventKind.TEST, rnd, msg.index, command=prev.command, exit_code=result.exit_code,
                        text=summary, tool=prev.tool, continued=True))


_FILE_EVENT = {ToolKind.READ: EventKind.READ, ToolKind.WRITE: EventKind.WRITE, ToolKind.EDIT: EventKind.EDIT}


def tool_kind(call: ToolCall) -> ToolKind:
    """What a tool call does, the one place events decide it: the kind its loader gave it from the
    agent's tool name (the name tables are hints), else what its arguments' shape says (a path and
    content: a write; old/new text, a diff, a patch: an edit; a command: a shell command; a path or
    pattern alone: a read or search). See `transcripts.tool_shapes`."""
    return classify(call).kind


_NONE: frozenset[str] = frozenset()


def _paths_applied(msg: Message, results: dict[int, ToolResult | None]) -> frozenset[str]:
    """The files an edit of this message was applied to (a result that is no error)."""
    return frozenset(call.path for call in msg.tool_calls
                     if call.path and (res := results.get(id(call))) is not None and not res.is_error)


def unapplied_block(msg: Message, call: ToolCall, results: dict[int, ToolResult | None]) -> bool:
    """An aider SEARCH/REPLACE block without a result of its own, of a file the reply's report never
    said it applied (a reply in /ask or architect mode, an interrupted one): it changed nothing."""
    return call.name == "search_replace" and results.get(id(call)) is None \
        and call.path not in _paths_applied(msg, results)


# A file command's own complaint: it did not run (`sed: can't read x: No such file or directory`)
_WRITER_FAILED_RE = re.compile(r"^(?:sed|perl|awk|tee|cp|mv|patch|touch|mkdir|rm)(?:\.exe)?: ", re.M)


def _chained_writes(command: str, output: str) -> list[tuple[EventKind, str]]:
    """Of a line that failed, whose file change comes first and the rest after `&&` (`sed -i … f && bash
    run.sh`), the first part's changes: they ran (the checks it chains did not pass), unless the output is
    the changing command's own complaint. [] for any other line."""
    first, chained, _ = command.partition("&&")
    if not chained or _WRITER_FAILED_RE.search(output[:2000]):
        return []
    return shell_writes(first)


def _unstages_only(args: list[str]) -> bool:
    """`git restore --staged f` (`-S`) without `--worktree` (`-W`): it takes f out of the index and
    leaves the file as it is, so nothing in it was reverted."""
    flags = {a for a in args[2:] if a.startswith("-")}
    short = "".join(a[1:] for a in flags if not a.startswith("--"))
    staged = "--staged" in flags or "S" in short
    return args[1] == "restore" and staged and not ("--worktree" in flags or "W" in short)


def _call_events(events: list[Event], rnd: int, msg: Message, call: ToolCall, result: ToolResult | None,
                 state: _CommandState, applied: frozenset[str]) -> None:
    exit_code = result.exit_code if result else None
    failed = bool(result and (result.is_error or (result.exit_code not in (None, 0))))
    proposed = False
    if result is None and call.name == "search_replace":
        # aider prints "Applied edit to X" once per file of a reply, for all its blocks; a block of a file
        # it never named was not applied (a failed block gets its own error result): proposed, no error
        failed = proposed = call.path not in applied
    call = classify(call)  # an unknown tool's kind, path and command, from its arguments
    kind = call.kind  # `tool_kind`'s answer: classifying a classified call again gives it back
    if kind == ToolKind.TODO:
        for status, text in _todo_items(call):
            events.append(Event(EventKind.TODO, rnd, msg.index, text=text, tool=call.name, status=status))
        return
    if kind == ToolKind.EDIT and changes_nothing(call):
        if call.path and not failed:  # its file is as it was: so is it after aider's "Applied edit to" it
            state.unchanged.add(call.path)
            events.append(Event(EventKind.EDIT, rnd, msg.index, path=call.path, tool=call.name, unchanged=True))
        return
    if kind in (ToolKind.READ, ToolKind.WRITE, ToolKind.EDIT):
        paths = list(call.arguments.get("paths") or []) if isinstance(call.arguments, dict) else []
        if call.path and call.path not in paths:
            paths.insert(0, call.path)
        event_kind = _FILE_EVENT[kind]
        if kind != ToolKind.READ and not failed and result is not None and result.content and refused(result.content):
            failed = True  # an export that does not mark an edit's refusal as an error (Codex's apply_patch in SpecStory)
        if kind == ToolKind.READ and result is not None and result.content and not failed and call.path:
            state.read_text.setdefault(call.path.split("#", 1)[0], []).append(result.content)
            state.saw_numbered(call.path, result.content)
            if state.by_line:
                state.views.seen(call.path, "", result.content)
        inferred = False
        if not paths and kind != ToolKind.READ:
            content = result.content if result and not failed else ""
            # By shared text only an edit: a new file's write shares boilerplate (imports) with files read
            text = (new_text(call) or shown_text(content)) if content and kind == ToolKind.EDIT else ""
            named = _named_by_content(events, content, text, state.read_text,
                                      msg.text if msg.role is Role.ASSISTANT else "")
            if named:
                paths, inferred = [named], True
                call = replace(call, path=named)  # a copy: the loader's call stays as the export had it
            else:
                state.unnamed_changes += 1
                if kind == ToolKind.WRITE and not failed:
                    state.unnamed_writes.append((rnd, msg.index))
                elif _DELETES_RE.search(call.name):  # Cursor's bare "Tool use: **delete_file**"
                    state.unnamed_deletes.append((rnd, msg.index))
                    return  # a deletion, not an edit of some file: named by the agent's account, if at all
        snippet = ""  # an edit's result that shows the file's lines after it (`snippet_diff`)
        changes = {} if kind == ToolKind.READ else _changes_by_path(call) if failed else \
            _with_reads_in(_changes_by_path(call), state)
        if not changes and kind != ToolKind.READ and result and result.content and not failed:
            changes = {c.path: c for c in result_changes(call, result.content)}  # an exporter kept only the result
            if kind == ToolKind.EDIT and len(paths) == 1 and not new_text(call):
                anchored = _anchored(events, paths[0], result.content)
                if anchored:
                    changes = {paths[0]: anchored}
                elif paths[0] in changes and (seen := snippet_diff(changes[paths[0]], state.numbered_of(paths[0]))):
                    changes[paths[0]] = seen  # the snippet after it, against the lines shown before it
                if "cat -n" in result.content:
                    snippet = result.content
        if kind == ToolKind.EDIT and state.views and len(paths) == 1 and paths[0] in changes:
            changes[paths[0]] = _with_viewed_lines(call, changes[paths[0]], state.views)
        for path in paths:
            change = changes.get(path)
            events.append(Event(event_kind, rnd, msg.index, path=path, exit_code=exit_code, tool=call.name, failed=failed,
                                hunks=change.hunks if change else (), whole=bool(change and change.whole),
                                inferred=inferred, call_id=call.id if inferred else None, proposed=proposed))
            if kind != ToolKind.READ and not failed:
                state.views.forget(path)  # its lines may have moved
                state.forget_numbered(path)
                if snippet:
                    state.saw_numbered(path, snippet)  # the lines as this edit left them
        return
    if call.continues:  # more output of a command still running (`transcripts.continuations`)
        _continued_output(events, rnd, msg, result, state)
        return
    if kind == ToolKind.SHELL and call.command:
        cmd = call.command.strip()
        output = result.content if result else ""
        summary = parse_test_summary(output) if output else None
        is_test = is_test_command(cmd) or summary is not None
        writes = shell_writes(cmd)
        command_event = Event(EventKind.COMMAND, rnd, msg.index, command=cmd, exit_code=exit_code, tool=call.name,
                              state_changing=bool(writes) or is_state_changing(cmd),
                              failed=failed, test=is_test, test_summary=summary)
        events.append(command_event)
        state.last_command = command_event
        if "mkdir" in cmd:  # parsed once: a later `mv f lib` asks whether lib is a directory
            state.made_dirs |= made_dirs(cmd)
        if summary:
            events.append(Event(EventKind.TEST, rnd, msg.index, command=cmd, exit_code=exit_code, text=summary,
                                tool=call.name))
        if failed and writes:
            writes = _chained_writes(cmd, output)  # what ran before the part that failed, if any
        # a command that changes files: the views may no longer hold (a script's writes, a stash, a checkout);
        # its own line-addressed substitutions are judged first, against the views before it, then wait
        unsettles = bool(state.views) and command_event.state_changing
        if unsettles:
            state.views.clear_pending()
        if not failed or writes:
            changes = _with_reads_in(_changes_by_path(call), state) if writes else {}
            writes, moves = _moves(cmd, writes, events, state) if "mv" in cmd or "cp" in cmd else (writes, {})
            touched = _touched_known(cmd, writes, events) if "touch" in cmd else set()
            for write_kind, path in writes:
                change = changes.get(path)
                if path in touched and change is None:
                    continue  # `touch` of a file the session already had: its text is as it was
                hunks = change.hunks if change else ()
                missed = state.views.missed(path, hunks, cmd) if state.views and hunks else 0
                misses: tuple[Miss, ...] = ()
                if missed:  # `sed -i 'Ns/a/b/'` whose line N, as the session last saw it, holds no `a`
                    misses = tuple(_miss(h, path, state.views) for h in hunks if state.views.misses(path, h))
                    hunks = tuple(h for h in hunks if not state.views.misses(path, h))
                events.append(Event(write_kind, rnd, msg.index, path=path, command=cmd, tool=call.name, failed=False,
                                    via_shell=True, hunks=hunks, unchanged=bool(missed) and not hunks, missed=missed,
                                    misses=misses,
                                    whole=bool(change and change.whole), moved=moves.get((write_kind, path))))
                state.views.changed(path, events[-1], cmd)
                state.forget_numbered(path)
            if state.written and any(name in cmd for name in state.written_as):  # runs a file it wrote, maybe
                for path in _script_edits(cmd, state):
                    events.append(Event(EventKind.EDIT, rnd, msg.index, path=path, command=cmd, tool=call.name,
                                        via_shell=True))
        read = shell_reads(cmd)
        for path in read:
            events.append(Event(EventKind.READ, rnd, msg.index, path=path, command=cmd, tool=call.name))
        if state.by_line and len(read) == 1 and output and not failed and not command_event.state_changing:
            state.views.seen(read[0], cmd, output)  # (a line that also writes: its output may be from before)
        if unsettles:
            state.views.forget_all()
        if output and "] " in output:
            for m in _GIT_COMMIT_OUT_LINES.finditer(output):
                events.append(Event(EventKind.COMMIT, rnd, msg.index, text=m.group(2), commit_hash=m.group(1)))
        if output and state.unnamed_changes:
            _git_reported(events, rnd, msg, call, cmd, output)
        return
    if kind == ToolKind.SEARCH:
        events.append(Event(EventKind.COMMAND, rnd, msg.index, command=call.command or _describe(call),
                            exit_code=exit_code, tool=call.name, failed=failed, search=True))


# A file the agent's account of its work presents as new: the word at most three words before the path
# ("Created `src/a.ts`", "**New documentation**\n\n**`docs/x.md`** includes"), not "added a new section to
# `README.md` that points to `CONTRIBUTING.md`" for the second file
_PRESENTED_NEW_RE = re.compile(r"\b(?:[Nn]ew|[Cc]reated?|[Aa]dded|[Ww]rote|[Ww]ritten)\b(?:[\W_]+\w+){0,3}?[\W_]*$")
# a path in ticks, or in bold alone (Cursor's lists: "- **101-intent-capture-phase.mdc**: AI role and …")
_BACKTICKED_PATH_RE = re.compile(r"`([^`\s]*[/\\][^`\s]*\.[A-Za-z]\w{0,5}|[\w-]+\.[A-Za-z]\w{0,5})`"
                                 r"|(?<!\*)\*\*([^*\s]*[/\\][^*\s]*\.[A-Za-z]\w{0,5}|[\w-]+\.[A-Za-z]\w{0,5})\*\*(?!\*)")
# A heading of the account ("### **What I created**", "## New files"): the list under it presents its files as new
_HEADING_LINE_RE = re.compile(r"(?m)^#{1,4}[ \t]+(.*)$")
_NEW_HEADING_RE = re.compile(r"(?i)\b(?:created?|new|added|wrote|written)\b")
# A name that is code, not a file: an attribute of `self`/`this`/`cls`, or a dotted chain (`os.path.join`)
_CODE_NAME_RE = re.compile(r"^(?:self|this|cls)\.|^[\w-]+\.[\w-]+\.[A-Za-z_]\w*$")


def _named_after(events: list[Event], rnd: Round, unnamed: list[tuple[int, int]], state: _CommandState) -> None:
    """Writes whose export kept no path (Cursor's bare "Tool use: **write**"): named by the agent's
    account later in the round when it presents, as new, files no event of the session names — in
    order, one per such write. A write it does not account for stays unnamed."""
    known = state.known_names(events)
    found: list[str] = []
    for text, m, path in _accounted_paths(rnd, min(i for _, i in unnamed)):
        if path in found or file_name(path) in known \
                or not (_PRESENTED_NEW_RE.search(text, max(0, m.start() - 130), m.start()) or _under_new(text, m.start())):
            continue
        found.append(path)
    _insert_named(events, unnamed, found, EventKind.WRITE, state)


def _under_new(text: str, at: int) -> bool:
    """Whether the account's nearest heading of levels 1-3 before `at`, or a level-4 one between, presents
    what follows as new ("### **What I created**" over "#### **1. Phase-specific rules**")."""
    for m in reversed(list(_HEADING_LINE_RE.finditer(text, 0, at))):
        if _NEW_HEADING_RE.search(m.group(1)):
            return True
        if not m.group(0).startswith("####"):
            return False  # a heading of its own section above: the list is under it, not under one presenting it as new
    return False


def _accounted_paths(rnd: Round, after: int) -> Iterator[tuple[str, re.Match[str], str]]:
    """(text, match, path) of each backticked path the agent's texts of the round name from message `after` on
    (not an attribute of `self` or a dotted name: code, no file)."""
    for msg in rnd.messages:
        if msg.index < after or msg.role is not Role.ASSISTANT or not msg.text:
            continue
        for m in _BACKTICKED_PATH_RE.finditer(msg.text):
            path = m.group(1) or m.group(2)
            if not _CODE_NAME_RE.match(path):
                yield msg.text, m, path


def _insert_named(events: list[Event], unnamed: list[tuple[int, int]], found: list[str], kind: EventKind,
                  state: _CommandState) -> None:
    """One inferred event per path-less call its account named, in its place: events are in the session's order."""
    for (r, index), path in zip(unnamed, found, strict=False):
        at = next((k for k in range(len(events) - 1, -1, -1) if events[k].message_index <= index), -1) + 1
        events.insert(at, Event(kind, r, index, path=path, tool=kind.value, inferred=True))
        state.named(path)  # (inserted behind the names' read mark: counted here)


# A tool whose name says it deletes a file (`delete_file`, `deleteFile`, `remove_file`, `delete`): not one that
# deletes lines (`delete_lines`), comments (`removeComment`) or undoes a deletion (`undelete`)
_DELETES_RE = re.compile(r"^(?:delete|remove|unlink)(?:[_-]?(?:file|path)s?|(?:File|Path)s?)?$", re.IGNORECASE)
# The agent's account of a file it deleted: the word right before the path ("Deleted `a.md`", "removed the
# redundant `b.md`") or right after it behind a dash or in parentheses ("`a.md` — deleted", "`b.md` (removed)");
# not "already removed", not "`README.md`: removed the stale link" (an edit of it), not "removed `x` from the index"
_DELETED_BEFORE_RE = re.compile(r"(?i)\b(?:deleted|removed)\b(?:\s+(?:the|a|an|redundant|old|file|files))*[\s:*]*$")
_DELETED_AFTER_RE = re.compile(r"(?i)^[`*]*\s*(?:[—–-]+\s*|\(\s*)(?:deleted|removed)\b(?!\s+(?:the|a|an|from|its)\b)")
_FROM_RE = re.compile(r"^[`*]*\s+from\b", re.IGNORECASE)


def _deleted_after(events: list[Event], rnd: Round, unnamed: list[tuple[int, int]], state: _CommandState) -> None:
    """Deletes whose export kept no path (Cursor's bare "Tool use: **delete_file**"): named by the agent's
    account later in the round when it says a file the session knows was deleted or removed, in order, one per
    such delete; a delete it does not account for stays unnamed (a renamed rule file's old name, never said)."""
    known = state.known_names(events)
    found: list[str] = []
    for text, m, path in _accounted_paths(rnd, min(i for _, i in unnamed)):
        if file_name(path) not in known:
            continue
        before, behind = text[max(0, m.start() - 40):m.start()], text[m.end():m.end() + 24]
        if "already" in before.lower() or "already" in behind.lower() or _FROM_RE.match(behind):
            continue
        if _DELETED_BEFORE_RE.search(before) or _DELETED_AFTER_RE.match(behind):
            path = _known_spelling(events, path)  # "`notes.md` — deleted" of the `docs/notes.md` it wrote
            if path not in found:
                found.append(path)
    _insert_named(events, unnamed, found, EventKind.DELETE, state)


def _known_spelling(events: list[Event], path: str) -> str:
    """The path the events name a file by when `path` is its name alone, or a shorter spelling of it, and one
    file of the session has that name; else `path`."""
    named = {e.path for e in events if e.path and same_file(e.path, path)}
    return named.pop() if len(named) == 1 else path


_SPANS = (("start", "end"), ("start_line", "end_line"), ("line_start", "line_end"))  # a line-range edit's arguments


def _with_viewed_lines(call: ToolCall, change: FileChange, views: LineViews) -> FileChange:
    """A line-range edit (SWE-agent's `edit 287:296` and its replacement text) whose lines the session's
    last numbered view of the file showed: the replacement diffed with them, so the change says what it
    removed and what it added (`'PixelRepresentation',` out of the list, an `if 'PixelData' in ds:` in),
    not every line it wrote. As it was when the view does not hold them all."""
    if len(change.hunks) != 1 or change.hunks[0].removed or change.whole:
        return change
    pair = viewed_span(call, change.path, views)
    found = [h for h in pair_hunks(pair[0], "\n".join(change.hunks[0].added)) if not h.empty] if pair else []
    return FileChange(change.path, tuple(found)) if found else change


# `sed -i '1187s/a/b/' f`: a substitution addressed to a line
_LINE_SED_RE = re.compile(r"\bsed\b[^|;&\n]{0,120}?['\"\s]\d+s(?P<d>[^\w\s])")  # (bounded: linear in a long command)


def edits_by_line(transcript: Transcript) -> bool:
    """Whether the session edits by line number (a `sed -i 'Ns/a/b/'`, an editor's `edit 287:296`): only
    then are the files' numbered views worth keeping (reading every numbered output costs)."""
    for msg in transcript.messages:
        for call in msg.tool_calls:
            if call.command and "sed" in call.command and _LINE_SED_RE.search(call.command):
                return True
            args = call.arguments if isinstance(call.arguments, dict) else {}
            if args and any(_line_number(args.get(a)) and _line_number(args.get(b)) for a, b in _SPANS):
                return True
    return False


def _line_number(value: object) -> bool:
    text = str(value) if isinstance(value, int | str) else ""
    return text.isascii() and text.isdigit() and len(text) <= 7


def viewed_span(call: ToolCall, path: str, views: LineViews) -> tuple[str, int, int] | None:
    """(the lines a line-range edit replaces, as the last numbered view of `path` showed them, first, last)."""
    args = call.arguments if isinstance(call.arguments, dict) else {}
    span = next(((int(args[a]), int(args[b])) for a, b in _SPANS
                 if _line_number(args.get(a)) and _line_number(args.get(b))), None)
    old = views.span(path, *span) if span else None
    return (old, *span) if old is not None and span else None


def _touched_known(cmd: str, writes: list[tuple[EventKind, str]], events: list[Event]) -> set[str]:
    """The files a `touch` in `cmd` names that the session had already written, edited or read: touching
    them changes no text (a new, empty file is the only change `touch` makes)."""
    parts = split_commands(cmd)
    named = {a for part in parts if (args := words(part)) and args[0] == "touch" for a in args[1:] if not a.startswith("-")}
    # a file another part of the line writes (`touch f && gen > f`) is written all the same
    others = {p for part in parts if (args := words(part)) and args[0] != "touch" for _, p in shell_writes(part)}
    wanted = {p for _, p in writes if p in named and p not in others}
    return {e.path for e in events if e.path in wanted and e.kind in (EventKind.WRITE, EventKind.EDIT, EventKind.READ)}


_JS_WRITE_RE = re.compile(r"\bwriteFile(?:Sync)?\(\s*['\"]([^'\"]+)['\"]")


# What a script reads: `open('f')`, `open('f', 'r')`, `Path('f').read_text()`, `readFileSync('f')`
_SCRIPT_READ_RE = re.compile(r"open\(\s*['\"]([^'\"]+)['\"]\s*(?:\)|,\s*(?:mode\s*=\s*)?['\"]r|,\s*(?:encoding|errors|newline)\s*=)"
                             r"|Path\(\s*['\"]([^'\"]+)['\"]\s*\)\.read_text"
                             r"|\breadFile(?:Sync)?\(\s*['\"]([^'\"]+)['\"]")


def _script_edits(cmd: str, state: _CommandState) -> list[str]:
    """The files a run of the session's own script rewrites in place (`python update_offsetbox.py`, whose
    text reads `lib/matplotlib/offsetbox.py` and opens it again for writing): an edit of each, by
    running it. A file the script only writes (its report, `out.png`) is its output, no change of the work."""
    found: list[str] = []
    for name in scripts_run(cmd):
        path = state.written_as.get(name)
        lines = state.written.get(path) if path else None
        if lines:
            found += [t for t in rewrites_in_place("\n".join(lines)) if t not in found]
    return found


def rewrites_in_place(script: str) -> list[str]:
    """The files a script's text reads and opens again for writing: what running it edits."""
    if "open(" not in script and "write" not in script:
        return []
    read = {next(g for g in m.groups() if g).removeprefix("./") for m in _SCRIPT_READ_RE.finditer(script)}
    targets = [m.group(1) for rx in (_PY_OPEN_W_RE, _WRITE_TEXT_RE, _JS_WRITE_RE) for m in rx.finditer(script)]
    return [t for t in dict.fromkeys(t.removeprefix("./") for t in targets) if t in read]


def _moves(cmd: str, writes: list[tuple[EventKind, str]], events: list[Event], state: _CommandState,
           ) -> tuple[list[tuple[EventKind, str]], dict[tuple[EventKind, str], tuple[str, str]]]:
    """`writes` with a move or copy into a directory the session knows (`mv f lib` after `mkdir lib`)
    landing there under its own name, and each move's (source, destination) by its write and its
    deletion: the file logs follow a file's history to its new name."""
    sides: dict[tuple[EventKind, str], tuple[str, str]] = {}
    for moved in transfers(cmd):
        pairs = moved.pairs()
        if not moved.into and _known_dir(events, moved.target, state):
            pairs = moved.pairs(into=True)
            writes = [(k, pairs[0][1]) if (k, p) == (EventKind.WRITE, moved.target) else (k, p) for k, p in writes]
        for pair in pairs if moved.moves else ():
            sides[(EventKind.WRITE, pair[1])] = sides[(EventKind.DELETE, pair[0])] = pair
    return writes, sides


def _known_dir(events: list[Event], path: str, state: _CommandState) -> bool:
    """Whether the session has shown `path` to be a directory: a `mkdir` made it, or a file under it was named."""
    path = path.removeprefix("./").rstrip("/")
    if not path:
        return False
    if path in state.made_dirs:
        return True
    cwd = state.cwd
    under = (f"{path}/", f"./{path}/", *([f"{cwd.rstrip('/')}/{path}/"] if cwd and not path.startswith("/") else []))
    return any(e.path and e.path.startswith(under) for e in events)


# A file's own name in a comment on its first line (`/* use-actor.svelte.js generated by Svelte */`).
_SELF_NAMED_RE = re.compile(r"^\s*(?:/\*+|//|#|<!--|--|;)\s*(?:\S*[/\\])?([\w.-]+\.[A-Za-z]\w{0,7})\b")
_FENCE_OPEN_RE = re.compile(r"^\s*```([\w+-]*)[ \t]*$", re.MULTILINE)


MISSED_LINE_CHARS = 60  # of the line a substitution missed, as quoted


def _miss(hunk: Hunk, path: str, views: LineViews) -> Miss:
    """A substitution that missed, with its line and the definition it lies in, as the views show them."""
    scope = views.scope(path, hunk)
    return Miss(hunk, views.addressed_line(path, hunk), *(scope or ("", 0)))


def _missed_where(hunk: Hunk, line: str | None) -> str:
    """Where a line-addressed substitution found nothing, with what that line held: "line 1048 holds `\"\"\"`,
    not `super().set_output(transform=transform)`" shows a successor the address was off, where "line 1048:
    `super()…`" read as the line's text."""
    held = " ".join((line or "").split())
    if line is None:
        return f"{hunk.context}: no {inline_code(hunk.removed[0])}"
    held = held if len(held) <= MISSED_LINE_CHARS else held[:MISSED_LINE_CHARS - 1] + "…"
    return f"{hunk.context} holds {inline_code(held)}, not {inline_code(hunk.removed[0])}" if held else \
        f"{hunk.context} is blank, not {inline_code(hunk.removed[0])}"


def _named_by_content(events: list[Event], content: str, text: str,
                      read_text: dict[str, list[str]], prose: str = "") -> str | None:
    """The file a change that names none (an exporter kept only the patch's text) was made to, when
    its content says so unambiguously: its first line names the file in a comment and exactly one
    file of that name was seen so far; else its new `text` shares lines or declared names with exactly
    one file the session showed text of (`edit_owner.owner`; `read_text`: its reads' outputs by path);
    else its code block's language is the extension of exactly one file the agent had read (an
    exporter's labelled metadata block says no language), or of exactly one such file the agent's
    `prose` around the call names. Else None: a guess between several files is no record."""
    if not content:
        return None
    fence = _FENCE_OPEN_RE.search(bare := without_labelled_blocks(content), 0, 2000)
    body = bare[fence.end():] if fence else content
    first = next((ln for ln in body[:2000].splitlines() if ln.strip()), "")
    named = _SELF_NAMED_RE.match(first)
    if named:
        seen = {e.path.split("#", 1)[0] for e in events if e.path and e.kind in (EventKind.READ, EventKind.WRITE,
                                                                                 EventKind.EDIT)}
        hits = {p for p in seen if re.split(r"[/\\]", p)[-1] == named.group(1)}
        if len(hits) == 1:
            return hits.pop()
    lang = fence.group(1).lower() if fence else ""
    found = owner(text, _known_texts(events, read_text), lang) if text.strip() else None
    if found or not lang:
        return found
    read = {e.path.split("#", 1)[0] for e in events if e.kind is EventKind.READ and e.path}
    hits = {p for p in read if in_language(p, lang)}
    if len(hits) > 1 and prose:  # the agent says which (`compile-runes.mjs` now rewrites the import)
        hits = {p for p in hits if holds_word(prose, re.split(r"[/\\]", p)[-1])}
    return hits.pop() if len(hits) == 1 else None


_GIT_CHANGE = {"created": EventKind.WRITE, "modified": EventKind.EDIT, "deleted": EventKind.DELETE,
               "moved": EventKind.MOVE}


def _known_texts(events: list[Event], read_text: dict[str, list[str]]) -> dict[str, list[str]]:
    """Each file's text the session showed so far, for `edit_owner.owner`: what its reads output
    and the new lines of its writes and edits."""
    read = list(read_text.items())[-_KNOWN_READ_FILES:]  # the files read last (the dict keeps read order)
    known: dict[str, list[str]] = {path: list(texts[-_KNOWN_PER_READ:]) for path, texts in read}
    taken = 0
    for e in reversed(events):  # the latest first, a bounded number: every path-less edit asks again
        if taken >= _KNOWN_TEXTS:
            break
        if e.path and e.kind in (EventKind.WRITE, EventKind.EDIT) and not e.failed and e.hunks:
            texts = ["\n".join(h.added or h.shown) for h in e.hunks if h.added or h.shown]
            known.setdefault(e.path.split("#", 1)[0], []).extend(texts)
            taken += len(texts)
    return known


# What a path-less edit is matched against, bounded (every such edit asks again, and the texts' evidence
# is memoized per text: together well under that memo's 1,024 entries): the latest 256 written texts, the
# 128 files read last with their 2 latest outputs.
_KNOWN_TEXTS = 256
_KNOWN_READ_FILES = 128
_KNOWN_PER_READ = 2


def _anchored(events: list[Event], path: str, result: str) -> FileChange | None:
    """An edit whose export kept only its new text (`edits.shown_text`), as the replacement it was:
    its old text found in the file's text as the session knows it (`_file_text`)."""
    shown = shown_text(result)
    content = _file_text(events, path) if shown else None
    return anchored_change(path, content, shown) if content else None


def _file_text(events: list[Event], path: str) -> str | None:
    """The file's text as far as the session showed it: its last whole write with each later edit
    replayed (`edits.replay`); where an edit cannot be replayed (no write showed the file, its old text
    is not found), only the new text that edit put there, which is all that is still known of it.
    A part of the file serves: an old text is found near the new one."""
    content: str | None = None
    for e in events:
        if e.path != path or e.failed or e.kind not in (EventKind.WRITE, EventKind.EDIT) or not e.hunks:
            continue
        if e.whole:
            content = "\n".join(e.hunks[0].added)
            continue
        replayed = replay(content, e.hunks) if content is not None else None
        if replayed is None:  # (an edit's text after it, where the export kept only that: `Hunk.shown`)
            new = [h.source[1] if h.source else "\n".join(h.added or h.shown) for h in e.hunks
                   if h.source or h.added or h.shown]
            replayed = "\n".join(new) or None
        content = replayed
    return content


def _git_reported(events: list[Event], rnd: int, msg: Message, call: ToolCall, cmd: str, output: str) -> None:
    """The files a git command's output reports changed (`git commit`'s summary, `git status`, `git
    diff --stat`), once the session has written files without naming them: then git's report is the
    only record of which files those were. Without such writes the transcript already names every
    file it changed, and git's report would add the user's own uncommitted work."""
    for c in git_file_changes(cmd, output):
        events.append(Event(_GIT_CHANGE[c.change], rnd, msg.index, path=c.path, command=cmd, tool=call.name,
                            text=c.source or "", git_output=True))


def _changes_by_path(call: ToolCall) -> dict[str, FileChange]:
    """The call's file changes by path: a path's later whole write wins within one call, its edits add
    up (`sed -i '157s/a/b/' f && sed -i '177s/c/d/' f` is one change of two hunks)."""
    try:
        changes = call_changes(call)
    except (ValueError, TypeError, re.error):  # a malformed payload loses its hunks, never the event
        return {}
    out: dict[str, FileChange] = {}
    for c in changes:
        before = out.get(c.path)
        if before is not None and not (before.whole or c.whole):
            c = FileChange(c.path, before.hunks + c.hunks)
        out[c.path] = c
    return out


def _with_reads_in(changes: dict[str, FileChange], state: _CommandState) -> dict[str, FileChange]:
    """The call's changes, a file read into another (`sed '351r snippet.py'`, `read_in`) given the lines
    the session last wrote it with: a file written whole is remembered (a heredoc before the `sed` of the
    same line counts), one edited in part forgotten (its lines are no longer known). By its path, else
    by its name when one path of that name was written."""
    for path, change in changes.items():
        if change.whole:
            state.written[path] = tuple(ln for h in change.hunks for ln in h.added)
            name = file_name(path)
            state.written_as[name] = path if state.written_as.get(name, path) == path else None
        else:
            state.written.pop(path, None)

    def lines_of(path: str) -> tuple[str, ...] | None:
        found = state.written.get(path)
        if found is None and (same_name := state.written_as.get(file_name(path))):
            found = state.written.get(same_name)
        return found

    return {path: read_in(change, lines_of) for path, change in changes.items()}


def _describe(call: ToolCall) -> str:
    args = call.arguments or {}
    bits = [str(v) for k, v in args.items() if isinstance(v, (str, int)) and k not in {"thought"}][:3]
    return f"{call.name} {' '.join(bits)}".strip()
