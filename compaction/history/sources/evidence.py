"""What the agent learned from what it read: the lines of tool outputs it later reasoned with, the
reports of its sub-agents, and the searches that located the files it then worked on.

A successor asked "how does X decide Y?" needs the line of code the agent saw, not the agent's
paraphrase alone. Which lines matter is inferred, not guessed: a line of a file view, `cat` or
`grep` result that holds identifiers the assistant names in its own text or edits AFTER the read
(code-shaped: snake_case, camelCase, dotted or a dotted name's part; or backticked) is evidence;
the rarer the identifier across outputs, the more it counts. It is shown as `path` Lnn: the code
line, cut to the span around those names. A tool result written by a model (prose: sentences and
bullets, not code or a log) is a sub-agent's report: its lines holding the names the agent went on
to use, then those locating code or saying how it behaves, are kept (`_digest`).

A result that echoes what the assistant itself wrote (its question, its plan) or ends by picking
one of the options it lists is the USER's answer, not a report: told apart by that shape, not by
the tool's name.

Bounded work: one pass over the assistant's text notes each word's last round (a bytes translate
and split per round, the dict updated in C); one pass over the outputs reads at most `_READ_CHARS`
of each, its words intersected with the named ones (a set operation), the code shape tested once
per word; only the few lines kept per file are parsed and trimmed.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from compaction.events import EventKind, argument_strings, without_fences
from compaction.history.condense import cut_at_word
from compaction.history.echo import echoes_call
from compaction.history.facts import Fact, cite, display_path, first_line
from compaction.history.lookups import found_nothing_in, lookup_text
from compaction.history.sections import Section
from compaction.history.sources.blocks import file_kind, shown_file
from compaction.history.sources.findings import informative
from compaction.history.sources.registry import FactContext, fact_source
from compaction.model import Role, ToolCall, ToolKind, ToolResult

_MSG_CHARS = 2000  # of an assistant message, read for the identifiers it names
_EDIT_CHARS = 800  # of an edit's argument, likewise
_OUTPUT_CHARS = 20_000  # of a tool output read as a report
_READ_CHARS = 4000  # of a tool output scanned for evidence lines and located files
_LINE_MIN, _LINE_MAX, _RAW_MAX = 8, 160, 600
LINES_PER_FILE = 4  # evidence lines a file's fact shows in full (its one-line form: the best one)
MAX_FILES = 12
REPORT_CHARS = 600  # a sub-agent report's kept lines
MAX_FOUND = 6
_OCCURRENCES = 4  # lines per named identifier per output
_COMMON = 8  # outputs a name is looked for in, at most
_LINES_PER_OUTPUT = 10  # of an output's lines holding named identifiers, those with the most

_TOKEN_RE = re.compile(r"[A-Za-z_][\w.]*\w")  # any name, dotted or not: looked up in the named set
# A name with its context: a backtick before it, a parenthesis after it; never a part of a path or URL.
# a path stays one word (`/repo/pkg_x/y.py`), so its parts are never taken for names in the code
_WORD_TABLE = bytes(c if chr(c).isascii() and (chr(c).isalnum() or chr(c) in "_./\\") else 32 for c in range(256))
_MARKED_RE = re.compile(r"(?<![\w.])[\d.]*+([A-Za-z_][\w.]*\w)(?=[`(])")  # a name called or in backticks
_LINENO_RE = re.compile(r"^\s*(\d{1,6})(?:\t|:\s?|\s*\|\s?|\s*→|\s{2,})")  # `cat -n`, view, `nl`, `N: `, `N→`
_GREP_RE = re.compile(r"^([\w./\\-]+\.\w+):(?:(\d+)[:-])?")  # grep: path:[line:]content
_NAME_RE = re.compile(r"[\w.-]+")  # a file's name among a search's output
# The harness's notice wrapped around an output it cut ("<warning>The output of your last command was too
# long. … you can try use head, tail or sed …</warning>"): the loader keeps it for the error memory; it is
# no line of the file that was read
_NOTICE_RE = re.compile(r"\A\s*<warning>[^<]*</warning>\s*")  # where the loader puts it: first, nothing nested
_SEARCH_CMD_RE = re.compile(r"^\s*(?:cd\s+\S+\s*&&\s*)?(?:grep|rg|ag|find|fd|ls|git\s+grep|locate|tree)\b")
# A shell command that shows files (or searches them): its output is read like a file view. Others
# (builds, test runs, scripts) are outcomes, which the findings timeline keeps.
_READ_CMD_RE = re.compile(r"^\s*(?:cd\s+\S+\s*&&\s*)?(?:cat|head|tail|sed\s+-n|nl|less|more|awk|grep|rg|ag|"
                          r"git\s+(?:grep|show|diff|log)|Get-Content|type)\b")
_CODE_CHARS = "{};=<>[]()"
_LETTERS = bytes(c for c in range(128) if chr(c).isalpha() or chr(c) == " ")
_EMPHASIS_RE = re.compile(r"\*\*|__")
_ABS_PATH_RE = re.compile(r"(?<![\w.:/])/(?:[\w.@-]+/)+")  # a directory of an absolute path
# how a thing behaves: what it returns, on which condition, in which form
_HOW_RE = re.compile(r"\b(?:returns?|if|else|otherwise|when|unless|only|instead|because|so that|formatted|"
                     r"looks? like|defaults?|falls? back)\b", re.IGNORECASE)
_NUMBER_RE = re.compile(r"\b\d+\b")
_LABEL_RE = re.compile(r"^[A-Z][\w ]{1,18}:\s")  # "File: …", "Lines: …"
_LOCATION_RE = re.compile(r"\b(?:lines?|L)\s?\d+|\.\w{1,5}:\d+|\b\d+-\d+\b", re.IGNORECASE)
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


_Hit = tuple[str, "str | None", int, frozenset[str]]  # a raw line, its file, its round, the names it holds


def code_shaped(tok: str) -> bool:
    """snake_case, camelCase or dotted, never a file's name (`main.go`) nor a stop word."""
    return (len(tok) >= 4 and tok not in _STOP and ("_" in tok or "." in tok or (tok[1:] != tok[1:].lower()
            and tok != tok.upper())) and not _FILE_NAME_RE.search(tok))


