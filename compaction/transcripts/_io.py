"""Reading helpers shared by the loaders: strict UTF-8, JSON and JSONL with file:line errors."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from compaction.model import TranscriptError

HEAD_BYTES = 64 * 1024
BOM = b"\xef\xbb\xbf"


def open_binary(path: str | Path) -> BinaryIO:
    """The file opened for binary reading, past a UTF-8 byte-order mark if it starts with one
    (editors on Windows write one; JSON parsers and the sniffers' `startswith` checks reject it)."""
    fh = open(path, "rb")
    try:
        if fh.read(len(BOM)) != BOM:
            fh.seek(0)
    except BaseException:
        fh.close()
        raise
    return fh


def read_head(path: str | Path, size: int = HEAD_BYTES) -> str:
    """The first bytes of a file as text, for format sniffing (invalid bytes replaced, BOM skipped)."""
    with open_binary(path) as fh:
        return fh.read(size).decode("utf-8", errors="replace")


def _line_of_offset(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def read_text(path: str | Path) -> str:
    """Whole file as strict UTF-8; invalid bytes are a TranscriptError naming the line."""
    data = Path(path).read_bytes()
    if b"\x00" in data[:8192]:
        raise TranscriptError(str(path), "binary file (NUL bytes), not a transcript", 1)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise TranscriptError(
            str(path), f"invalid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})",
            _line_of_offset(data, exc.start),
        ) from None


def load_json(path: str | Path) -> Any:
    """Parse a whole JSON document; syntax errors name the line."""
    text = read_text(path)
    if not text.strip():
        raise TranscriptError(str(path), "empty file")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise TranscriptError(str(path), f"invalid JSON: {exc.msg} (column {exc.colno})", exc.lineno) from None
    except RecursionError:
        raise TranscriptError(str(path), "JSON nested too deeply") from None
    except ValueError as exc:  # e.g. an integer beyond Python's digit limit (found by fuzzing)
        raise TranscriptError(str(path), f"invalid JSON: {exc}") from None


def _utf8_line(path: str | Path, lineno: int, raw: bytes) -> str:
    """One line's text; a byte that is not UTF-8 is an error naming the line and the byte."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TranscriptError(str(path), f"invalid UTF-8 (byte 0x{raw[exc.start]:02x})", lineno) from None


def iter_jsonl(path: str | Path, warnings: list[str] | None = None) -> Iterator[tuple[int, Any]]:
    """Stream (line number, object) from a JSONL file.

    A truncated *last* line (a file an agent is still appending to) is reported in `warnings`
    and skipped; a bad line anywhere else is a TranscriptError naming it.
    """
    with open_binary(path) as fh:
        pending: tuple[int, bytes] | None = None
        lineno = 0
        for raw in fh:
            lineno += 1
            if pending is not None:
                _raise_bad_line(path, *pending)
            stripped = raw.strip()
            if not stripped:
                continue
            text = _utf8_line(path, lineno, stripped)
            try:
                yield lineno, json.loads(text)
            except json.JSONDecodeError:
                if not raw.endswith(b"\n"):
                    pending = (lineno, stripped)
                    continue
                _raise_bad_line(path, lineno, stripped)
            except RecursionError:
                raise TranscriptError(str(path), "JSON nested too deeply", lineno) from None
            except ValueError as exc:  # an integer beyond Python's digit limit (found by fuzzing)
                raise TranscriptError(str(path), f"invalid JSON: {exc}", lineno) from None
        if pending is not None:
            if warnings is not None:
                warnings.append(f"{path}:{pending[0]}: incomplete last line ({len(pending[1])} bytes) skipped")


def _raise_bad_line(path: str | Path, lineno: int, raw: bytes) -> None:
    try:
        json.loads(raw)
    except json.JSONDecodeError as exc:
        raise TranscriptError(str(path), f"invalid JSON: {exc.msg} (column {exc.colno})", lineno) from None
    except RecursionError:
        raise TranscriptError(str(path), "JSON nested too deeply", lineno) from None
    except ValueError as exc:
        raise TranscriptError(str(path), f"invalid JSON: {exc}", lineno) from None


def expect(cond: bool, path: str | Path, what: str, line: int | None = None) -> None:
    """Raise a 'wrong shape' TranscriptError unless cond holds."""
    if not cond:
        raise TranscriptError(str(path), f"unexpected shape: {what}", line)


def content_text(content: Any) -> str:
    """Text of an OpenAI/Anthropic-style content field: a string or a list of parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, dict):
                if isinstance(part.get("text"), str):
                    parts.append(part["text"])
                elif isinstance(part.get("content"), (str, list)):
                    parts.append(content_text(part["content"]))
        return "\n".join(p for p in parts if p)
    if isinstance(content, dict):
        return content_text(content.get("text") or content.get("content"))
    return str(content)


def iter_json_records(path: str | Path, warnings: list[str] | None = None) -> Iterator[tuple[int, Any]]:
    """Like `iter_jsonl`, but a line may hold several objects one after another (pi can write two
    records on one line); each is yielded with that line's number. A truncated last line is a warning."""
    with open_binary(path) as fh:
        lines = fh.read().split(b"\n")
    last = max((i for i, raw in enumerate(lines) if raw.strip()), default=-1)
    for i, raw in enumerate(lines):
        stripped = raw.strip()
        if not stripped:
            continue
        text = _utf8_line(path, i + 1, stripped)
        try:
            values = split_records(path, i + 1, text)
        except TranscriptError:
            if i == last and i == len(lines) - 1:  # no final newline: an agent still appending
                if warnings is not None:
                    warnings.append(f"{path}:{i + 1}: incomplete last line ({len(stripped)} bytes) skipped")
                return
            raise
        for value in values:
            yield i + 1, value

def split_records(path: str | Path, lineno: int, text: str) -> list[Any]:
    """Every JSON value on one line, in order; a syntax error names the line."""
    dec = json.JSONDecoder()
    out: list[Any] = []
    i, n = 0, len(text)
    while i < n:
        while i < n and text[i] in " \t\r\n":
            i += 1
        if i >= n:
            break
        try:
            value, i = dec.raw_decode(text, i)
        except json.JSONDecodeError as exc:
            raise TranscriptError(str(path), f"invalid JSON: {exc.msg} (column {exc.colno})", lineno) from None
        except RecursionError:
            raise TranscriptError(str(path), "JSON nested too deeply", lineno) from None
        except ValueError as exc:
            raise TranscriptError(str(path), f"invalid JSON: {exc}", lineno) from None
        out.append(value)
    return out
