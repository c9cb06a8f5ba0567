"""Paths recorded in a transcript, made safe to print inside Markdown.

Why: a transcript is input we do not control. A path holding a newline ends the list item or code
span it is printed in and starts a heading of its choosing; a bidi control (U+202E RIGHT-TO-LEFT
OVERRIDE and friends) makes `evil‮txt.py` read as something else. Such characters are shown as
visible escapes (`\\n`, `\\u202e`), which a reader can see and an assistant cannot mistake for
structure. Ordinary paths, including non-ASCII ones, pass unchanged.
"""

from __future__ import annotations

import re

from compaction.transcripts._fences import outside_fences

# C0 and C1 controls, DEL, the bidi embeddings/overrides/isolates and marks, zero-width characters,
# line/paragraph separators, the BOM
_INVISIBLE = "\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff"
_UNSAFE = re.compile(f"[{_INVISIBLE}`]")  # and the backtick, which would close the code span around a path
_UNSEEN = re.compile(f"[{_INVISIBLE}]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(pattern: re.Pattern[str], text: str) -> str:
    if not pattern.search(text):
        return text
    return pattern.sub(lambda m: _NAMED.get(m.group(), f"\\u{ord(m.group()):04x}"), text)


def escape_path(text: str) -> str:
    """`text` with every control, bidi or zero-width character (and backtick) as a visible escape."""
    return _escape(_UNSAFE, text)


def escape_invisible(text: str) -> str:
    """`text` with every control, bidi or zero-width character as a visible escape, its backticks (code spans of
    prose shown as a line: the agent's replies) and backslashes kept as they are."""
    return _escape(_UNSEEN, text)


_HEADING_RE = re.compile(r"^( {0,3})(#{1,6})(?=[ \t]|$)")
_SETEXT_RE = re.compile(r"^ {0,3}(?:=+|-+)[ \t]*$")  # under a line of text: that line is a heading
DEEPEST = 6  # Markdown has six heading levels
_MAYBE_HEADING_RE = re.compile(r"^ {0,3}(?:#{1,6}(?:[ \t]|$)|(?:=+|-+)[ \t]*$)", re.MULTILINE)


def demoted(text: str, below: int) -> str:
    """`text` (a message shown verbatim) with its headings pushed below level `below`, code blocks
    untouched: an assistant's `## Run Command` inside round r75 would otherwise read as one of the
    document's own sections, a successor taking the message's part for the document's structure. A
    setext underline (`Results` over `===`) is parted from its text by a blank line: no heading then."""
    if not _MAYBE_HEADING_RE.search(text):  # most messages: one scan, no fence reading
        return text
    lines = text.split("\n")
    outside = {i for i, _ in outside_fences(lines)}
    out: list[str] = []
    changed = False
    for i, line in enumerate(lines):
        if i in outside:
            if h := _HEADING_RE.match(line):
                line, changed = h.group(1) + "#" * min(DEEPEST, len(h.group(2)) + below) + line[h.end():], True
            elif _SETEXT_RE.match(line) and (not out or out[-1].strip() and i - 1 in outside
                                             and not _SETEXT_RE.match(out[-1])):
                out.append("")  # first, it would underline the speaker's label the text is shown after
                changed = True
        out.append(line)
    return "\n".join(out) if changed else text  # unchanged: the same string (its token count is remembered)


_FENCE_LINE_RE = re.compile(r"^ {0,3}(`{3,})", re.MULTILINE)


def fence_for(text: str) -> str:
    """A backtick fence longer than any that opens a line of `text`: a tool's output or a command that
    holds a fenced block (a heredoc writing Markdown) would otherwise close the block around it, and
    what follows would be read as the document's own Markdown."""
    if "```" not in text:
        return "```"
    longest = max((len(m.group(1)) for m in _FENCE_LINE_RE.finditer(text)), default=0)
    return "`" * max(3, longest + 1)


def inline_code(text: str) -> str:
    """`text` as inline code, whatever backticks it holds: fenced by a run longer than its longest (a line
    of a file or a command quoted from an untrusted transcript must not close its span and read as Markdown)."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * (longest + 1)
    return f"{ticks} {text} {ticks}" if longest else f"`{text}`"