def identifiers(text: str) -> set[str]:
    """The code-shaped identifiers of a text (snake_case, camelCase, dotted) and the names it calls
    (`parse(`) or backticks; never a path's parts nor a file name. What `_Named` counts as named."""
    marked = {m for m in _MARKED_RE.findall(text) if len(m) >= 4 and not _FILE_NAME_RE.search(m)}
    return {tok for tok in set(_TOKEN_RE.findall(text)) if (code_shaped(tok) or tok in marked)
            and "/" + tok not in text and tok + "/" not in text}


def words(text: str, prose: bool = False) -> list[bytes]:
    """The name-like words of a text (letters, digits, `_` and `.`), as ASCII bytes: one C-speed
    translate and split where a token regex costs twice as much; non-ASCII parts break words. In
    prose a sentence's final dot is not part of its last word."""
    raw = text.encode("utf-8", "surrogatepass")
    if prose:
        raw = raw.replace(b". ", b"  ").replace(b".\n", b"\n")
    return raw.translate(_WORD_TABLE).split()


class _Named:
    """What the assistant named, round by round: every word of its prose and its edits (the first
    `_MSG_CHARS` of each) with the last round it appeared in; a word of an output counts when it is
    in here from the output's round on and is code-shaped (or was backticked)."""

    def __init__(self, ctx: FactContext) -> None:
        self.ctx = ctx
        self.last: dict[bytes, int] = {}
        self.marked: set[str] = set()  # backticked: a name even when a plain word
        for rnd in ctx.transcript.rounds:
            texts: list[str] = []
            for msg in rnd.messages:
                if msg.role is not Role.ASSISTANT or msg.harness:
                    continue
                if msg.text:
                    text = msg.text[:_MSG_CHARS]
                    texts.append(text)
                    if "`" in text:
                        self.marked.update(text.split("`")[1::2])
                for call in msg.tool_calls:
                    if call.kind in (ToolKind.EDIT, ToolKind.WRITE):
                        texts.extend(v[:_EDIT_CHARS] for v in call.arguments.values() if isinstance(v, str))
            if texts:
                self.last.update(dict.fromkeys(words("\n".join(texts), prose=True), rnd.number))
        for w in [k for k in self.last if b"." in k]:  # a dotted name's parts: `m.GetProjectID` names `GetProjectID`
            for part in w.split(b"."):
                if len(part) > 3 and self.last.get(part, 0) < self.last[w]:
                    self.last[part] = self.last[w]
        self._keys = set(self.last)  # less each word found not code-shaped: each is tested once
        self._seen: dict[bytes, int] = {}  # outputs each name was found in
        self._names: dict[bytes, str] = {}  # the words found code-shaped

    def named_in(self, found: list[bytes], rnd: int) -> list[str]:
        """The words of an output the assistant names from round `rnd` on, code-shaped."""
        out = []
        last, seen = self.last, self._seen
        for w in self._keys.intersection(found):
            tok = self._names.get(w)
            if tok is None:
                tok = w.decode()
                if "/" in tok or "\\" in tok or not (code_shaped(tok) or tok in self.marked):
                    self._keys.discard(w)
                    continue
                self._names[w] = tok
            if last[w] >= rnd:
                out.append(tok)
                seen[w] = n = seen.get(w, 0) + 1
                if n >= _COMMON:  # in every other output: its lines weigh little (1/df), look no further
                    self._keys.discard(w)
        return sorted(out)  # a set's order is not the same from one process to the next

    def echoes(self, text: str, rnd: int) -> bool:
        """`text` repeats lines the assistant wrote up to round `rnd` (its question, its plan: in its
        prose, its calls' arguments or what its writes showed): a few probes by str.find, over a
        corpus built only when asked (rarely: for the outputs shaped like reports)."""
        probes = [ln.strip(" *-#>`") for ln in text[:_OUTPUT_CHARS].splitlines()]
        probes = [p[:80] for p in probes if len(p) >= 30][:6]
        if not probes:
            return False
        parts: list[str] = []
        for r in self.ctx.transcript.rounds[:rnd]:
            results = self.ctx.results_of(r) if r.number == rnd or any(
                c.kind in (ToolKind.EDIT, ToolKind.WRITE) for m in r.messages for c in m.tool_calls) else {}
            for msg in r.messages:
                if msg.role is not Role.ASSISTANT:
                    continue
                parts.append(msg.text[:_MSG_CHARS])
                for call in msg.tool_calls:
                    parts.extend(v[:_MSG_CHARS] for v in call.arguments.values() if isinstance(v, str))
                    res = results.get(id(call)) if call.kind in (ToolKind.EDIT, ToolKind.WRITE) else None
                    if res is not None:
                        parts.append(res.content[:_MSG_CHARS])
        corpus = "\n".join(parts)
        return sum(p in corpus for p in probes) >= min(2, len(probes))


