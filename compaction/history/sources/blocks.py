"""The blocks of code the session pointed at by line number, as one dense line each.

"Filling in of default options would occur later, on line 147", `view_range: [100, 110]`, `open
numpy_handler.py 293`, `edit 287:295`: a line the user or the agent named by its number is code the
session relied on. A successor asked how that code behaves needs its conditions, loops, returns and
calls, not the agent's "I'll look at the file". The block a referenced line opens (its deeper-indented
lines), or the paragraph it sits in, is read from the first view of the file that shows it (the code
as the agent saw it), its closers and string continuations dropped, its lines joined with "; ".
Before an edit's range, the paragraph just above it is the context the edit relies on (the change
records already show the edited lines).

Bounded work: references come from the assistant's and the user's prose (a str.find for "line"
first) and from the calls' line arguments; a file's output is split into numbered lines only when
the file has a reference, and at most `MAX_REFS` per file are read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from compaction.events import shell_reads
from compaction.memo import per_text
from compaction.model import Role, ToolCall, ToolKind, Transcript

if TYPE_CHECKING:
    from compaction.history.sources.registry import FactContext

MAX_REFS = 4  # referenced ranges per file
MAX_LINES = 7  # of a block a sentence pointed at, shown
WINDOW_LINES = 5  # of a window the agent chose to view
SPAN_LINES = 30  # of a block, read
LINE_CHARS = 90  # of a block's line
BLOCK_CHARS = 360  # of a block's whole line
_EDIT_CHARS = 2000  # of an edit's argument, read for the code it replaced
_SCAN_CHARS = 60_000  # of an output split into numbered lines
_KIND_CHARS = 20_000  # of a whole file's view read for what it holds
_DOC_OPENINGS = ('"""', "'''", "//", "#", "/*", "*", "--", "<!--")
USES = 2  # later lines using a value a block computes, shown
USE_LINES = 120  # of the same view after a block, searched for those uses
_DEFINES_RE = re.compile(r"^\s*(?:(?:let|var|val|const|local|my)\s+)?([A-Za-z_]\w*)\s*(?::[^=]+)?:?=(?!=)")
_NEAR = 300  # characters before a "line N" where the file it belongs to is named

# "ine" first: a literal the regex engine searches for fast; the "l"/"L" before it is checked by hand
_LINE_REF_RE = re.compile(r"ines?[ \t]+(\d{1,6})(?:[ \t]*(?:-|–|to|through)[ \t]*(\d{1,6}))?")
_FILE_MENTION_RE = re.compile(r"[\w.-]+\.[a-z][a-z0-9]{0,5}\b")
GUTTER_RE = re.compile(r"^\s*(\d{1,6})(?:\t|:\s?|\s*\|\s?|\s*→|\s{2,})(.*)$")
_CLOSER_RE = re.compile(r"^(?:end(?:\s+\w+)?|fi|done|esac|[)\]}]++[;,)]*+|:)$")
_STRING_RE = re.compile(r"^[rbfuRBFU]?[\"'].*[\"'][\s,)+.]*(?:\.format\(.*)?$")
_FLOW = frozenset("if elif else for while match case switch return raise throw yield when unless loop try "
                  "except catch break continue guard defer await".split())
_TRAILING_COMMENT_RE = re.compile(r"(?<!\s)\s++(?://|#)\s.*$")
_ASSIGN_RE = re.compile(r"^(?:(?:let|var|val|const|local|my)\s+)?[\w.\[\]'\"]++(?:\s*+:[^=]++|\s*+[-+*/|&]?)=(?!=)\s*+\S")
# A shell command that shows one file (`cat -n x.py`, `sed -n '1,9p' x.py`): its output reads like a view.
_ARG_KEYS = frozenset({"line", "start", "end", "line_number", "start_line", "end_line", "lineno"})


@dataclass(slots=True)
class _Ref:
    lo: int
    hi: int
    before: bool = False  # an edit's range: the paragraph above it is the context
    prose: bool = False  # named in a sentence (weighs more than a window the agent chose)


