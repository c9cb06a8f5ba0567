"""An issue template's hidden text in a request: read by neither the task nor the user's constraints.

Why: an HTML comment is hidden when the issue is shown ("This comments are hidden when you submit the issue,
so you do not need to remove them!"), and a form's section the reporter left empty says "_No response_". Kept,
they took the room of the report itself (astropy's task at 10% was its template's comment) and read as the
user's words ("User: so you do not need to remove them! -->" among the constraints).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from compaction.transcripts._fences import outside_fences

# A comment whole: no other opening inside it (an unclosed `<!--` never reaches a later comment's end: linear
# work however many there are), no backtick (a comment the user quoted as code, `<!-- more -->`, is theirs),
# nor right after one.
_HTML_COMMENT_RE = re.compile(r"(?<!`)<!--(?:(?!<!--|-->)[^`])*-->")
_NO_RESPONSE_RE = re.compile(r"^#{1,6} [^\n]*\n\s*_No response_[ \t]*$\n?", re.M)


def without_template_noise(text: str) -> str:
    """`text` without an issue template's hidden comments and its empty form sections, outside fenced code
    (an HTML sample the user pasted keeps its comments)."""
    if "<!--" not in text and "_No response_" not in text:
        return text
    if "```" not in text and "~~~" not in text:
        return _noise_removed(text)
    return outside_code(text, _noise_removed)


def outside_code(text: str, rewrite: Callable[[str], str]) -> str:
    """`text` with `rewrite` applied to each run of lines outside fenced code (a run whole: what it rewrites
    may span lines), the fences and what they hold as they are."""
    lines = text.split("\n")
    outside = {i for i, _ in outside_fences(lines)}
    out: list[str] = []
    run: list[str] = []
    for i, line in enumerate(lines):
        if i in outside:
            run.append(line)
            continue
        if run:
            out.append(rewrite("\n".join(run)))
            run = []
        out.append(line)
    if run:
        out.append(rewrite("\n".join(run)))
    return "\n".join(out)


def _noise_removed(text: str) -> str:
    if "<!--" in text:
        text = _HTML_COMMENT_RE.sub("", text)
    if "_No response_" in text:
        text = _NO_RESPONSE_RE.sub("", text)
    return text
