"""Where error-memory records happened, in workspace terms: the index hover and diagnostics read.

Occurrence locations carry the paths a transcript recorded (`/testbed/app/x.py`,
`/home/someone/proj/app/config.py`); they are mapped to files of this workspace by
`restore.paths` (DESIGN.md §4: by the recorded cwd where there is one, else by the longest path
suffix that exists here). The index is rebuilt only when the store changes, so a hover is a dict
lookup and a short scan.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from restore.paths import map_path as restore_map_path

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def as_dict(record: Any) -> dict[str, Any]:
    """A record from compaction.errors (ErrorRecord, pydantic model or dict) as a plain dict with
    what hover and diagnostics show: id, count, rounds, recurring, solution, avoidance, resolved,
    target_bug, and each occurrence's round and location (no evidence: keeps the index small)."""
    if isinstance(record, dict):
        return record
    if hasattr(record, "model_dump"):
        return record.model_dump(mode="json")
    out = {name: getattr(record, name, None) for name in
           ("id", "solution", "avoidance", "resolved", "count", "recurring", "target_bug")}  # fmt: skip
    out["rounds"] = list(getattr(record, "rounds", []) or [])
    occurrences = []
    for occ in getattr(record, "occurrences", []) or []:
        loc = getattr(occ, "location", None)
        loc_dict = {k: getattr(loc, k, None) for k in ("path", "line", "symbol", "command")} if loc else {}
        occurrences.append({"round": getattr(occ, "round", None), "location": loc_dict})
    out["occurrences"] = occurrences
    return out


def map_path(raw: str, workspace: Path, cwd: str | None = None) -> Path | None:
    """The existing workspace file a recorded path names, by `restore.paths.map_path` (the one
    path-mapping rule of the product, DESIGN.md §4), or None: a hover on a guessed path would
    point nowhere."""
    mapped = restore_map_path(raw, workspace, cwd=cwd)
    if not mapped:
        return None
    hit = workspace / mapped
    return hit if hit.is_file() else None


@dataclass(slots=True)
class Spot:
    """One place a record points at: a 0-based line (or None: the whole file) and a symbol."""

    record_id: str
    line: int | None
    symbol: str | None
    command: str | None = None


@dataclass
class ErrorIndex:
    """Records by id and their spots by mapped workspace file."""

    records: dict[str, dict[str, Any]] = field(default_factory=dict)
    by_file: dict[str, list[Spot]] = field(default_factory=dict)

    @classmethod
    def build(cls, records: list[Any], workspace: Path, cwd: str | None = None) -> ErrorIndex:
        index = cls()
        cache: dict[tuple[str, str | None], str | None] = {}
        for raw in records:
            rec = {**as_dict(raw), "workspaceFolder": str(workspace)}  # where resolve/forget must go
            rid = str(rec.get("id") or rec.get("error_id") or "")
            if not rid:
                continue
            index.records[rid] = rec
            for loc, loc_cwd in iter_locations(rec):
                path = loc.get("path")
                if not path:
                    continue
                key = (str(path), loc_cwd or cwd)
                if key not in cache:
                    hit = map_path(str(path), workspace, loc_cwd or cwd)
                    cache[key] = str(hit.resolve()) if hit is not None else None
                mapped = cache[key]
                if mapped is None:
                    continue
                line = loc.get("line")
                spot = Spot(rid, int(line) - 1 if isinstance(line, int) and line > 0 else None,
                            loc.get("symbol"), loc.get("command"))  # fmt: skip
                index.by_file.setdefault(mapped, []).append(spot)
        return index

    @classmethod
    def combine(cls, parts: list[ErrorIndex]) -> ErrorIndex:
        """One index over several workspace folders' stores; the same id in two stores stays two
        records (keys are prefixed with the folder's position)."""
        if len(parts) == 1:
            return parts[0]
        out = cls()
        for n, part in enumerate(parts):
            for rid, rec in part.records.items():
                out.records[f"{n}:{rid}"] = rec
            for path, spots in part.by_file.items():
                out.by_file.setdefault(path, []).extend(replace(s, record_id=f"{n}:{s.record_id}") for s in spots)
        return out

    def spots_for(self, path: str | Path) -> list[Spot]:
        return self.by_file.get(str(Path(path).resolve()), [])

    def at(self, path: str | Path, line: int, line_text: str = "", character: int = 0) -> list[dict[str, Any]]:
        """Records whose spots are on `line` (0-based) or name the symbol under the cursor."""
        spots = self.spots_for(path)
        if not spots:
            return []
        word = word_at(line_text, character)
        seen: dict[str, dict[str, Any]] = {}
        for spot in spots:
            on_line = spot.line == line
            on_symbol = bool(spot.symbol and word and spot.symbol.split(".")[-1] == word)
            if (on_line or on_symbol) and spot.record_id not in seen:
                seen[spot.record_id] = self.records[spot.record_id]
        return list(seen.values())


def iter_locations(rec: dict[str, Any]):
    """(location dict, cwd or None) for every location a record carries, whatever its shape:
    `locations: [...]` at the top, or `occurrences: [{locations|location, cwd}]`."""
    for loc in rec.get("locations") or []:
        if isinstance(loc, dict):
            yield loc, loc.get("cwd")
    for occ in rec.get("occurrences") or []:
        if not isinstance(occ, dict):
            continue
        occ_cwd = occ.get("cwd")
        locs = occ.get("locations") or ([occ["location"]] if isinstance(occ.get("location"), dict) else [])
        for loc in locs:
            if isinstance(loc, dict):
                yield loc, loc.get("cwd") or occ_cwd
        if occ.get("path"):
            yield occ, occ_cwd


def word_at(text: str, character: int) -> str:
    for match in _WORD.finditer(text):
        if match.start() <= character <= match.end():
            return match.group(0)
    return ""