def is_report(text: str) -> bool:
    """A tool result shaped like prose written by a model: mostly sentences and bullets, few code
    characters, no line-number gutter."""
    if len(text) < 300:
        return False
    text = text[:_OUTPUT_CHARS]
    if sum(map(text.count, _CODE_CHARS)) >= len(text) * 0.03:  # counted in C, a character class each
        return False
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if len(lines) < 3:
        return False
    prose = gutter = 0
    for ln in lines:
        if _LINENO_RE.match(ln):
            gutter += 1
        n = len(ln.split())
        if n >= 6 and len(ln.encode("ascii", "ignore").translate(None, _LETTERS)) <= 0.25 * len(ln):
            prose += 1  # letters and spaces: three quarters of the line at least (non-ASCII letters too)
        elif n >= 3 and _BULLET_RE.match(ln):
            prose += 1
    return gutter < len(lines) * 0.3 and prose >= len(lines) * 0.5


def picks_an_option(text: str) -> bool:
    """The result ends with a short answer that repeats one of the options listed above it: the
    user's choice in a question tool, however the transcript renders it."""
    lines = [ln.strip() for ln in text[-3000:].splitlines() if ln.strip()]
    if len(lines) < 3 or len(lines[-1]) > 200 or lines[-1].startswith("```"):
        return False
    last = _EMPHASIS_RE.sub("", lines[-1])
    last = last.split(":", 1)[1] if ":" in last[:20] else last  # "Answer: …"
    picks = [x.strip(" \"'") for x in last.split(",") if len(x.strip()) >= 3]
    options = [_EMPHASIS_RE.sub("", ln) for ln in lines[:-1] if _BULLET_RE.match(ln)]
    return bool(picks) and any(p in o for p in picks for o in options)