@dataclass(slots=True)
class Block:
    path: str
    lo: int
    hi: int
    text: str
    round: int
    prose: bool = False  # pointed at by a sentence or edited next to: relied on, not only viewed
    uses: str = ""  # the later lines of the same view that use a value the block computes
    lines: int = 1  # the code lines it keeps


@dataclass(slots=True)
class Refs:
    """Referenced line ranges by the file's base name (a sentence names a file by its name only)."""

    by_base: dict[str, list[_Ref]] = field(default_factory=dict)
    edited: str = ""  # what the edits replaced (their arguments' first characters): code shown by the change records

    def add(self, base: str, ref: _Ref) -> None:
        refs = self.by_base.setdefault(base, [])
        if len(refs) < MAX_REFS and not any(r.lo == ref.lo and r.before == ref.before for r in refs):
            refs.append(ref)


def _base(path: str) -> str:
    return path.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]


def prose_refs(text: str, refs: Refs) -> None:
    """"line 147", "lines 146-169" in a sentence, belonging to the file named last before it."""
    if "line" not in text and "Line" not in text:
        return
    for m in _LINE_REF_RE.finditer(text):
        at = m.start() - 1
        if at < 0 or text[at] not in "lL" or (at > 0 and (text[at - 1].isalnum() or text[at - 1] == "_")):
            continue
        files = _FILE_MENTION_RE.findall(text[max(0, at - _NEAR):at])
        files = [f for f in files if not f[0].isdigit() and not f.endswith(".")]
        if not files:
            continue
        lo = int(m.group(1))
        hi = int(m.group(2)) if m.group(2) and int(m.group(2)) >= lo else lo
        refs.add(_base(files[-1]), _Ref(lo, min(hi, lo + 40), prose=True))


def _int(v: object) -> int | None:
    if isinstance(v, int) and not isinstance(v, bool):
        return v
    if isinstance(v, str) and v.strip().isdigit():
        return int(v.strip())
    return None


def call_refs(call: ToolCall, refs: Refs) -> None:
    """A call's line arguments: a view's range, an `open`'s line, an edit's start and end."""
    if not call.path:
        return
    args = call.arguments
    rng = args.get("view_range")
    if isinstance(rng, list) and len(rng) == 2 and (lo := _int(rng[0])) and lo > 1:
        hi = _int(rng[1])
        refs.add(_base(call.path), _Ref(lo, hi if hi and hi >= lo else lo))
        return
    nums = [n for k in _ARG_KEYS.intersection(args) if (n := _int(args[k])) is not None and n > 0]
    if nums:
        edit = call.kind in (ToolKind.EDIT, ToolKind.WRITE)
        refs.add(_base(call.path), _Ref(min(nums), max(nums), before=edit))


def collect_refs(transcript: Transcript) -> Refs:
    refs = Refs()
    for msg in transcript.messages:
        if msg.harness or msg.role not in (Role.USER, Role.ASSISTANT):
            continue
        if msg.text and ("line" in msg.text or "Line" in msg.text):
            prose_refs(msg.text[:8000], refs)
        olds: list[str] = []
        for call in msg.tool_calls:
            call_refs(call, refs)
            if call.kind is ToolKind.EDIT:
                olds.extend(v[:_EDIT_CHARS] for v in call.arguments.values() if isinstance(v, str))
        if olds:
            refs.edited += "\n".join(olds) + "\n"
    return refs


def _edited(lines: dict[int, str], lo: int, hi: int, edited: str) -> bool:
    """The span's code is (nearly) all in what the agent's edits replaced or wrote: the change records
    and the failed edits already show it."""
    code = [c for n in range(lo, hi + 1) if n in lines and len((c := " ".join(lines[n].split())).split()) > 1
            and not _CLOSER_RE.match(c)]  # closers and bare keywords (`try`, `end`) match anything
    if not code or not edited:
        return False
    flat = " ".join(edited.split())
    return sum(c in flat for c in code) >= 0.8 * len(code)


