"""File excerpts within a token budget, cut at whole functions or classes (never mid-line).

Why whole units: half a function misleads the assistant more than a marker saying which lines
were left out. Python is split with `ast` (top-level statements, then a too-large class into its
methods); brace languages by brace depth; everything else by indentation and blank lines.
"""

from __future__ import annotations

import ast
import re

from pydantic import BaseModel, Field

from compaction import tokens

READ_LIMIT = 400_000  # bytes read for an excerpt; the rest is announced as omitted

LANG_BY_EXT = {
    ".py": "python", ".pyi": "python", ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript",
    ".jsx": "jsx", ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
    ".go": "go", ".rs": "rust", ".java": "java", ".kt": "kotlin", ".kts": "kotlin", ".scala": "scala",
    ".rb": "ruby", ".php": "php", ".cs": "csharp", ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp",
    ".hpp": "cpp", ".swift": "swift", ".sql": "sql", ".prisma": "prisma", ".md": "markdown", ".rst": "rst",
    ".toml": "toml", ".ini": "ini", ".cfg": "ini", ".json": "json", ".yaml": "yaml", ".yml": "yaml",
    ".vue": "vue", ".svelte": "svelte", ".dart": "dart", ".lua": "lua", ".ex": "elixir", ".exs": "elixir",
    ".groovy": "groovy", ".gradle": "groovy", ".xml": "xml", ".sh": "bash",
}
BRACE_LANGS = {"javascript", "jsx", "typescript", "tsx", "go", "rust", "java", "kotlin", "scala", "php",
               "csharp", "c", "cpp", "swift", "dart", "groovy", "prisma", "vue", "svelte", "json"}
_COMMENT = {"python": "#", "ruby": "#", "toml": "#", "ini": ";", "yaml": "#", "bash": "#", "sql": "--",
            "elixir": "#", "lua": "--", "prisma": "//"}


class Excerpt(BaseModel):
    path: str
    language: str = ""
    text: str
    tokens: int
    file_tokens: int  # tokens of the part of the file read (READ_LIMIT)
    file_tokens_estimated: bool = False  # large files: counted up to the cut, the rest estimated from size
    lines: int  # lines in the file (as read)
    truncated: bool = False
    omitted: list[str] = Field(default_factory=list)  # "lines 40-120 (def foo)"


def language_of(path: str) -> str:
    name = path.rsplit("/", 1)[-1].lower()
    dot = name.rfind(".")
    if dot <= 0:
        return "ruby" if name in ("gemfile", "rakefile") else ("javascript" if name == "www" else "")
    return LANG_BY_EXT.get(name[dot:], "")


Chunk = tuple[int, int, str]  # [lo, hi) line indices and a label
AST_LIMIT = 24_000  # chars: above this ast.parse costs 20-120 ms here; the column scanner is exact enough


class _Python:
    """Python units: ast for files up to AST_LIMIT, else a scan of def/class/decorator lines at the
    unit's indentation that skips triple-quoted strings (the same boundaries for formatted code)."""

    def __init__(self, lines: list[str], text: str) -> None:
        self.lines = lines
        self.tree: ast.Module | None = None
        if len(text) <= AST_LIMIT:
            try:
                self.tree = ast.parse(text)
            except (SyntaxError, ValueError, RecursionError):
                self.tree = None
        self.in_string = _string_lines(lines) if self.tree is None else None

    def top(self) -> list[Chunk]:
        if self.tree is not None:
            return _ast_chunks(self.tree.body, self.lines, 0, len(self.lines), "")
        return self._scan(0, len(self.lines), 0, "")

    def split_class(self, chunk: Chunk) -> list[Chunk] | None:
        lo, hi, label = chunk
        if not label.startswith("class "):
            return None
        name = label[6:].rsplit(".", 1)[-1]
        if self.tree is not None:
            for node in self.tree.body:
                if isinstance(node, ast.ClassDef) and _node_start(node, self.lines, 0) <= lo < node.end_lineno:
                    sub = _ast_chunks(node.body, self.lines, lo, hi, node.name + ".")
                    return sub if len(sub) > 1 else None
            return None
        body_indent = None
        for i in range(lo + 1, hi):
            ln = self.lines[i]
            if ln.strip() and not ln.lstrip().startswith("#") and not ln.lstrip().startswith("@"):
                body_indent = len(ln) - len(ln.lstrip())
                break
        if not body_indent:
            return None
        sub = self._scan(lo, hi, body_indent, name + ".", head=f"class {name}")
        return sub if len(sub) > 1 else None

    def _scan(self, lo: int, hi: int, indent: int, owner: str, head: str = "header") -> list[Chunk]:
        lines, in_string = self.lines, self.in_string or []
        bounds: list[tuple[int, str]] = []
        pending_decorator: int | None = None
        for i in range(lo + (1 if owner else 0), hi):
            if in_string[i]:
                continue
            ln = lines[i]
            stripped = ln.lstrip()
            if not stripped or len(ln) - len(stripped) != indent:
                continue
            if stripped.startswith("@"):
                if pending_decorator is None:
                    pending_decorator = i
                continue
            m = _PY_DEF.match(stripped)
            if m:
                start = pending_decorator if pending_decorator is not None else i
                while start - 1 > lo and lines[start - 1].lstrip().startswith("#"):
                    start -= 1
                kind = "class" if m.group(1) == "class" else "def"
                bounds.append((start, f"{kind} {owner}{m.group(2)}"))
            pending_decorator = None
        return _chunks_between(lo, hi, head, bounds)