def report_body(content: str) -> str:
    """A report wrapped whole in one fence (a tool block of a Markdown export): the fence's body."""
    head = content[:300]
    start = head.find("```")
    end = content.rstrip().rfind("\n```")
    if start < 0 or end <= start or content.rstrip()[end + 4:].strip():
        return content
    nl = content.find("\n", start)
    return content[nl + 1:end] if 0 <= nl < end else content


def _source_lines(content: str, path: str | None, rnd: int, named: _Named, call: ToolCall | None = None) -> list[_Hit]:
    """The output's lines that hold identifiers the assistant names from this round on: its words
    intersected with the named ones, then each one's first occurrences by str.find. Lines are only
    sliced here; the few kept per file are parsed and trimmed at the end (`_line`). A line that only
    echoes the `call` (its tool's name, or one of its arguments with little else) is left out."""
    text = content[:_READ_CHARS]
    hits: dict[int, set[str]] = {}  # line start → identifiers named
    for tok in named.named_in(words(text), rnd):  # each one's occurrences, bounded
        at = text.find(tok)
        for _ in range(_OCCURRENCES):
            if at < 0:
                break
            hits.setdefault(text.rfind("\n", 0, at) + 1, set()).add(tok)
            at = text.find(tok, at + len(tok))
    out: list[_Hit] = []
    # sorted by their place too: a set's order changes from one process to the next, the document must not
    for start, ids in sorted(hits.items(), key=lambda kv: (-len(kv[1]), kv[0]))[:_LINES_PER_OUTPUT]:
        stop = text.find("\n", start)
        raw = text[start:stop if stop >= 0 else len(text)]
        if _LINE_MIN <= len(raw) <= _RAW_MAX and "://" not in raw and not (call and echoes_call(raw, call)) \
                and not (_JSON_FLAG_RE.match(raw) and not (path or "").endswith(_JSON_FILES)):
            g = _GREP_RE.match(raw) if path is None else None  # grep -n: the line's own file
            out.append((raw, g.group(1) if g else path, rnd, frozenset(ids)))
    return out


# A JSON key holding a flag or a number alone (`"isHidden": false,`): a tool envelope's field, no finding
_JSON_FILES = (".json", ".jsonc", ".json5")  # a JSON file's own flags are its content (`"noImplicitAny": false,`)
_JSON_FLAG_RE = re.compile(r'\s*"[\w.$-]+"\s*:\s*(?:true|false|null|-?\d+(?:\.\d+)?)\s*,?\s*$')


# An import line (`from .utils.validation import check_array`, `import type { SessionEntry } from "…"`,
# `#include <x.h>`, `use std::fs;`): the reviews found them among the lines read, taking a finding's room
_IMPORT_RE = re.compile(r"(?:from\s+[\w.]+\s+import\b|import\s+(?:type\s+)?[\w{*'\"]|#\s*include\b|use\s+[\w:]+(?:::\{[^}]*\})?\s*;"
                        r"|using\s+[\w.]+\s*;|(?:const|let|var)\s+[\w{}, ]+=\s*require\()")


def _line(hit: _Hit) -> _Line | None:
    """A kept line parsed: its number (a grep's or a view's gutter), its code trimmed around the names."""
    raw, path, rnd, ids = hit
    lineno, body = None, raw
    g = _GREP_RE.match(raw)
    if g:
        lineno, body = int(g.group(2)) if g.group(2) else None, raw[g.end():]
    else:
        n = _LINENO_RE.match(raw)
        if n:
            lineno, body = int(n.group(1)), raw[n.end():]
    body = " ".join(body.split()).replace("`", "'")
    if len(body) < _LINE_MIN or " " not in body:  # a lone name says nothing the agent did not
        return None
    if _IMPORT_RE.match(body):  # where a name comes from, not what the code does with it
        return None
    return _Line(_trim(body, ids), path, lineno, rnd, ids)


def _trim(body: str, ids: set[str]) -> str:
    """A long line cut to the span around the names the agent used: what it read them in."""
    if len(body) <= _LINE_MAX:
        return body
    spans = [(at, at + len(i)) for i in ids if (at := body.find(i)) >= 0] or [(0, 0)]
    lo = max(0, min(a for a, _ in spans) - 40)
    hi = min(len(body), max(b for _, b in spans) + 60)
    if hi - lo > _LINE_MAX:
        hi = lo + _LINE_MAX
    return ("…" if lo else "") + body[lo:hi].strip() + ("…" if hi < len(body) else "")


