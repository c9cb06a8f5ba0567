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
from compaction.history.facts import Fact, cite, first_line
from compaction.history.sections import Section
from compaction.history.sources.findings import summary_line
from compaction.history.sources.registry import FactContext, fact_source
from compaction.shell import first_word

MAX_CHECKS = 3  # the most repeated ones
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
_CD_PREFIX = re.compile(r"^\s*cd\s+(\"[^\"]+\"|'[^']+'|(?:\\ |[^\s;&|])+)\s*&&\s*")


@dataclass(slots=True)
class _Check:
    command: str
    rounds: list[int] = field(default_factory=list)
    last_output: str = ""


@fact_source(Section.EVIDENCE)
def check_facts(ctx: FactContext) -> list[Fact]:
    if not ctx.preset.code:
        return []
    checks: dict[str, _Check] = {}
    for e in ctx.events:
        if e.kind is not EventKind.COMMAND or not e.command or e.search or e.test or e.state_changing:
            continue
        line = _shown(e.command, ctx.cwd)
        if not line or first_word(line).casefold() in _VIEWERS or _GIT_VIEWS.match(line):
            continue
        checks.setdefault(line, _Check(line)).rounds.append(e.round)
    kept = [c for c in checks.values() if len(c.rounds) >= MIN_RUNS or _BUILD_RE.search(c.command)]
    if not kept:
        return []
    kept.sort(key=lambda c: (-len(c.rounds), c.rounds[0]))
    out = []
    for c in kept[:MAX_CHECKS]:
        last = _last_summary(ctx, c)
        times = f" ×{len(c.rounds)}" if len(c.rounds) > 1 else ""
        outcome = f" → {last}" if last else ""
        text = f"Checked with `{first_line(c.command, COMMAND_CHARS)}`{times}{outcome} {cite(c.rounds)}"
        out.append(Fact(Section.EVIDENCE, text, sorted(set(c.rounds)), score=SCORE + min(len(c.rounds), 5)))
    return out


def _shown(command: str, cwd: str | None) -> str:
    """The command's first line, without a leading `cd` into the working directory (it runs there)."""
    line = first_line(command, 10**6)
    m = _CD_PREFIX.match(line)
    if m and cwd and m.group(1).strip("'\"").replace("\\ ", " ").rstrip("/") == cwd.rstrip("/"):
        line = line[m.end():]
    return line.strip()


def _last_summary(ctx: FactContext, check: _Check) -> str:
    """The closing summary line ("Successfully built …", "0 errors") of the check's last run, if any."""
    rnd_no = check.rounds[-1]
    if not 0 < rnd_no <= len(ctx.transcript.rounds):
        return ""
    rnd = ctx.transcript.rounds[rnd_no - 1]
    results = ctx.results_of(rnd)
    for msg in reversed(rnd.messages):
        for call in msg.tool_calls:
            res = results.get(id(call))
            if call.command and res is not None and res.content and _shown(call.command, ctx.cwd) == check.command:
                return summary_line(res.content)
    return ""
