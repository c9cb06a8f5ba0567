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


def _python_chunks(lines: list[str], text: str) -> list[Chunk] | None:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return None
    return _ast_chunks(tree.body, lines, 0, len(lines), "")


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
    chunks: list[Chunk] = []
    prev, label = lo, "header" if not owner else f"class {owner.rstrip('.')}"
    for start, name in bounds:
        if start > prev:
            chunks.append((prev, start, label))
        elif chunks or start == prev:
            pass
        prev, label = start, name
    if hi > prev:
        chunks.append((prev, hi, label))
    return chunks


def _python_subchunks(lines: list[str], text: str, chunk: Chunk) -> list[Chunk] | None:
    """Split a too-large class chunk into its header and methods."""
    lo, hi, label = chunk
    if not label.startswith("class "):
        return None
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return None
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and _node_start(node, lines, 0) <= lo < node.end_lineno:
            sub = _ast_chunks(node.body, lines, lo, hi, node.name + ".")
            return sub if len(sub) > 1 else None
    return None


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


def _split(lines: list[str], text: str, lang: str, chunk: Chunk) -> list[Chunk] | None:
    """Sub-chunks of a chunk too large for the budget, or None when it cannot be split."""
    lo, hi, _ = chunk
    if lang == "python":
        sub = _python_subchunks(lines, text, chunk)
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


def top_chunks(lines: list[str], text: str, lang: str) -> list[Chunk]:
    if lang == "python":
        chunks = _python_chunks(lines, text)
        if chunks:
            return chunks
    if lang in BRACE_LANGS:
        return _brace_chunks(lines, 0, len(lines))
    return _indent_chunks(lines, 0, len(lines))


def make_excerpt(path: str, text: str, max_tokens: int, *, truncated_input: bool = False) -> Excerpt:
    """The largest whole-unit excerpt of `text` within `max_tokens` (markers name what was left out)."""
    lang = language_of(path)
    lines = text.splitlines(keepends=True)
    if truncated_input and lines and not lines[-1].endswith("\n"):
        lines.pop()  # never a partial line
        text = "".join(lines)
    total = tokens.count(text)
    if max_tokens <= 0:
        return Excerpt(path=path, language=lang, text="", tokens=0, file_tokens=total, lines=len(lines),
                       truncated=True, omitted=[f"lines 1-{len(lines)}"])
    if total <= max_tokens and not truncated_input:
        return Excerpt(path=path, language=lang, text=text, tokens=total, file_tokens=total, lines=len(lines))
    comment = _COMMENT.get(lang, "//" if lang in BRACE_LANGS else "#")
    chunks = top_chunks(lines, text, lang)
    counts = tokens.count_many(["".join(lines[lo:hi]) for lo, hi, _ in chunks])
    limit = max_tokens
    for _ in range(4):  # markers are estimated; shrink and refit in the rare case they overshoot
        result = _fit(path, lang, comment, lines, text, chunks, counts, limit, total, truncated_input)
        if result.tokens <= max_tokens:
            return result
        limit -= 2 * (result.tokens - max_tokens) + 16
    return result


def _fit(path: str, lang: str, comment: str, lines: list[str], text: str, chunks: list[Chunk], counts: list[int],
         max_tokens: int, total: int, truncated_input: bool) -> Excerpt:
    marker_cost = 48
    budget = max_tokens
    kept: list[Chunk] = []
    omitted: list[Chunk] = []

    def consider(chunk: Chunk, n: int, depth: int) -> None:
        nonlocal budget
        if n + (marker_cost if omitted else 0) <= budget:
            kept.append(chunk)
            budget -= n
            return
        if depth < 2 and n > marker_cost * 4:
            sub = _split(lines, text, lang, chunk)
            if sub:
                sub_counts = tokens.count_many(["".join(lines[lo:hi]) for lo, hi, _ in sub])
                for s, c in zip(sub, sub_counts, strict=True):
                    consider(s, c, depth + 1)
                return
        omitted.append(chunk)
        budget -= marker_cost

    for chunk, n in zip(chunks, counts, strict=True):
        consider(chunk, n, 0)
    if omitted and budget > max(marker_cost * 2, max_tokens // 4):
        # room left but the next unit is too large to split: its head, in whole lines
        omitted.sort()
        lo, hi, label = omitted[0]
        line_counts = tokens.count_many(lines[lo : min(hi, lo + budget)])
        used, take = 0, 0
        for n in line_counts:
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
    return Excerpt(path=path, language=lang, text=body, tokens=tokens.count(body), file_tokens=total,
                   lines=len(lines), truncated=True, omitted=notes)