def numbered(content: str, most: int | None = None, raw: bool = False) -> dict[int, str]:
    """An output's lines by their gutter number (a `cat -n`, a view, an `N:` listing); its first
    `most` lines only, when given; tabs expanded unless `raw` (a refused edit's cause may be a tab)."""
    out: dict[int, str] = {}
    text = content[:_SCAN_CHARS]
    for ln in (text.split("\n", most)[:most] if most else text.splitlines()):
        m = GUTTER_RE.match(ln)
        if m:
            out[int(m.group(1))] = m.group(2) if raw else m.group(2).expandtabs(4)
    return out


def _window(content: str, lo: int, hi: int, first: int) -> dict[int, str]:
    """The numbered lines lo..hi of an output: found by their first number's gutter, only they parsed
    (a file's whole view is thousands of lines; a block is a few dozen)."""
    start = max(lo, first, 1)
    text = content[:_SCAN_CHARS]
    m = re.search(rf"(?m)^[ \t]*{start}(?:\t|:|\s*\||\s*→|\s{{2,}})", text)
    if m is None:
        return {}
    return numbered(text[m.start():], hi - start + 1)


def _gutter_range(content: str) -> tuple[int | None, int | None]:
    """The first and last gutter numbers of an output, from a few of its first and last lines (None
    when it has no gutter there; the last None when its end has none: a long output, cut)."""
    first = next((int(m.group(1)) for ln in content[:600].splitlines() if (m := GUTTER_RE.match(ln))), None)
    if first is None:
        return None, None
    tail = content[:_SCAN_CHARS][-600:].splitlines()
    last = next((int(m.group(1)) for ln in reversed(tail) if (m := GUTTER_RE.match(ln))), None)
    return first, last


def _indent(s: str) -> int:
    return len(s) - len(s.lstrip())


def _opens(lines: dict[int, str], lo: int) -> bool:
    """The line opens a block: the next non-blank line is indented deeper."""
    n = lo + 1
    while n in lines and not lines[n].strip():
        n += 1
    return n in lines and _indent(lines[n]) > _indent(lines[lo]) and bool(lines[lo].strip())


def _header(lines: dict[int, str], lo: int) -> int:
    """The branch or loop a leaf line sits in (`if !silent && total > 0 {` above a `fmt.Println()`):
    the nearest line above indented less, when it is a flow line within `SPAN_LINES`; else `lo`."""
    own = _indent(lines[lo])
    n = lo - 1
    while n in lines and lo - n <= SPAN_LINES:
        s = lines[n]
        if s.strip() and _indent(s) < own:
            head = s.strip().lstrip("}) ").split(None, 1)
            return n if head and head[0].rstrip(":(") in _FLOW else lo
        n -= 1
    return lo


def _span(lines: dict[int, str], ref: _Ref) -> tuple[int, int] | None:
    """The lines a reference covers: the block its first line opens (deeper-indented lines after it),
    through its range; an edit's reference: the paragraph just above its range."""
    if ref.before:
        n = ref.lo - 1
        while n in lines and not lines[n].strip():
            n -= 1
        hi = n
        while n - 1 in lines and lines[n - 1].strip() and hi - n < SPAN_LINES:
            n -= 1
        return (n, hi) if hi in lines and hi >= n else None
    lo = ref.lo
    if lo not in lines:
        return None
    if ref.hi == lo and not _opens(lines, lo):
        lo = _header(lines, lo)  # a leaf line runs under the branch or loop around it: that block
    base = _indent(lines[lo]) if lines[lo].strip() else 0
    n = lo
    while n + 1 in lines and n - lo < SPAN_LINES:
        nxt = lines[n + 1]
        if n + 1 <= ref.hi or (nxt.strip() and (_indent(nxt) > base or (_CLOSER_RE.match(nxt.strip())
                                                                         and _indent(nxt) == base))):
            n += 1
            continue
        break
    return lo, n


