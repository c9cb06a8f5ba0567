"""What a program the agent ran printed, as one short line: a scratch script's answer, a check's result.

Why one place: the completed actions (a scratch script's first and last runs) and the end state (the
check after the last edit) both say what a run printed; its last line alone is often a table's last
row ("3  1"), its whole short output is the answer ("A int16 · 0 -1 · 1 0 · 2 0 · 3 1").
"""

from __future__ import annotations

import re

from compaction.history.condense import cut_at_word

PRINTED_CHARS = 80
_WARNING_LINE_RE = re.compile(r"\b\w*Warning\b|^\s")  # a warning, or the indented source line it echoes
# What closes a printed table or series (pandas, numpy): its shape or dtype, not what the script found.
_FOOTER_RE = re.compile(r"(?:Name: [^,]*, )?(?:Length: \d+, )?dtype: \w+|\[\d+ rows x \d+ columns\]")


def printed_gist(output: str) -> str:
    """A short output whole, its lines joined by " · " ("select__A int16 · pass__B category"), else its
    last line that says something (not a warning, nor the indented source line a warning echoes)."""
    lines = [" ".join(ln.split()) for ln in output.strip().splitlines() if ln.strip() and not _WARNING_LINE_RE.search(ln)]
    table = [ln for ln in lines if not _FOOTER_RE.fullmatch(ln)]  # pandas' "dtype: object" closes a table
    lines = table or lines  # printed alone, it is the script's answer
    whole = " · ".join(lines)  # (not "; ": the line of scratch files parts its scripts so)
    if len(whole) <= PRINTED_CHARS:
        return whole
    return cut_at_word(lines[-1], PRINTED_CHARS) if lines else ""
