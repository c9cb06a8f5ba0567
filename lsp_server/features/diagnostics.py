"""Diagnostics at error-memory locations: hint for a single occurrence, warning when recurring
(both configurable), one per record and line, on open documents only."""

from __future__ import annotations

from lsprotocol import types

from lsp_server.features.hover import headline, is_recurring
from lsp_server.features.locations import ErrorIndex
from lsp_server.settings import DiagnosticsOptions

SOURCE = "compaction"
_SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "information": types.DiagnosticSeverity.Information,
    "hint": types.DiagnosticSeverity.Hint,
}


def _line_range(lines: list[str], line: int, symbol: str | None) -> types.Range:
    text = lines[line] if 0 <= line < len(lines) else ""
    start, end = len(text) - len(text.lstrip()), len(text)
    if symbol:
        name = symbol.split(".")[-1]
        col = text.find(name)
        if col >= 0:
            start, end = col, col + len(name)
    return types.Range(types.Position(line, start), types.Position(line, max(end, start)))


def diagnostics_for(
    index: ErrorIndex, path: str, text: str, options: DiagnosticsOptions, lang: str = "en"
) -> list[types.Diagnostic]:
    if not options.enabled:
        return []
    lines = text.splitlines()
    out: list[types.Diagnostic] = []
    seen: set[tuple[str, int]] = set()
    for spot in index.spots_for(path):
        rec = index.records[spot.record_id]
        if rec.get("resolved") or rec.get("forgotten"):
            continue
        level = options.recurring if is_recurring(rec) else options.single
        if level == "off":
            continue
        line = spot.line
        if line is None and spot.symbol:  # no line recorded: the first line naming the symbol
            name = spot.symbol.split(".")[-1]
            line = next((i for i, t in enumerate(lines) if name in t), None)
        if line is None or line >= max(len(lines), 1):
            continue
        if (spot.record_id, line) in seen:
            continue
        seen.add((spot.record_id, line))
        message = headline(rec, lang)
        if rec.get("avoidance"):
            message += f"\n{'规避' if lang == 'zh' else 'Avoidance'}: {rec['avoidance']}"
        out.append(
            types.Diagnostic(
                range=_line_range(lines, line, spot.symbol),
                message=message,
                severity=_SEVERITY[level],
                code=str(rec.get("id") or spot.record_id),
                source=SOURCE,
            )
        )
    return out