_PY_DEF = re.compile(r"(class|def|async\s+def)\s+(\w+)")
_TRIPLE = re.compile(r'"""|\'\'\'')


def _string_lines(lines: list[str]) -> list[bool]:
    """True for lines that start inside a triple-quoted string (so `def` there is not a boundary)."""
    out: list[bool] = []
    quote: str | None = None
    for ln in lines:
        out.append(quote is not None)
        if '"""' not in ln and "\'\'\'" not in ln:
            continue
        for m in _TRIPLE.finditer(ln):
            q = m.group(0)
            if quote is None:
                quote = q
            elif q == quote:
                quote = None
    return out


def _node_start(node: ast.stmt, lines: list[str], floor: int) -> int:
    start = node.lineno - 1
    for dec in getattr(node, "decorator_list", []):
        start = min(start, dec.lineno - 1)
    # comments directly above belong to the definition
    while start - 1 >= floor and lines[start - 1].lstrip().startswith("#"):
        start -= 1
    return start


def _ast_chunks(body: list[ast.stmt], lines: list[str], lo: int, hi: int, owner: str) -> list[Chunk]:
    bounds: list[tuple[int, str]] = []
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            kind = "class" if isinstance(node, ast.ClassDef) else "def"
            bounds.append((max(lo, _node_start(node, lines, lo)), f"{kind} {owner}{node.name}"))
    return _chunks_between(lo, hi, "header" if not owner else f"class {owner.rstrip('.')}", bounds)


def _chunks_between(lo: int, hi: int, head: str, bounds: list[tuple[int, str]]) -> list[Chunk]:
    """Lines lo..hi cut at each (start line, label) boundary; what precedes the first is `head`."""
    chunks: list[Chunk] = []
    prev, label = lo, head
    for start, name in bounds:
        if start > prev:
            chunks.append((prev, start, label))
        prev, label = start, name
    if hi > prev:
        chunks.append((prev, hi, label))
    return chunks


