"""Transcript loaders: one module per format, auto-detected by content.

Each format module exposes `NAME`, `DESCRIPTION`, `sniff(head: str, path: str) -> int`
(confidence 0-100 from the file's first 64 KiB) and `load(path: str) -> Transcript`
(messages only; rounds are grouped here).
"""

from __future__ import annotations

import importlib
import re
import stat
from pathlib import Path
from types import ModuleType

from compaction.model import Transcript, TranscriptError, compact_messages, group_rounds
from compaction.redact import map_strings, redact_transcript
from compaction.transcripts._io import read_head
from compaction.transcripts.continuations import fold_continuations
from compaction.transcripts.glued_titles import unglue_transcript
from compaction.transcripts.leaked_calls import tell_leaked_calls
from compaction.transcripts.pasted_log import expand_pasted_logs
from compaction.transcripts.terminal import clean_transcript
from compaction.transcripts.user_feedback import reads_tags, user_words_apart

_MODULES = [
    "mini_swe_agent",
    "swe_agent",
    "openhands",
    "aider",
    "claude_code",
    "codex",
    "codex_exec",
    "pi",
    "specstory",
    "cursor_export",
    "gemini_cli",
    "copilot_chat",
    "copilot_cli",
    "anthropic",
    "openai_chat",
    "markdown",
    "generic",  # last resort: claims anything with speakers, at the lowest confidence
]


STRICT = False  # True: let loader bugs raise as they are (fuzzing), instead of the TranscriptError net


def formats() -> list[ModuleType]:
    """The loaded format modules, in detection-priority order (missing ones are skipped)."""
    mods = []
    for name in _MODULES:
        try:
            mods.append(importlib.import_module(f"compaction.transcripts.{name}"))
        except ModuleNotFoundError as exc:
            if exc.name != f"compaction.transcripts.{name}":
                raise
    return mods


def format_names() -> list[str]:
    return [m.NAME for m in formats()]


def check_regular_file(path: str | Path) -> None:
    """A TranscriptError unless `path` is an existing regular file (or a link to one): a FIFO would
    block the reader and a device never ends, and neither is an "empty file" or a missing one."""
    p = Path(path)
    try:
        mode = p.stat().st_mode
    except FileNotFoundError:
        raise TranscriptError(str(p), "no such file") from None
    except OSError as exc:
        raise TranscriptError(str(p), f"cannot read: {exc.strerror or exc}") from None
    if stat.S_ISDIR(mode):
        raise TranscriptError(str(p), "is a directory, not a transcript file")
    if not stat.S_ISREG(mode):
        kind = ("a FIFO (named pipe)" if stat.S_ISFIFO(mode) else "a device" if stat.S_ISCHR(mode) or
                stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode) else "a special file")
        raise TranscriptError(str(p), f"not a regular file ({kind})")


def candidates(path: str | Path) -> list[ModuleType]:
    """Every format module that claims the file, most confident first (bad files raise TranscriptError)."""
    p = Path(path)
    check_regular_file(p)
    if p.stat().st_size == 0:
        raise TranscriptError(str(p), "empty file")
    head = read_head(p)
    if "\x00" in head[:8192]:
        raise TranscriptError(str(p), "binary file (NUL bytes), not a transcript", 1)
    scored = [(mod.sniff(head, str(p)), i, mod) for i, mod in enumerate(formats())]
    ranked = [mod for score, _, mod in sorted(scored, key=lambda x: (-x[0], x[1])) if score > 0]
    if not ranked:
        raise TranscriptError(str(p), "unrecognised transcript format (see `compaction formats`)")
    return ranked


def detect(path: str | Path) -> ModuleType:
    return candidates(path)[0]