_CONDITIONAL = frozenset("if elif while for switch case when unless guard match".split())
_MESSAGE_RE = re.compile(r"[\"'](?>[^\"']*?[A-Za-z]{2}[ ,.!?:])(?>[^\"']*?[A-Za-z]{2})[^\"']*+[\"']")  # a literal of words
_KWARG_RE = re.compile(r"^[^(]*\(.*\b[a-z_]\w*\s?=(?!=)")  # a call given a keyword argument: `pixel_dtype(ds, as_float=…)`


def _weight(s: str) -> int:
    """What a line of code says about behaviour: a condition (`if`, `while`, `case` with its test)
    most; an exit with its value, a message the code prints or raises (the words a user sees, one per
    arm of a branch) and a call given keyword arguments next; an assignment or a call after them; a
    comment saying what a block does; a bare keyword (`else`), a value or a match arm's binding
    nothing."""
    code = _TRAILING_COMMENT_RE.sub("", s).strip()
    if s.startswith(("//", "#", "/*", "*", "--")):
        return 0 if "TODO" in s or "FIXME" in s or len(s) < 12 else 1
    parts = code.lstrip("}) ").split(None, 1)
    if len(parts) < 2:
        return 0  # `try`, `else`, `return`, `""`
    head = parts[0].rstrip(":(")
    if head == "else" and parts[1].startswith("if"):
        return 4
    if head in _CONDITIONAL:
        return 4
    if head in _FLOW or _MESSAGE_RE.search(code) or _KWARG_RE.search(code):
        return 3
    return 2 if "(" in code or _ASSIGN_RE.match(code) else 0


def digest(lines: dict[int, str], lo: int, hi: int, most: int = MAX_LINES) -> str:
    """The span's lines that carry behaviour (`_weight`), stripped and joined in their order: closers,
    blanks, string continuations and bare keywords go; when more than `most` are left, the weightiest
    stay, and an `else` stays between its two kept arms (the alternatives read as such). Each line is
    cut to `LINE_CHARS`."""
    return _joined(_kept_lines(lines, lo, hi, most))


def _kept_lines(lines: dict[int, str], lo: int, hi: int, most: int) -> list[tuple[int, int, str]]:
    """(weight, line number, text) of the lines `digest` keeps, in their order."""
    kept: list[tuple[int, int, str]] = []  # weight, line number, text
    elses: list[tuple[int, int, str]] = []  # bare `else` lines: kept when both arms around them are
    prev_open = False  # the line before ends inside a call's arguments: a string there continues it
    for n in range(lo, hi + 1):
        s = " ".join(lines.get(n, "").split())
        if not s or _CLOSER_RE.match(s):
            continue
        cont = prev_open and _STRING_RE.match(s) is not None
        prev_open = s.endswith(("(", ",", "+")) or cont
        if s.lstrip("} ").rstrip(" {:") == "else":
            elses.append((0, n, "else"))
            continue
        w = _weight(s)
        if cont or (w == 0 and not s.startswith(("//", "#"))):
            continue
        if s.endswith(" {") and w == 4:
            s = s[:-2]  # a condition's brace: the "; " joins say as much
        kept.append((w, n, s if len(s) <= LINE_CHARS else s[:LINE_CHARS - 1] + "…"))
    if len(kept) > most:
        best = set(sorted(kept, key=lambda x: (-x[0], x[1]))[:most])
        kept = [k for k in kept if k in best]
    for e in elses:
        if any(k[1] < e[1] for k in kept) and any(k[1] > e[1] for k in kept):
            kept.append(e)
    kept.sort(key=lambda k: k[1])
    return kept