_WORK_KINDS = frozenset({EventKind.READ, EventKind.EDIT, EventKind.WRITE})


@fact_source(Section.EVIDENCE)
def evidence_facts(ctx: FactContext) -> list[Fact]:
    if not ctx.preset.code:
        return []
    named = _Named(ctx)
    worked: dict[str, tuple[str, int]] | None = None  # basename → (path, first round read or edited)
    candidates: list[_Hit] = []
    reports: list[Fact] = []
    found: dict[str, tuple[str, int]] = {}  # path → (the search that located it, its round)
    misses: list[tuple[int, str]] = []  # the searches since the last that located a file, that found nothing
    missed_before: dict[tuple[str, int], list[tuple[int, str]]] = {}  # a locating search → the misses before it
    kinds: dict[str, tuple[str, int, int]] = {}  # a file shown whole with no code: what it holds, its lines, round
    for rnd in ctx.transcript.rounds:
        results = ctx.results_of(rnd)
        for msg in rnd.messages:
            for call in msg.tool_calls:
                res = results.get(id(call))
                if res is None or call.kind in (ToolKind.EDIT, ToolKind.WRITE, ToolKind.TODO):
                    continue
                if not res.content or res.is_error:
                    if (missed := _missed(call, res)) is not None:
                        misses.append((rnd.number, missed))
                    continue
                content = _NOTICE_RE.sub("", res.content, count=1) if "<warning>" in res.content[:200] else res.content
                if call.kind is ToolKind.OTHER and is_report(content):
                    if not (picks_an_option(content) or named.echoes(content, rnd.number) or _echoes_arguments(call, content)):
                        body = report_body(content)
                        text = _digest(body, rnd.number, named, ctx.cwd) or informative(
                            [body[:4000]], REPORT_CHARS)
                        candidates.extend(_source_lines(body, None, rnd.number, named))  # the code it quotes
                        if text:
                            reports.append(Fact(Section.EVIDENCE, f"Report of `{call.name}` {cite([rnd.number])}: "
                                                f"{text}", [rnd.number], score=60))
                    continue
                cmd = call.command or next((v for v in call.arguments.values() if isinstance(v, str) and v), "")
                if cmd and _is_lookup(call, cmd):
                    if found_nothing_in(content):
                        if (missed := _miss_said(call, res)) is not None:
                            misses.append((rnd.number, missed))
                        continue
                    worked = _worked_on(ctx) if worked is None else worked
                    before = len(found)
                    _locate(cmd, content, rnd.number, worked, found)
                    if len(found) > before:  # the misses before it: where the agent looked first, and did not find
                        missed_before[(first_line(cmd, 100), rnd.number)] = [
                            m for m in misses if m[0] >= rnd.number - _MISSES_ROUNDS]
                        misses = []
                path = call.path or (shown_file(cmd) if call.kind is ToolKind.SHELL else None)
                if call.kind is not ToolKind.SHELL or _READ_CMD_RE.match(cmd):
                    echoing = call if res.exit_code in (None, 0) else None  # a failure's lines are its error
                    candidates.extend(_source_lines(content, path, rnd.number, named, echoing))
                    if path and path not in kinds and (kind := file_kind(content)):
                        kinds[path] = (*kind, rnd.number)
    return reports + _kind_facts(kinds, ctx.cwd) + _evidence(candidates, ctx.cwd) \
        + _found_facts(found, missed_before, _edited(ctx))


def _kind_facts(kinds: dict[str, tuple[str, int, int]], cwd: str | None) -> list[Fact]:
    """A file the agent read whole that holds no code (empty, a placeholder, documentation only) is
    a finding about it: where the code is not, and what is left to write."""
    return [Fact(Section.FINDINGS, f"`{display_path(path, cwd)}` {cite([rnd])}: {n} lines, {kind}; no code",
                 [rnd], score=64) for path, (kind, n, rnd) in list(kinds.items())[:6]]


