"""Look-ups (a search tool's call, a `grep`/`find`/`ls` line): how one reads, what it found, and
whether it found nothing. Shared by the exploration before the first change and the findings after it."""

from __future__ import annotations

import re

from compaction.history.facts import display_path, first_line
from compaction.history.fold import run_output, without_run_record
from compaction.model import ToolCall, ToolKind
from compaction.transcripts.arg_names import LOOKUP, arg_text

# Shell lines that look things up without changing anything: their empty output is itself a finding.
LOOKUP_RE = re.compile(r"^\s*(?:cd \S+ && )?(?:find|grep|rg|ag|fd|ls|git grep|git ls-files|locate|which)\b")
FAILED_RE = re.compile(r"No such file|cannot access|not found", re.IGNORECASE)
PATH_LINE_RE = re.compile(r"(?m)^[^\S\n]*\.?/?[\w.@-]+(?:/[\w.@-]+)+\.\w{1,6}(?=[:\s]|$)")  # `path:line:` of a match
# A search tool's own "nothing": `No matches found`, `Found 0 files`, Cursor's `**0** results`.
_NOTHING_RE = re.compile(r"\b(?:No (?:matches|results|files)(?: found)?|Found 0\b|0 (?:matches|results|files)\b)|"
                         r"\*\*0\*\* results")


def found_nothing_in(output: str) -> bool:
    """Whether a look-up's output says it found nothing (empty, or a short "no matches")."""
    out = output.strip()
    return not out or len(out) <= 160 and (_NOTHING_RE.search(out) is not None or FAILED_RE.search(out) is not None)


def lookup_text(call: ToolCall) -> str | None:
    """How a look-up call reads (`find src -name "*.pony"`, `find_file "numpy_handler.py"`), or None
    when the call is no look-up or says too little to retell (a bare tool name)."""
    if call.kind == ToolKind.SHELL and call.command and LOOKUP_RE.match(call.command) and "\n" not in call.command.strip():
        return f"`{first_line(call.command, 100)}`"
    if call.kind != ToolKind.SEARCH:
        return None
    what = call.command or arg_text(call.arguments, LOOKUP, blank=False)
    if what is None:
        args = call.arguments.get("args")
        what = " ".join(map(str, args)) if isinstance(args, list) and args else None
    return f"`{first_line(what if what.startswith(call.name) else f'{call.name} {what}', 100)}`" if what else None


def lookup_hits(output: str, cwd: str | None) -> str:
    """What a look-up found: the paths it lists (a few, relative), else its first line. The project root is
    taken off first: a root with a space in it (`My Drive`) leaves no path a path's pattern matches."""
    # Codex's record of the run above it ("Chunk ID: …", "Process exited with code 0", "Output:") is no hit,
    # unless it is all there is
    printed = run_output(output[:4000])
    output = printed if printed.strip() else without_run_record(output[:4000])
    root = cwd.rstrip("/\\") if cwd and len(cwd) > 1 else None
    if root and root in output[:4000]:  # only where a path starts: not `/usr/lib/node_modules/app/x` for `/app`
        output = re.sub(rf"(?m)(^|[\s'\"]){re.escape(root)}[/\\]", r"\1", output[:4000])
    paths = [display_path(m.group(0).split(":", 1)[0], cwd) for m in PATH_LINE_RE.finditer(output[:4000])]
    if paths:
        shown = list(dict.fromkeys(paths))
        return ", ".join(shown[:4]) + (f" (+{len(shown) - 4})" if len(shown) > 4 else "")
    return first_line(output, 80)
