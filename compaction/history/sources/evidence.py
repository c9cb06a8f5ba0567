"""What the agent learned from what it read: the lines of tool outputs it later reasoned with, the
reports of its sub-agents, and the searches that located the files it then worked on.

A successor asked "how does X decide Y?" needs the line of code the agent saw, not the agent's
paraphrase alone. Which lines matter is inferred, not guessed: a line of a file view, `cat` or
`grep` result that holds identifiers the assistant names in its own text AFTER the read (backticked
or code-shaped: snake_case, camelCase, dotted, called) is evidence; the rarer the identifier across
outputs, the more it counts. A tool result written by a model (prose: sentences and bullets, not
code or a log) is a sub-agent's report: its most informative sentences are kept like an answer's.

Bounded work: one pass over the assistant's text builds the identifier set (first `_MSG_CHARS` of
each message), one pass over the outputs scans at most `_OUTPUT_CHARS` of each; identifiers are
looked up in a set per line, never a loop of identifiers × lines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from compaction.events import EventKind, results_of_calls
from compaction.history.facts import Fact, cite, display_path, first_line
from compaction.history.sections import Section
from compaction.history.sources.findings import informative
from compaction.history.sources.registry import FactContext, fact_source
from compaction.model import Role, ToolKind

_MSG_CHARS = 3000  # of an assistant message, read for the identifiers it names
_OUTPUT_CHARS = 20_000  # of a tool output, scanned for evidence lines
_LINE_MIN, _LINE_MAX = 8, 220
LINES_PER_FILE = 4  # evidence lines a file's fact shows in full (its one-line form: the best one)
MAX_FILES = 12
REPORT_CHARS = 480  # a sub-agent report's kept sentences
MAX_FOUND = 6
_OCCURRENCES = 12  # lines per named identifier per output

_TOKEN_RE = re.compile(r"[A-Za-z_][\w.]*\w")  # any name, dotted or not: looked up in the named set
# A name with its context: a backtick before it, a parenthesis after it; never a part of a path or URL.
_CONTEXT_TOKEN_RE = re.compile(r"(?<![/\\\w.])(`?)([A-Za-z_][\w.]*\w)(?![/\\\w])(\(?)")
_LINENO_RE = re.compile(r"^\s*(\d{1,6})(?:\t|:\s?|\s*\|\s?|\s*→|\s{2,})")  # `cat -n`, view, `nl`, `N: `, `N→`
_GREP_RE = re.compile(r"^([\w./\\-]+\.\w+):(\d+)[:-]")  # grep -n: path:line:content
_PATHISH_RE = re.compile(r"[\w./\\-]*[\w-]+\.[A-Za-z]\w{0,7}\b")
_SEARCH_CMD_RE = re.compile(r"^\s*(?:cd\s+\S+\s*&&\s*)?(?:grep|rg|ag|find|fd|ls|git\s+grep|locate|tree)\b")
# A shell command that shows files (or searches them): its output is read like a file view. Others
# (builds, test runs, scripts) are outcomes, which the findings timeline keeps.
_READ_CMD_RE = re.compile(r"^\s*(?:cd\s+\S+\s*&&\s*)?(?:cat|head|tail|sed\s+-n|nl|less|more|awk|grep|rg|ag|"
                          r"git\s+(?:grep|show|diff|log)|Get-Content|type)\b")
_CODE_CHARS = frozenset("{};=<>[]()")
_BULLET_RE = re.compile(r"^\s*(?:[-*•]|\d+[.)]|#{1,4})\s+")
_STOP = frozenset({"os.path", "e.g", "i.e"})
# `SKILL.md`, `main.go`: a file's name, not a name in its code (`os.path`, `ds.pop` stay identifiers)
_FILE_NAME_RE = re.compile(r"\.(?:md|py|pyi|ts|tsx|js|jsx|mjs|cjs|json|go|txt|ya?ml|toml|rs|java|kt|c|h|cc|cpp|hpp|"
                           r"html|css|sh|cfg|ini|lock|xml|rb|php|cs|swift|pony|sql|csv|log)$", re.IGNORECASE)


@dataclass(slots=True)
class _Line:
    text: str
    path: str | None
    lineno: int | None
    rnd: int
    ids: frozenset[str]


@dataclass(slots=True)
class _File:
    path: str
    rounds: set[int] = field(default_factory=set)
    lines: list[tuple[float, _Line]] = field(default_factory=list)


def identifiers(text: str) -> set[str]:
    """The code-shaped identifiers of a text (snake_case, camelCase, dotted, called with parentheses,
    any name in backticks with a capital or an underscore); never a path's or URL's parts nor a file
    name. One findall (its context captured by the pattern), then tests on the distinct tokens only."""
    out: set[str] = set()
    for tick, tok, paren in set(_CONTEXT_TOKEN_RE.findall(text)):
        if len(tok) < 4 or tok in _STOP or tok in out:
            continue
        if ("_" in tok or "." in tok or paren or (tok[1:] != tok[1:].lower() and tok != tok.upper())
                or (tick and tok != tok.lower())):
            if not _FILE_NAME_RE.search(tok):
                out.add(tok)
    return out


def _named_after(ctx: FactContext) -> dict[str, int]:
    """identifier → the last round in which the assistant named it (its prose and its edits)."""
    last: dict[str, int] = {}
    for rnd in ctx.transcript.rounds:
        for msg in rnd.messages:
            if msg.role is not Role.ASSISTANT or msg.harness:
                continue
            texts = [msg.text[:_MSG_CHARS]] if msg.text else []
            for call in msg.tool_calls:
                if call.kind in (ToolKind.EDIT, ToolKind.WRITE):
                    texts.extend(str(v)[:_MSG_CHARS] for v in call.arguments.values() if isinstance(v, str))
            for text in texts:
                for ident in identifiers(text):
                    last[ident] = rnd.number
    return last


def is_report(text: str) -> bool:
    """A tool result shaped like prose written by a model: mostly sentences and bullets, few code
    characters, no line-number gutter."""
    if len(text) < 300:
        return False
    lines = [ln for ln in text[:_OUTPUT_CHARS].splitlines() if ln.strip()]
    if len(lines) < 3:
        return False
    prose = gutter = 0
    for ln in lines:
        if _LINENO_RE.match(ln):
            gutter += 1
        words = ln.split()
        if len(words) >= 6 and sum(c.isalpha() or c == " " for c in ln) >= 0.75 * len(ln):
            prose += 1
        elif _BULLET_RE.match(ln) and len(words) >= 3:
            prose += 1
    code = sum(c in _CODE_CHARS for c in text[:_OUTPUT_CHARS])
    return gutter < len(lines) * 0.3 and prose >= len(lines) * 0.5 and code < len(text[:_OUTPUT_CHARS]) * 0.03


def _source_lines(content: str, path: str | None, rnd: int, named: dict[str, int]) -> list[_Line]:
    """The output's lines that hold identifiers the assistant names from this round on. One simple
    token pattern over the whole output and a dict look-up per token; only the lines hit are split out."""
    text = content[:_OUTPUT_CHARS]
    named_here = [tok for tok in set(_TOKEN_RE.findall(text)) if named.get(tok, 0) >= rnd]
    hits: dict[int, set[str]] = {}  # line start → identifiers named
    for tok in named_here:  # each named token's occurrences, a bounded number
        at = text.find(tok)
        for _ in range(_OCCURRENCES):
            if at < 0:
                break
            hits.setdefault(text.rfind("\n", 0, at) + 1, set()).add(tok)
            at = text.find(tok, at + len(tok))
    out: list[_Line] = []
    for start, ids in hits.items():
        stop = text.find("\n", start)
        raw = text[start:stop if stop >= 0 else len(text)]
        if len(raw) < _LINE_MIN or len(raw) > _LINE_MAX + 20 or "://" in raw:
            continue
        lpath, lineno, body = path, None, raw
        g = _GREP_RE.match(raw)
        if g:
            lpath, lineno, body = g.group(1), int(g.group(2)), raw[g.end():]
        else:
            n = _LINENO_RE.match(raw)
            if n:
                lineno, body = int(n.group(1)), raw[n.end():]
        body = " ".join(body.split()).replace("`", "'")
        if len(body) >= _LINE_MIN and " " in body:  # a lone name says nothing the agent did not
            out.append(_Line(body if len(body) <= _LINE_MAX else body[:_LINE_MAX - 1] + "…", lpath, lineno, rnd,
                             frozenset(ids)))
    return out


@fact_source(Section.EVIDENCE)
def evidence_facts(ctx: FactContext) -> list[Fact]:
    if not ctx.preset.code:
        return []
    named = _named_after(ctx)
    worked = _worked_on(ctx)  # path → first round read or edited
    candidates: list[_Line] = []
    reports: list[Fact] = []
    found: dict[str, tuple[str, int]] = {}  # path → (the search that located it, its round)
    for rnd in ctx.transcript.rounds:
        results = results_of_calls(rnd.messages)
        for msg in rnd.messages:
            for call in msg.tool_calls:
                res = results.get(id(call))
                if res is None or not res.content or call.kind in (ToolKind.EDIT, ToolKind.WRITE, ToolKind.TODO):
                    continue
                content = res.content
                if call.kind in (ToolKind.OTHER,) and not res.is_error and is_report(content):
                    text = informative([content[:_OUTPUT_CHARS]], REPORT_CHARS)
                    if text:
                        reports.append(Fact(Section.EVIDENCE, f"Report of `{call.name}` {cite([rnd.number])}: {text}",
                                            [rnd.number], score=60))
                    continue
                if res.is_error:
                    continue
                cmd = call.command or next((v for v in call.arguments.values() if isinstance(v, str) and v), "")
                if cmd and (call.kind is ToolKind.SEARCH or (call.kind is ToolKind.SHELL and _SEARCH_CMD_RE.match(cmd))):
                    _locate(cmd, content, rnd.number, worked, found)
                path = display_path(call.path, ctx.transcript.cwd) if call.path else None
                if call.kind is not ToolKind.SHELL or _READ_CMD_RE.match(cmd):
                    candidates.extend(_source_lines(content, path, rnd.number, named))
    return reports + _evidence(candidates) + _found_facts(found)


def _worked_on(ctx: FactContext) -> dict[str, tuple[str, int]]:
    """basename → (path, first round it was read or edited), for the files the agent worked on."""
    out: dict[str, tuple[str, int]] = {}
    for e in ctx.events:
        if e.kind in (EventKind.READ, EventKind.EDIT, EventKind.WRITE) and e.path:
            p = display_path(e.path, ctx.transcript.cwd)
            base = p.replace("\\", "/").rsplit("/", 1)[-1]
            if base not in out:
                out[base] = (p, e.round)
    return out


def _locate(cmd: str, content: str, rnd: int, worked: dict[str, tuple[str, int]],
            found: dict[str, tuple[str, int]]) -> None:
    """Note the files a search's output named that the agent read or edited from then on."""
    for token in _PATHISH_RE.findall(content[:_OUTPUT_CHARS])[:300]:
        base = token.replace("\\", "/").rsplit("/", 1)[-1]
        hit = worked.get(base)
        if hit is None or hit[0] in found or hit[1] < rnd:
            continue
        if not hit[0].endswith(token.lstrip("./")) and not token.lstrip("./").endswith(hit[0]):
            continue
        found[hit[0]] = (first_line(cmd, 100), rnd)