def _digest(body: str, rnd: int, named: _Named, cwd: str | None) -> str | None:
    """A report's lines that the agent went on to use: those holding the names it later wrote or
    said (what it learned from the report), then those locating code (a file, line numbers) and
    dense in backticked names; kept in the report's order up to `REPORT_CHARS`. Code blocks are
    left to the evidence lines; a "label: value" run (File:/Lines:) reads as one line."""
    text = without_fences(body[:_OUTPUT_CHARS])
    roots = _ABS_PATH_RE.findall(text)
    root = cwd if cwd and any(r.startswith(cwd.rstrip("/") + "/") for r in roots) else (
        os.path.commonpath(roots) if len(roots) > 1 else None)  # the project's root, else the files' common one
    if root and len(root) > 1:  # the project's files as the agent's own paths show them: relative
        text = text.replace(root.rstrip("/") + "/", "")
    units: list[str] = []
    joined = False
    for ln in text.splitlines():
        x = " ".join(_EMPHASIS_RE.sub("", ln).split()).lstrip("-*• ")
        if len(x) < 6 or x.startswith("#"):
            continue
        if units and not joined and len(x) < 120 and len(units[-1]) < 120 and _LABEL_RE.match(x) and _LABEL_RE.match(units[-1]):
            units[-1] += " " + x
            joined = True
        else:
            units.append(x)
            joined = False
    scored = []
    for i, u in enumerate(units[:200]):
        used = len(named.named_in(words(u), rnd))
        score = (2 * used + min(u.count("`") / 2, 2) + (1 if _LOCATION_RE.search(u) else 0)
                 + (1 if _HOW_RE.search(u) else 0) + (0.5 if _NUMBER_RE.search(u) else 0))
        if score >= 1:
            scored.append((score, i))
    keep: list[int] = []
    size = 0
    for _, i in sorted(scored, key=lambda x: (-x[0], x[1])):
        n = min(len(units[i]), 200)
        if size + n > REPORT_CHARS:
            continue
        keep.append(i)
        size += n + 3
    if not keep:
        return None
    return " · ".join(cut_at_word(u, 200) for u in (units[i] for i in sorted(keep)))


def _echoes_arguments(call: ToolCall, content: str) -> bool:
    """The result repeats the call's own text (a question, a plan): the user's answer to it."""
    for text in argument_strings(list(call.arguments.values()), max_depth=3, max_items=20):
        for line in text[:2000].splitlines():
            line = line.strip(" *-#>`\"'")
            if len(line) >= 30 and line[:60] in content:
                return True
    return False


def _worked_on(ctx: FactContext) -> dict[str, tuple[str, int]]:
    """basename → (path, first round it was read or edited), for the files the agent worked on."""
    out: dict[str, tuple[str, int]] = {}
    for e in ctx.events:
        if e.path and e.kind in _WORK_KINDS:
            base = e.path.replace("\\", "/").rsplit("/", 1)[-1]
            if base not in out:
                out[base] = (e.path, e.round)
    return {base: (display_path(p, ctx.cwd), r) for base, (p, r) in out.items()}


def _locate(cmd: str, content: str, rnd: int, worked: dict[str, tuple[str, int]],
            found: dict[str, tuple[str, int]]) -> None:
    """Note the files a search's output named that the agent read or edited from then on: the
    output's name-like tokens intersected with the worked-on files' names, each hit confirmed by
    its path's tail."""
    text = content[:_READ_CHARS]
    slashed = text.replace("\\", "/") if "\\" in text else text
    for base in sorted(set(_NAME_RE.findall(text)) & worked.keys()):
        path, first = worked[base]
        if path in found or first < rnd:
            continue
        tail = "/".join(path.replace("\\", "/").rsplit("/", 2)[-2:])
        if tail in slashed:
            found[path] = (first_line(cmd, 100), rnd)


def _edited(ctx: FactContext) -> frozenset[str]:
    """The files the agent edited or wrote, as the found lines name them."""
    return frozenset(display_path(e.path, ctx.cwd) for e in ctx.events
                     if e.path and e.kind in (EventKind.EDIT, EventKind.WRITE))


EDITED_FOUND_BONUS = 5  # a search that located a file the agent then changed: where the work is