def _joined(kept: list[tuple[int, int, str]]) -> str:
    """The kept lines joined with "; "; a statement split over two lines (`x = a.` / `b(c)`) is one: no "; "
    inside it, which reads as its end (ponyc's `return CommandParser._sub(cs, this).; _parse_command(…)`)."""
    text = "".join((" " if i and kept[i - 1][1] == k[1] - 1 and _continues(kept[i - 1][2]) else
                    "; " if i else "") + k[2] for i, k in enumerate(kept)).replace("`", "'")
    return text if len(text) <= BLOCK_CHARS else text[:BLOCK_CHARS - 1] + "…"


_CONTINUED = (".", "(", "[", ",", "+", "-", "*", "/", "=", "&&", "||", "\\", "?")


def _continues(line: str) -> bool:
    """Whether the statement goes on on the next line: it ends in an operator, a dot or an opening bracket;
    not a comment (its sentences end in a dot, whole or after the code: `x = f(y)  # filtered.`), nor a stub's
    `...`, nor `n--`, nor a cut line's `…`."""
    code = _TRAILING_COMMENT_RE.sub("", line)
    return code == line and code.endswith(_CONTINUED) and not code.endswith(("*/", "...", "++", "--")) \
        and not code.startswith(_COMMENT_LEADS)


_COMMENT_LEADS = ("//", "#", "/*", "*", "--", ";")


def blocks(refs: Refs, path: str, content: str, rnd: int, done: set[tuple[str, int, bool]]) -> list[Block]:
    """The referenced blocks of `path` this output shows and no earlier output did (`done`)."""
    wanted = [r for r in refs.by_base.get(_base(path), ()) if (path, r.lo, r.before) not in done]
    if not wanted:
        return []
    first, last = _gutter_range(content)  # read off its first and last lines: most views miss the lines wanted
    if first is None or not any(first <= r.lo - (1 if r.before else 0) <= (last or 10**9) for r in wanted):
        return []
    out: list[Block] = []
    for ref in sorted(wanted, key=lambda r: not r.prose):  # a sentence's reference first: a window over it adds little
        lines = _window(content, *((ref.lo - SPAN_LINES - 1, ref.lo - 1) if ref.before else
                                   (ref.lo - (SPAN_LINES if ref.hi == ref.lo else 0),
                                    max(ref.hi, ref.lo + SPAN_LINES + 1))), first)
        span = _span(lines, ref)
        if span is None:
            continue
        done.add((path, ref.lo, ref.before))
        if any(b.lo <= span[0] <= b.hi or span[0] <= b.lo <= span[1] for b in out) \
                or _edited(lines, *span, refs.edited):
            continue
        kept = _kept_lines(lines, *span, most=MAX_LINES if ref.prose else WINDOW_LINES)
        text = _joined(kept)
        if len(text) >= 12:
            uses = _uses(content, lines, span, first) if ref.prose or ref.before else ""
            out.append(Block(path, span[0], span[1], text, rnd, ref.prose or ref.before, uses, len(kept)))
    return out


def _uses(content: str, lines: dict[int, str], span: tuple[int, int], first: int) -> str:
    """Where the value a block computes goes next (`px_keyword = […]` then, 70 lines down,
    `pixel_dtype(ds, as_float=('Float' in px_keyword[0]))`): a successor asked how the code decides
    needs the use as much as the definition. The weightiest `USES` later lines of the same view
    (within `USE_LINES`) naming a variable the block assigns, in their order."""
    names = {m.group(1) for n in range(span[0], span[1] + 1)
             if (m := _DEFINES_RE.match(lines.get(n, ""))) and len(m.group(1)) >= 3}
    if not names:
        return ""
    name_re = re.compile(r"\b(?:" + "|".join(map(re.escape, sorted(names))) + r")\b")
    later = _window(content, span[1] + 1, span[1] + USE_LINES, first)
    hits = []
    for n in sorted(later):
        code = " ".join(later[n].split())
        defines = _DEFINES_RE.match(code)
        if name_re.search(code[defines.end() - 1:] if defines else code):  # read, not (re)assigned
            w = _weight(code)
            if w >= 2:
                hits.append((w, n, code if len(code) <= LINE_CHARS else code[:LINE_CHARS - 1] + "…"))
    best = sorted(sorted(hits, key=lambda h: (-h[0], h[1]))[:USES], key=lambda h: h[1])
    return ", ".join(f"L{n} `{c.replace('`', chr(39))}`" for _w, n, c in best)