def _found_facts(found: dict[str, tuple[str, int]]) -> list[Fact]:
    """One line per search that located files the agent then worked on: "Found `X`, `Y` with `cmd`"."""
    by_cmd: dict[tuple[str, int], list[str]] = {}
    for path, key in found.items():
        by_cmd.setdefault(key, []).append(path)
    return [Fact(Section.EVIDENCE, f"Found {', '.join(f'`{p}`' for p in paths[:4])}"
                 f"{f' (+{len(paths) - 4})' if len(paths) > 4 else ''} with `{cmd}` {cite([rnd])}", [rnd], score=30)
            for (cmd, rnd), paths in list(by_cmd.items())[:MAX_FOUND]]


def _evidence(candidates: list[_Line]) -> list[Fact]:
    """One fact per file: its lines holding the rarest identifiers the assistant named, best first."""
    df: dict[str, int] = {}
    for c in candidates:
        for i in c.ids:
            df[i] = df.get(i, 0) + 1
    files: dict[str, _File] = {}
    seen: set[str] = set()
    for c in candidates:
        if c.text in seen:
            continue
        seen.add(c.text)
        score = sum(1.0 / df[i] for i in c.ids) + 0.2 * len(c.ids)
        key = c.path or "(output)"
        f = files.setdefault(key, _File(key))
        f.rounds.add(c.rnd)
        f.lines.append((score, c))
    out: list[Fact] = []
    for f in files.values():
        best = sorted(f.lines, key=lambda x: (-x[0], x[1].rnd))[:LINES_PER_FILE]
        total = sum(s for s, _ in best)
        rounds = sorted({c.rnd for _, c in best})
        head = f"`{f.path}` {cite(rounds)}" if f.path != "(output)" else f"Output {cite(rounds)}"
        shown = [f"{'L' + str(c.lineno) + ': ' if c.lineno else ''}`{c.text}`" for _, c in
                 sorted(best, key=lambda x: (x[1].lineno or 0, x[1].rnd))]
        text = f"{head}: {shown[0] if len(best) == 1 else _one(best)}"
        full = f"{head}:\n" + "\n".join(f"  - {s}" for s in shown) if len(shown) > 1 else text
        out.append(Fact(Section.EVIDENCE, text, rounds, score=10 + 10 * total, full_text=full))
    out.sort(key=lambda x: -x.score)
    return out[:MAX_FILES]


def _one(best: list[tuple[float, _Line]]) -> str:
    _, c = best[0]
    return f"{'L' + str(c.lineno) + ': ' if c.lineno else ''}`{c.text}`"