_STRIP = re.compile(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|`[^`]*`|//.*|/\*.*?\*/|#.*')


def _brace_chunks(lines: list[str], lo: int, hi: int) -> list[Chunk]:
    chunks: list[Chunk] = []
    depth = 0
    start = lo
    prev_blank_or_closed = True
    for i in range(lo, hi):
        line = lines[i]
        stripped = line.strip()
        if depth == 0 and stripped and prev_blank_or_closed and i > start:
            chunks.append((start, i, _label(lines[start:i])))
            start = i
        code = _STRIP.sub("", line)
        before = depth
        depth = max(0, depth + code.count("{") - code.count("}") + code.count("(") - code.count(")"))
        if not stripped:
            prev_blank_or_closed = depth == 0
        else:
            prev_blank_or_closed = depth == 0 and before > 0
    if hi > start:
        chunks.append((start, hi, _label(lines[start:hi])))
    return chunks


def _indent_chunks(lines: list[str], lo: int, hi: int) -> list[Chunk]:
    if lo >= hi:
        return []
    indents = [len(ln) - len(ln.lstrip()) for ln in lines[lo:hi] if ln.strip()]
    base = min(indents) if indents else 0
    chunks: list[Chunk] = []
    start = lo
    for i in range(lo + 1, hi):
        line = lines[i]
        s = line.strip()
        if not s or len(line) - len(line.lstrip()) != base or s.startswith(("end", ")", "]", "}")):
            continue
        if not lines[i - 1].strip():
            chunks.append((start, i, _label(lines[start:i])))
            start = i
    chunks.append((start, hi, _label(lines[start:hi])))
    return chunks


_DEF_WORDS = re.compile(
    r"\b(?:export\s+)?(?:default\s+)?(?:async\s+)?(?:function\*?|class|interface|type|enum|struct|impl|trait|fn|func|"
    r"def|module|model|const|let|var)\s+([\w$.]+)"
)


def _label(chunk_lines: list[str]) -> str:
    for ln in chunk_lines[:12]:
        m = _DEF_WORDS.search(ln)
        if m:
            return m.group(0).strip()
    first = next((ln.strip() for ln in chunk_lines if ln.strip()), "")
    return first[:60]


def _split(lines: list[str], lang: str, chunk: Chunk, py: _Python | None) -> list[Chunk] | None:
    """Sub-chunks of a chunk too large for the budget, or None when it cannot be split."""
    lo, hi, _ = chunk
    if py is not None:
        sub = py.split_class(chunk)
        if sub:
            return sub
    # one level in: the lines strictly inside the outer block
    inner_lo = lo + 1
    inner_hi = hi - 1 if hi - lo > 2 and lines[hi - 1].strip() in ("}", "};", "end", ")", "});") else hi
    if inner_hi - inner_lo < 2:
        return None
    inner = _indent_chunks(lines, inner_lo, inner_hi)
    if len(inner) <= 1:
        return None
    return [(lo, inner[0][1], inner[0][2]), *inner[1:-1], (inner[-1][0], hi, inner[-1][2])]


def _names(gap: list[Chunk]) -> str:
    labels = [c[2][:40] for c in gap if c[2]]
    text = ", ".join(labels[:4])
    return text + (f" +{len(labels) - 4} more" if len(labels) > 4 else "")


def top_chunks(lines: list[str], text: str, lang: str, py: _Python | None = None) -> list[Chunk]:
    if lang == "python":
        py = py or _Python(lines, text)
        chunks = py.top()
        if chunks:
            return chunks
    if lang in BRACE_LANGS:
        return _brace_chunks(lines, 0, len(lines))
    return _indent_chunks(lines, 0, len(lines))


class _Counter:
    """Token counts per line, computed only for the lines the fitting looks at (a 170 KB module
    costs ~50 ms to encode whole; the excerpt needs its first ~5,000 tokens)."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.counts: list[int | None] = [None] * len(lines)
        self.enc = tokens.encoding()

    def span(self, lo: int, hi: int) -> int:
        total = 0
        counts, enc, lines = self.counts, self.enc, self.lines
        for i in range(lo, hi):
            c = counts[i]
            if c is None:
                c = counts[i] = len(enc.encode_ordinary(lines[i])) if lines[i] else 0
            total += c
        return total

    def file_tokens(self) -> tuple[int, bool]:
        """(tokens of the whole text, estimated?) — exact when every line was counted."""
        known = [(c, len(ln)) for c, ln in zip(self.counts, self.lines, strict=True) if c is not None]
        if len(known) == len(self.lines):
            return sum(c for c, _ in known), False
        tok = sum(c for c, _ in known)
        chars = sum(n for _, n in known)
        rest = sum(len(ln) for ln, c in zip(self.lines, self.counts, strict=True) if c is None)
        ratio = tok / chars if chars else 0.28
        return tok + round(rest * ratio), True


def make_excerpt(path: str, text: str, max_tokens: int, *, truncated_input: bool = False) -> Excerpt:
    """The largest whole-unit excerpt of `text` within `max_tokens` (markers name what was left out)."""
    lang = language_of(path)
    lines = text.splitlines(keepends=True)
    if truncated_input and lines and not lines[-1].endswith("\n"):
        lines.pop()  # never a partial line
        text = "".join(lines)
    if max_tokens <= 0:
        return Excerpt(path=path, language=lang, text="", tokens=0, file_tokens=0, file_tokens_estimated=True,
                       lines=len(lines), truncated=True, omitted=[f"lines 1-{len(lines)}"])
    # tokens never outnumber characters: a text this short fits without counting twice
    if len(text) <= max_tokens * 6 and not truncated_input:
        total = tokens.count(text)
        if total <= max_tokens:
            return Excerpt(path=path, language=lang, text=text, tokens=total, file_tokens=total, lines=len(lines))
    comment = _COMMENT.get(lang, "//" if lang in BRACE_LANGS else "#")
    py = _Python(lines, text) if lang == "python" else None
    chunks = top_chunks(lines, text, lang, py)
    counter = _Counter(lines)
    limit = max_tokens
    result: Excerpt | None = None
    for _ in range(4):  # markers are estimated; shrink and refit in the rare case they overshoot
        result = _fit(path, lang, comment, lines, chunks, counter, py, limit, truncated_input)
        if result.tokens <= max_tokens:
            break
        limit -= 2 * (result.tokens - max_tokens) + 16
    assert result is not None
    return result


def _fit(path: str, lang: str, comment: str, lines: list[str], chunks: list[Chunk], counter: _Counter,
         py: _Python | None, max_tokens: int, truncated_input: bool) -> Excerpt:
    marker_cost = 48
    stop_below = max(marker_cost * 2, max_tokens // 50)  # nothing useful fits any more
    budget = max_tokens
    kept: list[Chunk] = []
    omitted: list[Chunk] = []

    def consider(chunk: Chunk, depth: int) -> None:
        nonlocal budget
        lo, hi, _ = chunk
        if budget < stop_below:
            omitted.append(chunk)
            return
        # a chunk with more characters than 8x the budget cannot fit: do not count it whole
        chars = sum(len(ln) for ln in lines[lo:hi]) if hi - lo < 4000 else 10**9
        n = counter.span(lo, hi) if chars <= budget * 8 else 10**9
        if n + (marker_cost if omitted else 0) <= budget:
            kept.append(chunk)
            budget -= n
            return
        if depth < 2 and hi - lo > 3:
            sub = _split(lines, lang, chunk, py)
            if sub:
                for s in sub:
                    consider(s, depth + 1)
                return
        omitted.append(chunk)
        budget -= marker_cost

    for chunk in chunks:
        consider(chunk, 0)
    if omitted and budget > max(marker_cost * 2, max_tokens // 4):
        # room left but the next unit is too large to split: its head, in whole lines
        omitted.sort()
        lo, hi, label = omitted[0]
        used, take = 0, 0
        for i in range(lo, hi):
            n = counter.span(i, i + 1)
            if used + n > budget - marker_cost:
                break
            used += n
            take += 1
        if take:
            kept.append((lo, lo + take, label))
            omitted[0] = (lo + take, hi, f"rest of {label}")
    kept.sort()
    out: list[str] = []
    notes: list[str] = []
    cursor = 0
    for lo, hi, _ in kept:
        if lo > cursor:
            gap = [c for c in omitted if c[0] >= cursor and c[1] <= lo]
            names = _names(gap)
            out.append(f"{comment} … lines {cursor + 1}-{lo} omitted ({names})\n")
            notes.append(f"lines {cursor + 1}-{lo}" + (f" ({names})" if names else ""))
        piece = "".join(lines[lo:hi])
        out.append(piece if piece.endswith("\n") else piece + "\n")
        cursor = hi
    if cursor < len(lines) or truncated_input:
        gap = [c for c in omitted if c[0] >= cursor]
        names = _names(gap)
        more = " and the rest of the file" if truncated_input else ""
        out.append(f"{comment} … lines {cursor + 1}-{len(lines)}{more} omitted ({names})\n")
        notes.append(f"lines {cursor + 1}-{len(lines)}{more}" + (f" ({names})" if names else ""))
    body = "".join(out)
    total, estimated = counter.file_tokens()
    return Excerpt(path=path, language=lang, text=body, tokens=tokens.count(body), file_tokens=total,
                   file_tokens_estimated=estimated or truncated_input, lines=len(lines),
                   truncated=bool(omitted) or truncated_input or cursor < len(lines), omitted=notes)