def _found_facts(found: dict[str, tuple[str, int]],
                 missed_before: dict[tuple[str, int], list[tuple[int, str]]] | None = None,
                 edited: frozenset[str] = frozenset()) -> list[Fact]:
    """One line per search that located files the agent then worked on: "Found `X`, `Y` with `cmd`", and the
    searches before it that found nothing ("after 5 searches found nothing: `find src/libponyc …` r4 … `grep -r
    X src` r8"): where the thing is not, and why the agent widened its search."""
    by_cmd: dict[tuple[str, int], list[str]] = {}
    for path, key in found.items():
        by_cmd.setdefault(key, []).append(path)
    out = []
    for (cmd, rnd), paths in list(by_cmd.items())[:MAX_FOUND]:
        missed = (missed_before or {}).get((cmd, rnd), [])
        after = count = ""
        if missed:
            shown = [f"{c} {cite([r])}" for r, c in ([missed[0]] if len(missed) == 1 else [missed[0], missed[-1]])]
            count = f", after {len(missed)} search{'es' if len(missed) > 1 else ''} found nothing"
            after = f"{count}: " + " … ".join(shown)
        line = (f"Found {', '.join(f'`{p}`' for p in paths[:4])}"
                f"{f' (+{len(paths) - 4})' if len(paths) > 4 else ''} with `{cmd}` {cite([rnd])}")
        # the one line says the agent looked elsewhere first (why it widened its search); the full one where
        # the search that found the file changed outranks one that found a file only read on the way
        # (ponyc: `find . -name "*cli*.pony"` found the package's docs, `grep -r "class CommandParser"` its code)
        bonus = EDITED_FOUND_BONUS if edited.intersection(paths) else 0
        out.append(Fact(Section.EVIDENCE, line + count, [rnd], score=30 + (3 if missed else 0) + bonus,
                        full_text=line + after if after else None, short=line if count else None))
    return out


def _missed(call: ToolCall, res: ToolResult) -> str | None:
    """How a look-up that ran and found nothing reads (`` `grep -r "X" src` ``), else None: not a call that
    is no look-up, not one the shell could not run (`rg: command not found`), not one with nothing to retell."""
    if not _is_lookup(call, call.command or "") or not found_nothing_in(res.content or ""):
        return None
    return _miss_said(call, res)


def _miss_said(call: ToolCall, res: ToolResult) -> str | None:
    """How a look-up that found nothing reads, unless the shell could not run it."""
    if res.exit_code in (126, 127) or _NOT_RUN_RE.search((res.content or "")[:400]):
        return None
    return lookup_text(call)


def _is_lookup(call: ToolCall, command: str) -> bool:
    """A search tool's call, or a shell command that lists or greps."""
    return call.kind is ToolKind.SEARCH or (call.kind is ToolKind.SHELL and _SEARCH_CMD_RE.match(command) is not None)


_NOT_RUN_RE = re.compile(r"(?i)command not found|is not recognized as|no such file or directory: (?:rg|fd|ag)\b")


_MISSES_ROUNDS = 10  # a search that found nothing this many rounds before the one that located the file is told


def _evidence(candidates: list[_Hit], cwd: str | None) -> list[Fact]:
    """One fact per file: its lines holding the rarest identifiers the assistant named, best first."""
    df: dict[str, int] = {}
    for c in candidates:
        for i in c[3]:
            df[i] = df.get(i, 0) + 1
    files: dict[str, list[tuple[float, _Hit]]] = {}
    shown_as: dict[str | None, str] = {}
    seen: set[str] = set()
    for c in candidates:
        raw, path, _, ids = c
        if raw in seen:
            continue
        seen.add(raw)
        if path not in shown_as:
            shown_as[path] = display_path(path, cwd) if path else "(output)"
        files.setdefault(shown_as[path], []).append((sum(1.0 / df[i] for i in sorted(ids)) + 0.2 * len(ids), c))
    out: list[Fact] = []
    for key, hits in files.items():
        best: list[tuple[float, _Line]] = []
        texts: set[str] = set()
        for score, hit in sorted(hits, key=lambda x: (-x[0], x[1][2], x[1][0])):
            line = _line(hit)
            if line is not None and line.text not in texts:
                texts.add(line.text)
                best.append((score, line))
                if len(best) == LINES_PER_FILE:
                    break
        if not best:
            continue
        total = sum(s for s, _ in best)
        rounds = sorted({c.rnd for _, c in best})
        head = f"`{key}` {cite(rounds)}" if key != "(output)" else f"Output {cite(rounds)}"
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
