"""The checks the agent ran to verify its work: a command that changes nothing and is not a test run,
run again and again (`rg -n "[^ -~]" FILE || true` after each edit), or a build, a lint or a type
check. Why: neither the completed actions (state-changing commands, tests) nor the reads list them,
yet "how did it verify, with which command" is what a successor needs to check the work the same way;
the line names the command, how often and when, and the last run's closing summary when it printed one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from compaction.events import EventKind
from compaction.history import project_root
from compaction.history.facts import Fact, cite, first_line
from compaction.history.sections import Section
from compaction.history.sources.filelog import logs_of
from compaction.history.sources.findings import summary_line
from compaction.history.sources.registry import FactContext, fact_source
from compaction.shell import (
    CWD_RESET_RE,
    REDIRECT_WORD_RE,
    STATUS_LINE_RE,
    past_prefixes,
    run_words,
    scripts_run,
    split_commands,
    unredirected,
    words,
)
from compaction.transcripts.path_spelling import file_name

MAX_CHECKS = 3  # the most repeated ones
MAX_OUTCOMES = 3  # distinct outputs shown per check: the first and the latest ones
OUTCOME_CHARS = 120
MIN_RUNS = 2  # a command run this often is a check (a build is one from its first run)
SCORE = 52
COMMAND_CHARS = 120
# A build, a lint, a type check: a check from its first run.
_BUILD_RE = re.compile(r"\b(?:build|compile|tsc|typecheck|type-check|lint|eslint|clippy|vet|mypy|pyright|check)\b")
# Commands that show a file or the workspace: reads, not checks (the reads have their own lines).
_VIEWERS = frozenset({"sed", "nl", "cat", "head", "tail", "less", "more", "ls", "pwd", "sleep", "ps", "echo", "wc",
                      "tree", "find", "which", "cd", "true", "clear", "stat", "file", "du", "df", "date", "env",
                      "type", "dir", "get-content", "get-childitem", "get-item", "get-location", "set-location",
                      "test-path", "write-host", "write-output", "select-string", "resolve-path"})  # PowerShell's
_GIT_VIEWS = re.compile(r"^\s*git\s+(?:status|log|diff|show|branch|remote|rev-parse|ls-files|blame)\b")
# A tool's frame around an output, not the output: fences, tags, an exporter's run header.
_CHROME_RE = re.compile(r"^\s*(?:```|~~~|</?[\w-]+>\s*$|<returncode>|Tool use: |(?:Chunk ID|Wall time|Process exited "
                        r"with code|Original token count|Exit code)\b|[A-Z][\w ]{0,30}:\s*$|\.\.\. \(truncated\)|Status: \*\*\w+\*\*\s*$)")
_WORD_RE = re.compile(r"\w")  # a line of brackets or punctuation says nothing
_JSON_KEY_RE = re.compile(r'^\s*"[\w$-]+":')  # an exporter's record of the call, not what it printed


@dataclass(slots=True)
class _Check:
    command: str  # as last run: what a successor runs again
    rounds: list[int] = field(default_factory=list)
    commands: set[str] = field(default_factory=set)  # every spelling run (a pipe to `head` or not)


@fact_source(Section.EVIDENCE)
def check_facts(ctx: FactContext) -> list[Fact]:
    if not ctx.preset.code:
        return []
    checks: dict[str, _Check] = {}
    for e in ctx.events:
        if e.kind is not EventKind.COMMAND or not e.command or e.search or e.test or e.state_changing:
            continue
        command = _shown(e.command, ctx.cwd)
        runs = _program(command)
        if not runs or runs[0].casefold() in _VIEWERS or _GIT_VIEWS.match(" ".join(runs)) or _probes(command):
            continue
        check = checks.setdefault(_identity(command), _Check(command))
        check.command = command
        check.commands.add(command)
        check.rounds.append(e.round)
    own = own_file_names(ctx) if checks else frozenset()
    build = {id(c): builds(c.command) for c in checks.values()}
    ours = {id(c): runs_own_file(c.command, own) for c in checks.values()}
    kept = [c for c in checks.values() if len(c.rounds) >= MIN_RUNS or build[id(c)] or ours[id(c)]]
    if not kept:
        return []
    # A build, a lint or a type check is the gate a successor passes again, a run of the session's own script
    # its work's result: each counts as BUILD_WEIGHT runs more.
    kept.sort(key=lambda c: (-len(c.rounds) - BUILD_WEIGHT * (build[id(c)] + ours[id(c)]), c.rounds[0]))
    out = []
    for c in kept[:MAX_CHECKS]:
        outputs = _outputs(ctx, c)
        last = summary_line(outputs[-1][1]) if outputs and not outputs[-1][2] else ""
        times = f" ×{len(c.rounds)}" if len(c.rounds) > 1 else ""
        outcome = f" → {last}" if last else _outcomes(outputs, build=build[id(c)])
        text = f"Checked with `{first_line(c.command, COMMAND_CHARS)}`{times}{outcome} {cite(c.rounds)}"
        weight = len(c.rounds) + (BUILD_WEIGHT if build[id(c)] else 0)
        # A run of the session's own script whose last run succeeded and said something is the work's result
        # ("✅ GRPO SMOKE TEST PASSED — 3 steps in 37.7s"): it weighs as a test run's counts do, above the
        # commands around it. A crash is not a result to carry on from.
        result = OWN_RUN_BONUS if ours[id(c)] and outputs and not outputs[-1][2] and outcome else 0
        out.append(Fact(Section.EVIDENCE, text, sorted(set(c.rounds)), score=SCORE + min(weight, 5) + result))
    return out


def own_file_names(ctx: FactContext) -> frozenset[str]:
    """The names of the files the session wrote or edited (under their earlier names too)."""
    logs = logs_of(ctx)
    paths = [*logs, *(log.renamed_from for log in logs.values() if log.renamed_from)]
    return frozenset(p.rsplit("/", 1)[-1] for p in paths)


def runs_own_file(command: str, own: frozenset[str]) -> bool:
    """Whether the command runs a file the session wrote (`python image_describer2.py 012.png`,
    `./build.sh`): it tries the work itself, a check from its first run (`grep f.py` only reads it)."""
    return bool(own) and not own.isdisjoint(scripts_run(command))


BUILD_WEIGHT = 2
OWN_RUN_BONUS = 8


def builds(command: str) -> bool:
    """A build, a lint or a type check by its program's and subcommands' names, not by a path it runs
    (`/opt/whisper/build/bin/server` builds nothing)."""
    return bool(_BUILD_RE.search(" ".join(file_name(w) for w in _program(command))))


_PROBE_WORDS = frozenset({"--version", "-V", "--help", "version", "help"})
_SHORT_PROBES = frozenset({"-v", "-h"})  # a tool's own, not a script's (`./check.sh -v` is verbose)


def _probes(command: str) -> bool:
    """`pnpm --version`, `node -v`: every command of the line asks a tool about itself (is it there, which
    one) and checks no work (`node --version && npm test` runs the tests)."""
    parts = _working_parts(command)
    return bool(parts) and all(len(said) > 1 and all(w in _PROBE_WORDS or (w in _SHORT_PROBES and "/" not in said[0]
                                                                          and "." not in said[0]) for w in said[1:])
                               for said in parts)


def _working_parts(command: str) -> list[list[str]]:
    """The words of each command of the line that does work: past prefixes, without redirections (an
    operator's target too: `> out.txt`), plumbing and viewers left out; a `cd` is kept (the working
    directory's own is taken off before: `_shown`), so one build in two directories is two checks."""
    parts = []
    for part in split_commands(command):
        said, _ = unredirected(past_prefixes(words(part)))
        if said and (said[0] == "cd" or (said[0].casefold() not in _VIEWERS and said[0] not in _PLUMBING)):
            parts.append(said)
    return parts


def _identity(command: str) -> str:
    """What makes two runs one check: the commands of the line that do the work, each by its words
    (`node check.mjs X 2>&1 | head` and `node check.mjs X; echo $?` check the same; two searches for two
    patterns are two; `source venv && pytest a.py` and `… && python b.py` two), unless it runs code
    written inline (a heredoc), where the whole line is the check."""
    if "<<" in command:
        return command
    return "\n".join("\0".join(said) for said in _working_parts(command)) or command


_PLUMBING = frozenset({"source", ".", "export", "set", "unset", "false"})  # besides the viewers: no work done


def _shown(command: str, cwd: str | None) -> str:
    """The command without a leading `cd` into the working directory (it runs there); whole, so that two
    heredoc scripts with the same first line are two commands."""
    return project_root.without_root_cd(command, cwd).strip()


def _program(command: str) -> list[str]:
    """The program a command line runs and its plain words (no option, nothing quoted with spaces), past a
    `cd`: what says whether it builds or checks (`npm run build`, `npx tsc`), not its arguments' text."""
    said = run_words(command)  # past `cd`, `sudo`, `env X=1`, `timeout 60`: the program after
    return [w for w in said[:8] if w and not w.startswith("-") and " " not in w and not REDIRECT_WORD_RE.match(w)][:4]


def _outputs(ctx: FactContext, check: _Check) -> list[tuple[int, str, bool]]:
    """(round, output, whether it failed) of each run of the check whose result was seen, in order."""
    out: list[tuple[int, str, bool]] = []
    for rnd_no in dict.fromkeys(check.rounds):
        if not 0 < rnd_no <= len(ctx.transcript.rounds):
            continue
        rnd = ctx.transcript.rounds[rnd_no - 1]
        results = ctx.results_of(rnd)
        for msg in rnd.messages:
            for call in msg.tool_calls:
                res = results.get(id(call))
                if call.command and res is not None and _shown(call.command, ctx.cwd) in check.commands:
                    out.append((rnd_no, res.content or "", res.is_error or res.exit_code not in (None, 0)))
    return out


def _outcomes(outputs: list[tuple[int, str, bool]], build: bool = False) -> str:
    """What the runs printed, each time it changed (the first run's, then each different one, the last
    MAX_OUTCOMES at most): a reproduction's numbers before and after the fix, a check's hits then none;
    a build's verdict and warnings (its last line is most often a table's)."""
    said: list[tuple[int, str]] = []
    for rnd, output, failed in outputs:
        what = (build and not failed and build_outcome(output)) or _outcome(output)
        if what and (not said or said[-1][1] != what):
            said.append((rnd, what))
    if not said:
        return ""
    if len(said) > MAX_OUTCOMES:
        said = [said[0], *said[-(MAX_OUTCOMES - 1):]]
    return ": " + "; ".join(f"r{r} “{w}”" for r, w in said)


def _outcome(output: str) -> str:
    """A run's output in a few words: its lines when it printed few, else its last line; "no output";
    "" when the result is an exporter's JSON record of the call (what the command printed is not in it)."""
    raw = [ln.strip() for ln in output.splitlines() if ln.strip()]
    if raw and sum(ln[0] in "{}[]\"" for ln in raw) * 2 >= len(raw):
        return ""
    lines = [ln.strip() for ln in _unwarned(output.splitlines()) if _WORD_RE.search(ln) and not _CHROME_RE.match(ln)
             and not _JSON_KEY_RE.match(ln) and not CWD_RESET_RE.fullmatch(ln.strip())]  # the harness's own note
    if not lines:
        return "no output"
    framed = [ln for ln in lines if ln[0] in _FRAME_CHARS]
    if len(framed) * 2 >= len(lines) and not any(_FAILED_AFTER_RE.search(ln) for ln in lines if ln[0] not in _FRAME_CHARS) \
            and (panel := _panel_summary(framed, alone=len(framed) == len(lines))):
        return panel  # a dashboard drawn in boxes: its last line is a box's wrapped text, its counts say more
    joined = "; ".join(lines)
    if len(lines) <= 3 and len(joined) <= OUTCOME_CHARS:
        return joined
    last = lines[-1]
    if _WARNING_RE.search(last):  # a teardown's warning after the verdict ("✅ … PASSED — 3 steps in 37.7s")
        closing = lines[-VERDICT_LINES:-1]
        at = next((i for i in range(len(closing) - 1, -1, -1) if _VERDICT_RE.search(closing[i])
                   and not _TROUBLE_RE.search(closing[i])), None)
        # not when something went wrong after it ("… done", then a traceback, then the warning)
        if at is not None and not any(_FAILED_AFTER_RE.search(ln) for ln in closing[at + 1:]):
            last = closing[at]
    last = " ".join(last.translate(_UNFRAME).split()) if last[0] in _FRAME_CHARS else last  # a box's line, unframed
    return last if len(last) <= OUTCOME_CHARS else last[: OUTCOME_CHARS - 1] + "…"


_WARNED_RE = re.compile(r"^\S.*:\d+: \w*Warning: ")  # Python's warning line: `file.py:3: DeprecationWarning: …`


def _unwarned(lines: list[str]) -> list[str]:
    """The lines without Python's warnings and the indented source line each echoes (`  from collections import
    Callable`): printed on the way, they are no run's result; all of them when nothing else is left."""
    out: list[str] = []
    echo = False
    for ln in lines:
        if _WARNED_RE.match(ln):
            echo = not ln.startswith(("<string>", "<stdin>"))  # `python -c`: no source line to echo
            continue
        if echo and ln[:1] in (" ", "\t"):
            echo = False
            continue
        echo = False
        out.append(ln)
    return out if any(ln.strip() for ln in out) else lines


# A CLI dashboard drawn in boxes (task-master, some package managers): its lines framed by box-drawing
# characters, its state in `Key: value` pairs ("Done: 0  Cancelled: 0", "Pending: 2  Blocked: 0").
_FRAME_CHARS = "│┃║╭╮╰╯┌┐└┘├┤┬┴┼─━═╔╗╚╝╟╢"
_UNFRAME = str.maketrans(dict.fromkeys(_FRAME_CHARS))
_PAIR_RE = re.compile(r"\b[A-Z][\w-]*(?: [A-Za-z][\w-]*){0,2}: ?[\w#%./-]+")
_BAR_RE = re.compile(r"[░▒▓█▏▎▍▌▋▊▉]+\s*")  # a progress bar's cells
_PROGRESS_RE = re.compile(r"\d%|\b\d+/\d+\b")


def _panel_summary(framed: list[str], alone: bool) -> str:
    """The first box's counts: the first framed line holding two `Key: value` pairs or more, the line
    before it when that is a progress line ("Tasks Progress: 0% 0/2") and the line after it when it
    holds counts too, frames and progress bars stripped; else, when the output is the box `alone`, its
    one line of text ("⚠️ No tasks found"); "" when neither (an error printed outside a box is read by
    the caller, never hidden by one)."""
    texts = [" ".join(_BAR_RE.sub("", ln.translate(_UNFRAME)).split()) for ln in framed]
    texts = [t for t in texts if _WORD_RE.search(t)]
    pairs = [len(_PAIR_RE.findall(t)) for t in texts]
    k = next((i for i, n in enumerate(pairs) if n >= 2), None)
    if k is None:
        return texts[0] if alone and len(texts) == 1 and len(texts[0]) <= OUTCOME_CHARS else ""
    shown = [texts[k]]
    if k > 0 and pairs[k - 1] and _PROGRESS_RE.search(texts[k - 1]):
        shown.insert(0, texts[k - 1])
    if k + 1 < len(texts) and pairs[k + 1] >= 2:
        shown.append(texts[k + 1])
    said = "; ".join(shown)
    return said if len(said) <= OUTCOME_CHARS else said[: OUTCOME_CHARS - 1] + "…"


# A build's verdict on the whole run ("✓ Compiled successfully in 17.3s", "BUILD SUCCESSFUL in 5s", "Finished
# dev target(s) in 2.1s", "built in 1.2s"), and a line that warns ("171:31  Warning: Unused eslint-disable").
# A verdict word is no argument (`success=True`) and no line of a code frame (`404 | add(…)`).
_VERDICT_RE = re.compile(r"\b(?:success\w*|succeeded|compiled|built|finished|passed|done)\b(?![=(])", re.IGNORECASE)
_TROUBLE_RE = re.compile(r"\b(?:fail\w*|errors?|warn\w*)\b", re.IGNORECASE)
_CODE_FRAME_RE = re.compile(r"^\s*\d+\s*[|│]")
# What says the build failed after all, before or after its "Compiled successfully" (a type check's error, a
# count of errors): the verdict is then not the build's (a warning such as "Failed to load bindings" is not).
_FAILED_RE = re.compile(r"(?i)\b(?:failed to compile|build failed|compilation failed)\b|\berror(?:\[\w+\])?:|"
                        r"\berror TS\d+|\bfound [1-9]\d* errors?\b|\bERR!")
_WARNING_RE = re.compile(r"(?:\b|(?<=[a-z]))warn(?:ing)?\b", re.IGNORECASE)  # `DeprecationWarning` too
_WHERE_RE = re.compile(r"^(?:\S*?:)?\d+(?::\d+)?\s+")  # the warning's place (`171:31  `): each place is one more
MAX_WARNINGS = 2
VERDICT_LINES = 10  # the closing lines a verdict is looked for in, when a warning printed last
_FAILED_AFTER_RE = re.compile(r"\b(?:Traceback|Error|Exception|FAILED|failed|fatal)\b")


def build_outcome(output: str) -> str:
    """A build's last verdict line, then its distinct warnings counted ("2× Warning: Unused eslint-disable
    directive"); "" when it printed no verdict or an error (then its output is read as any other check's)."""
    # a harness's status lines (Gemini CLI's `Error: (none)`, `Exit Code: 0`) are not the build's
    lines = [ln.strip() for ln in output[-8000:].splitlines() if ln.strip() and not STATUS_LINE_RE.fullmatch(ln.strip())]
    at = next((i for i in range(len(lines) - 1, -1, -1) if len(lines[i]) <= OUTCOME_CHARS
               and _VERDICT_RE.search(lines[i]) and not _TROUBLE_RE.search(lines[i])
               and not _CODE_FRAME_RE.match(lines[i])), None)
    if at is None or any(_FAILED_RE.search(ln) for ln in lines):
        return ""
    warned: dict[str, int] = {}
    for ln in lines:
        if _WARNING_RE.search(ln):
            said = _WHERE_RE.sub("", ln)
            warned[said] = warned.get(said, 0) + 1
    shown = [f"{n}× {w}" if n > 1 else w for w, n in list(warned.items())[:MAX_WARNINGS]]
    # what it built, counted (`✓ 1595 modules transformed.`), and its largest output with its size
    counted = next((ln for ln in lines[:at] if _MARKED_COUNT_RE.match(ln) and len(ln) <= OUTCOME_CHARS), None)
    sizes = [(float(m.group(3)) * _UNIT.get(m.group(4).lower(), 1), f"{m.group(1)} {m.group(2)}")
             for ln in lines if (m := _SIZED_RE.match(ln))]
    largest = max(sizes)[1] if sizes else None
    return "; ".join([lines[at], *filter(None, (counted, largest)),
                      *(w if len(w) <= OUTCOME_CHARS else w[:OUTCOME_CHARS - 1] + "…" for w in shown)])


_MARKED_COUNT_RE = re.compile(r"^[✓✔√]\s+\d[\d,]*\s+\w")
_SIZED_RE = re.compile(r"^(\S+\.\w+)\s+((\d+(?:\.\d+)?)\s?([kKMG]?)i?B)\b")  # `dist/index.js   250.84 kB`
_UNIT = {"k": 1e3, "m": 1e6, "g": 1e9}