def load_transcript(path: str | Path, fmt: str | None = None, *, redact: bool = True) -> Transcript:
    """Load any supported transcript; rounds grouped by DESIGN.md §4.

    With `redact` (the default; `Settings.redact_secrets`), secrets are replaced in memory by
    `[REDACTED:<kind>]` before anything downstream sees them; counts in `meta["redactions"]`.
    """
    if fmt:
        by_name = {m.NAME: m for m in formats()}
        if fmt not in by_name:
            raise TranscriptError(str(path), f"unknown format {fmt!r}; known: {', '.join(by_name)}")
        mod = by_name[fmt]
        check_regular_file(path)
    try:
        transcript = _first_conversation(path, [mod] if fmt else candidates(path))
    except TranscriptError:
        raise
    except OSError as exc:  # permission denied, a FIFO, an I/O error: bad input named by its file
        raise TranscriptError(str(path), f"cannot read: {exc.strerror or exc}") from None
    except (TypeError, AttributeError, KeyError, IndexError, ValueError, RecursionError, OverflowError) as exc:
        # the safety net: a loader bug on a strange file is still "bad input", never a traceback.
        # The fuzzers (tests/unit/test_fuzz_loaders.py) set STRICT to see, and fix, such bugs.
        if STRICT:
            raise
        raise TranscriptError(str(path), f"unexpected shape ({type(exc).__name__}: {exc})") from exc
    if not transcript.rounds:  # a format that groups its own rounds has no pasted TUI logs to read
        transcript.messages = user_words_apart(expand_pasted_logs(transcript.messages), tagged=reads_tags(transcript))
        transcript.rounds = group_rounds(transcript.messages)
    tell_leaked_calls(transcript.messages)  # calls printed in a model's raw call tokens: not its words
    fold_continuations(transcript.messages)  # a call reading on a command still running is that command
    _scrub_surrogates(transcript)
    clean_transcript(transcript)  # colours and carriage returns out, before extraction and rendering
    unglue_transcript(transcript)  # an exporter's bold titles glued to the sentence after them, apart
    if redact:
        redact_transcript(transcript)
    compact_messages(transcript.messages)  # loading is over: nothing appends to them any more
    return transcript


def _first_conversation(path: str | Path, mods: list[ModuleType]) -> Transcript:
    """The first candidate that finds a message wins; one that claims the file but finds none lets the next
    try, and so does one that fails on it (the first error is reported when no candidate reads it).
    An empty result is never returned."""
    tried: list[str] = []
    first_error: TranscriptError | None = None
    for mod in mods:
        try:
            transcript = mod.load(str(path))
        except TranscriptError as exc:  # reported unless a later candidate reads the file
            first_error = first_error or exc
            continue
        if any(m.text.strip() or m.tool_calls or m.tool_results for m in transcript.messages):
            return transcript
        skipped = ", ".join(f"{k} x{n}" for k, n in sorted(transcript.skipped_kinds.items(), key=lambda x: -x[1])[:4])
        tried.append(f"{mod.NAME}: {len(transcript.messages)} messages with text" + (f", skipped {skipped}" if skipped else ""))
    if first_error is not None:
        raise first_error
    raise TranscriptError(str(path), f"no conversation found in {path} ({'; '.join(tried)})")


_SURROGATE = re.compile("[\ud800-\udfff]")


def _scrub_surrogates(t: Transcript) -> None:
    """JSON may escape lone surrogates (`"\\ud83d"`, an emoji cut in half); Python keeps them in str and
    every later `.encode()` (hashing, tokenizing, writing) fails. Replace them with U+FFFD once, here.
    Ids, names, commands and paths that a wrong-shaped record made non-strings are normalised too."""
    replaced = 0

    def clean(text: str) -> str:
        nonlocal replaced
        if not isinstance(text, str) or not _SURROGATE.search(text):
            return text
        replaced += 1
        return _SURROGATE.sub("\ufffd", text)

    for msg in t.messages:
        msg.text = clean(msg.text)
        for r in msg.tool_results:
            r.content = clean(r.content)
            if r.call_id is not None and not isinstance(r.call_id, str):  # ids are matched as dict keys downstream
                r.call_id = str(r.call_id)
        for c in msg.tool_calls:
            if c.id is not None and not isinstance(c.id, str):
                c.id = str(c.id)
            c.name = clean(c.name if isinstance(c.name, str) else str(c.name))
            c.command = clean(c.command) if isinstance(c.command, str) else None  # wrong-shaped records (fuzzing)
            c.path = clean(c.path) if isinstance(c.path, str) else None
            map_strings(c.arguments, clean)
    t.cwd = t.cwd and clean(t.cwd)
    map_strings(t.meta, clean)
    if replaced:
        t.warnings.append(f"{t.path}: lone UTF-16 surrogate escapes replaced by U+FFFD ({replaced} strings)")
