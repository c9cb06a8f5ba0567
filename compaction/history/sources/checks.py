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
from compaction.shell import run_words, scripts_run

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
    command: str
    rounds: list[int] = field(default_factory=list)


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
        if not runs or runs[0].casefold() in _VIEWERS or _GIT_VIEWS.match(" ".join(runs)):
            continue
        checks.setdefault(command, _Check(command)).rounds.append(e.round)
    own = own_file_names(ctx) if checks else frozenset()
    kept = [c for c in checks.values() if len(c.rounds) >= MIN_RUNS or _BUILD_RE.search(" ".join(_program(c.command)))
            or runs_own_file(c.command, own)]
    if not kept:
        return []
    kept.sort(key=lambda c: (-len(c.rounds), c.rounds[0]))
    out = []
    for c in kept[:MAX_CHECKS]:
        outputs = _outputs(ctx, c)
        last = summary_line(outputs[-1][1]) if outputs else ""
        times = f" ×{len(c.rounds)}" if len(c.rounds) > 1 else ""
        outcome = f" → {last}" if last else _outcomes(outputs)
        text = f"Checked with `{first_line(c.command, COMMAND_CHARS)}`{times}{outcome} {cite(c.rounds)}"
        out.append(Fact(Section.EVIDENCE, text, sorted(set(c.rounds)), score=SCORE + min(len(c.rounds), 5)))
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


def _shown(command: str, cwd: str | None) -> str:
    """The command without a leading `cd` into the working directory (it runs there); whole, so that two
    heredoc scripts with the same first line are two commands."""
    return project_root.without_root_cd(command, cwd).strip()


def _program(command: str) -> list[str]:
    """The program a command line runs and its plain words (no option, nothing quoted with spaces), past a
    `cd`: what says whether it builds or checks (`npm run build`, `npx tsc`), not its arguments' text."""
    said = run_words(command)  # past `cd`, `sudo`, `env X=1`, `timeout 60`: the program after
    return [w for w in said[:8] if w and not w.startswith("-") and " " not in w][:4]


def _outputs(ctx: FactContext, check: _Check) -> list[tuple[int, str]]:
    """(round, output) of each run of the check whose result was seen, in order."""
    out: list[tuple[int, str]] = []
    for rnd_no in dict.fromkeys(check.rounds):
        if not 0 < rnd_no <= len(ctx.transcript.rounds):
            continue
        rnd = ctx.transcript.rounds[rnd_no - 1]
        results = ctx.results_of(rnd)
        for msg in rnd.messages:
            for call in msg.tool_calls:
                res = results.get(id(call))
                if call.command and res is not None and _shown(call.command, ctx.cwd) == check.command:
                    out.append((rnd_no, res.content or ""))
    return out


def _outcomes(outputs: list[tuple[int, str]]) -> str:
    """What the runs printed, each time it changed (the first run's, then each different one, the last
    MAX_OUTCOMES at most): a reproduction's numbers before and after the fix, a check's hits then none."""
    said: list[tuple[int, str]] = []
    for rnd, output in outputs:
        what = _outcome(output)
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
    lines = [ln.strip() for ln in output.splitlines()
             if _WORD_RE.search(ln) and not _CHROME_RE.match(ln) and not _JSON_KEY_RE.match(ln)]
    if not lines:
        return "no output"
    joined = "; ".join(lines)
    if len(lines) <= 3 and len(joined) <= OUTCOME_CHARS:
        return joined
    last = lines[-1]
    return last if len(last) <= OUTCOME_CHARS else last[: OUTCOME_CHARS - 1] + "…"