def file_kind(content: str) -> tuple[str, int] | None:
    """What a whole file's view shows when it holds no code: "empty", "a placeholder" (a line or two)
    or "documentation only" (comments and docstrings); with its line count. None for code, for a
    partial view (it does not start at line 1) and for an output too long to read whole."""
    if len(content) > _KIND_CHARS:
        return None
    head = next((m for ln in content[:300].splitlines() if (m := GUTTER_RE.match(ln))), None)
    opening = head.group(2).strip() if head else ""
    if head is None or head.group(1) != "1" or not (len(content) < 400 or not opening
                                                    or opening.startswith(_DOC_OPENINGS)):
        return None  # most views: not from line 1, or code from the first line on
    lines = numbered(content)
    if not lines or min(lines) != 1:
        return None
    code = docs = 0
    in_doc = False
    for n in sorted(lines):
        s = lines[n].strip()
        quotes = s.count('"""') + s.count("\'\'\'")
        if in_doc or quotes or s.startswith(("//", "#", "/*", "*", "--", "<!--")):
            docs += bool(s)
            in_doc ^= quotes % 2 == 1
        elif s:
            code += 1
    total = max((n for n in lines if lines[n].strip()), default=max(lines))
    if code + docs == 0:
        return "empty", total
    if code == 0:
        return f"documentation only{_doc_gist(lines)}", total
    if code <= 2 and docs == 0 and total <= 3:
        return "a placeholder", total
    return None


def _doc_gist(lines: dict[int, str]) -> str:
    """What a documentation-only file documents: its first heading or sentence, and whether it
    shows examples (the reader looking for code learns what is there instead)."""
    title = ""
    examples = False
    for n in sorted(lines):
        s = lines[n].strip().strip("\"'/*#-<!> ").strip()
        if not title and len(s) > 3:
            title = s
        low = lines[n].lower()
        examples = examples or "```" in low or "example" in low
        if title and examples:
            break
    if not title:
        return ""
    title = title if len(title) <= 50 else title[:49] + "…"
    return f": “{title}”{', with examples' if examples else ''}"


@per_text(maxsize=4096)  # blocks and evidence ask it of every read command
def shown_file(cmd: str) -> str | None:
    """The one file a read command shows (`cat -n x.py`, `sed -n '1,9p' x.py`), by the events' own
    rule (`events.shell_reads`); None for a search, or for a line reading several files (their
    outputs run together: no line of it is known to be one file's)."""
    read = shell_reads(cmd)
    return read[0] if len(read) == 1 else None


def referenced_blocks(ctx: FactContext) -> list[Block]:
    """Every referenced block the session's views show, once per compaction (`ctx.shared`): only
    the outputs of files with a reference are split into lines."""
    return ctx.shared(("blocks",), lambda: _referenced_blocks(ctx))


def _referenced_blocks(ctx: FactContext) -> list[Block]:
    refs = collect_refs(ctx.transcript)
    if not refs.by_base:
        return []
    out: list[Block] = []
    done: set[tuple[str, int, bool]] = set()
    for rnd in ctx.transcript.rounds:
        results: dict | None = None
        for msg in rnd.messages:
            for call in msg.tool_calls:
                if call.kind in (ToolKind.EDIT, ToolKind.WRITE, ToolKind.TODO):
                    continue
                path = call.path
                if call.kind is ToolKind.SHELL:
                    path = shown_file(call.command) if call.command else None
                if not path or _base(path) not in refs.by_base:
                    continue
                results = ctx.results_of(rnd) if results is None else results
                res = results.get(id(call))
                if res is not None and res.content and not res.is_error:
                    out.extend(blocks(refs, path, res.content, rnd.number, done))
    return out

