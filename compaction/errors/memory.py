"""`ErrorMemory`: the error memory persisted in the workspace store (`.compaction/state.db`).

Why keyed occurrences: the same transcript is ingested again and again as it grows (every
compaction, every watcher tick). An occurrence's key is (transcript identity, round, id), so
re-ingesting the same or a grown transcript replaces rows instead of adding them: counts never
double. Records (solution, avoidance, user edits) and decisions (`@decision: ignore_ERR_xxx`)
live in their own tables; all tables are prefixed `errors_`.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from compaction.atomic import write_text_atomic
from compaction.errors.advice import RUN_AS_COMMAND, SUBSTITUTION_ID, advise
from compaction.errors.check import Warning_, index, rank
from compaction.errors.merge import find
from compaction.errors.records import ErrorRecord, Location, Occurrence, valid_id
from compaction.errors.render import parse_block, render_block
from compaction.errors.scan import legacy_transcript_id, scan_transcript, transcript_id
from compaction.model import Role, Transcript
from compaction.redact import redact_text
from compaction.store import StoreError, data_version, ensure_schema, open_store, transaction

SCHEMA = [
    """CREATE TABLE IF NOT EXISTS errors_records (
        id TEXT PRIMARY KEY, solution TEXT, avoidance TEXT, user_edited INTEGER NOT NULL DEFAULT 0,
        merged TEXT NOT NULL DEFAULT '[]', resolved INTEGER NOT NULL DEFAULT 0, target_override INTEGER,
        created REAL NOT NULL, updated REAL NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS errors_occurrences (
        transcript TEXT NOT NULL, round INTEGER NOT NULL, id TEXT NOT NULL, evidence TEXT NOT NULL DEFAULT '',
        message INTEGER, source TEXT, start INTEGER, stop INTEGER, path TEXT, line INTEGER, symbol TEXT,
        command TEXT, signals INTEGER NOT NULL DEFAULT 1, target INTEGER NOT NULL DEFAULT 0, detail TEXT,
        ts_codes TEXT NOT NULL DEFAULT '[]', tests TEXT NOT NULL DEFAULT '[]', seen REAL NOT NULL,
        PRIMARY KEY (transcript, round, id))""",
    "CREATE INDEX IF NOT EXISTS errors_occurrences_id ON errors_occurrences(id)",
    """CREATE TABLE IF NOT EXISTS errors_decisions (
        id TEXT PRIMARY KEY, decision TEXT NOT NULL, created REAL NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS errors_transcripts (
        tid TEXT PRIMARY KEY, path TEXT, rounds INTEGER, updated REAL NOT NULL)""",
]

_DECISION = re.compile(r"@decision:\s*ignore_(ERR_[A-Z]+_[A-Za-z0-9_]+)")


IMPORTED_MARK = "(imported from "


def mark_imported(text: str | None, origin: str) -> str | None:
    """`(imported from <origin>) text`, once (a re-imported export keeps its first origin)."""
    if not text or text.startswith(IMPORTED_MARK):
        return text
    clean = "".join(c if c.isprintable() else " " for c in origin).replace("`", "'").replace(")", "]")
    clean = " ".join(clean.split())[:120] or "another store"
    return f"{IMPORTED_MARK}{clean}) {text}"


class ErrorMemoryError(ValueError):
    """A bad request (unknown id, malformed id or block); the CLI exits 1 on it."""


@dataclass
class IngestReport:
    transcript: str
    records: int
    new_occurrences: int
    decisions: list[str]

    def as_dict(self) -> dict:
        return {"transcript": self.transcript, "records": self.records, "new_occurrences": self.new_occurrences,
                "decisions": self.decisions}


class ErrorMemory:
    """The workspace's error memory. Cheap to open; `check` keeps an index that is rebuilt only
    when the store changed (SQLite data_version or a write through this object)."""

    def __init__(self, workspace: str | Path = ".") -> None:
        self.workspace = Path(workspace)
        self.conn: sqlite3.Connection = open_store(self.workspace)
        try:
            ensure_schema(self.conn, SCHEMA)
        except BaseException:
            self.conn.close()
            raise
        self._index = None
        self._index_version: tuple[int, int] | None = None
        self._writes = 0

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> ErrorMemory:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # --- writing ------------------------------------------------------------------------------
    def ingest(self, transcript: Transcript, records: list[ErrorRecord] | None = None) -> IngestReport:
        """Record the transcript's errors; idempotent per (transcript identity, round, id).
        `records`: this transcript's scan when the caller already has it (a compaction result's)."""
        tid = transcript_id(transcript)
        records = scan_transcript(transcript, tid=tid) if records is None else records
        decisions = sorted({m.group(1) for msg in transcript.messages if msg.role is Role.USER or
                            msg.role is Role.ASSISTANT for m in _DECISION.finditer(msg.text or "")})
        now = time.time()
        new = 0
        try:
            with transaction(self.conn):
                self._rekey_legacy(transcript, tid)
                self._drop_relabelled(tid, records)
                for rec in records:
                    self._upsert_record(rec, now, user=False)
                    for occ in rec.occurrences:
                        cur = self.conn.execute(
                            "SELECT 1 FROM errors_occurrences WHERE transcript=? AND round=? AND id=?",
                            (occ.transcript, occ.round, rec.id)).fetchone()
                        new += cur is None
                        self._put_occurrence(rec.id, occ, now)
                for d in decisions:
                    self.conn.execute("INSERT OR IGNORE INTO errors_decisions VALUES (?,?,?)",
                                      (d, f"@decision: ignore_{d}", now))
                self.conn.execute("INSERT OR REPLACE INTO errors_transcripts VALUES (?,?,?,?)",
                                  (tid, os.path.realpath(transcript.path), len(transcript.rounds), now))
        except sqlite3.Error as exc:
            raise StoreError(f"cannot write the error memory: {exc}") from exc
        self._writes += 1
        return IngestReport(tid, len(records), new, decisions)

    def _drop_relabelled(self, tid: str, records: list[ErrorRecord]) -> None:
        """This transcript's occurrences stored under an id the scan now gives another (a word the shell ran
        from backticks was a missing file or command before it was `SUBSTITUTION_ID`): the scan is the truth
        for its own transcript, and one failure is not counted under two ids."""
        now_at = {(o.round, rec.id) for rec in records for o in rec.occurrences if o.transcript == tid}
        moved = {r for r, i in now_at if i == SUBSTITUTION_ID}
        for err_id in RUN_AS_COMMAND:
            gone = [rnd for (rnd,) in self.conn.execute(
                "SELECT round FROM errors_occurrences WHERE transcript=? AND id=?", (tid, err_id)).fetchall()
                if rnd in moved and (rnd, err_id) not in now_at]
            for rnd in gone:
                self.conn.execute("DELETE FROM errors_occurrences WHERE transcript=? AND round=? AND id=?",
                                  (tid, rnd, err_id))
            if gone:  # a record the move emptied goes (one the user wrote or imported stays)
                self.conn.execute("DELETE FROM errors_records WHERE id=? AND user_edited=0 AND NOT EXISTS "
                                  "(SELECT 1 FROM errors_occurrences WHERE id=?)", (err_id, err_id))

    def _rekey_legacy(self, transcript: Transcript, tid: str) -> None:
        """Occurrences stored under the older path-based identity move to the content identity, so
        upgrading does not count a re-ingested transcript twice."""
        old = legacy_transcript_id(transcript)
        if old != tid and self.conn.execute("SELECT 1 FROM errors_occurrences WHERE transcript=? LIMIT 1",
                                            (old,)).fetchone():
            self.conn.execute("UPDATE OR REPLACE errors_occurrences SET transcript=? WHERE transcript=?", (tid, old))
            self.conn.execute("DELETE FROM errors_transcripts WHERE tid=?", (old,))

    def _upsert_record(self, rec: ErrorRecord, now: float, *, user: bool) -> None:
        row = self.conn.execute("SELECT user_edited FROM errors_records WHERE id=?", (rec.id,)).fetchone()
        if row is None:
            self.conn.execute(
                "INSERT INTO errors_records (id, solution, avoidance, user_edited, merged, resolved, target_override,"
                " created, updated) VALUES (?,?,?,?,?,0,?,?,?)",
                (rec.id, rec.solution, rec.avoidance, int(user), json.dumps(rec.merged),
                 None if rec.target_override is None else int(rec.target_override), now, now))
        elif user or not row["user_edited"]:
            self.conn.execute(
                "UPDATE errors_records SET solution=?, avoidance=?, user_edited=?, merged=?, target_override=?,"
                " updated=? WHERE id=?",
                (rec.solution, rec.avoidance, int(user or row["user_edited"]), json.dumps(rec.merged),
                 None if rec.target_override is None else int(rec.target_override), now, rec.id))
        else:
            self.conn.execute("UPDATE errors_records SET updated=? WHERE id=?", (now, rec.id))

    def _put_occurrence(self, err_id: str, occ: Occurrence, now: float) -> None:
        loc = occ.location
        self.conn.execute(
            "INSERT OR REPLACE INTO errors_occurrences VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (occ.transcript, occ.round, err_id, occ.evidence, occ.message, occ.source, occ.start, occ.end,
             loc.path, loc.line, loc.symbol, loc.command, occ.signals, int(occ.target), occ.detail,
             json.dumps(occ.ts_codes), json.dumps(occ.tests), now))

    def add(self, err_id: str, *, solution: str | None = None, avoidance: str | None = None,
            round: int | None = None, evidence: str = "", path: str | None = None, line: int | None = None,
            symbol: str | None = None, command: str | None = None) -> ErrorRecord:
        """Record an error by hand (one occurrence in the session `manual`). Secrets in the texts, the
        path and the symbol are redacted before they are stored, as they are in transcripts."""
        solution, avoidance, evidence, command, path, symbol = (
            redact_text(t) if t else t for t in (solution, avoidance, evidence, command, path, symbol))
        if not valid_id(err_id):
            raise ErrorMemoryError(f"malformed error id {err_id!r} (expected ERR_<FAMILY>_<Name>)")
        now = time.time()
        existing = self.get(err_id)
        rnd = round if round is not None else (max([o.round for o in existing.occurrences], default=0) + 1
                                               if existing else 1)
        occ = Occurrence(round=rnd, transcript="manual", evidence=evidence, detail=evidence,
                         location=Location(path, line, symbol, command))
        rec = existing or ErrorRecord(err_id)
        rec.add(occ)
        rec.solution = solution or rec.solution
        rec.avoidance = avoidance or rec.avoidance or advise(rec)
        with transaction(self.conn):
            self._upsert_record(rec, now, user=bool(solution or avoidance))
            self._put_occurrence(err_id, occ, now)
        self._writes += 1
        return self.get(err_id)  # type: ignore[return-value]

    def resolve(self, err_id: str, solution: str | None = None) -> ErrorRecord:
        rec = self.get(err_id)
        if rec is None:
            raise ErrorMemoryError(f"no error {err_id} in this workspace's memory")
        err_id = rec.id  # an alias resolves its primary record
        solution = redact_text(solution) if solution else solution
        with transaction(self.conn):
            if solution:
                self.conn.execute("UPDATE errors_records SET resolved=1, solution=?, user_edited=1, updated=? "
                                  "WHERE id=?", (solution, time.time(), err_id))
            else:
                self.conn.execute("UPDATE errors_records SET resolved=1, updated=? WHERE id=?", (time.time(), err_id))
        self._writes += 1
        return self.get(err_id)  # type: ignore[return-value]

    def forget(self, err_id: str | None = None, *, everything: bool = False) -> list[str]:
        """Delete one record (or, only when asked explicitly, all of them); returns the ids removed."""
        if err_id is None and not everything:
            raise ErrorMemoryError("name an error id, or ask for everything explicitly")
        if err_id:
            rec = self.get(err_id)
            if rec is None:
                raise ErrorMemoryError(f"no error {err_id} in this workspace's memory")
            err_id = rec.id  # an alias forgets its primary record
        ids = [err_id] if err_id else [r["id"] for r in self.conn.execute("SELECT id FROM errors_records")]
        with transaction(self.conn):
            for i in ids:
                self.conn.execute("DELETE FROM errors_occurrences WHERE id=?", (i,))
                self.conn.execute("DELETE FROM errors_records WHERE id=?", (i,))
        self._writes += 1
        return ids

    def ignore(self, err_id: str, note: str | None = None) -> str:
        """The user overrode a warning: record `@decision: ignore_ERR_xxx`; check stops warning for it."""
        if not valid_id(err_id):
            raise ErrorMemoryError(f"malformed error id {err_id!r}")
        decision = f"@decision: ignore_{err_id}" + (f" ({redact_text(note)})" if note else "")
        with transaction(self.conn):
            self.conn.execute("INSERT OR REPLACE INTO errors_decisions VALUES (?,?,?)", (err_id, decision, time.time()))
        self._writes += 1
        return decision

    def decisions(self) -> dict[str, str]:
        return {r["id"]: r["decision"] for r in self.conn.execute("SELECT id, decision FROM errors_decisions")}

    # --- reading ------------------------------------------------------------------------------
    def list(self) -> list[ErrorRecord]:
        """All records, in order of first appearance (creation time, then insertion order)."""
        occs: dict[str, list[Occurrence]] = {}
        for r in self.conn.execute("SELECT * FROM errors_occurrences ORDER BY seen, transcript, round"):
            occs.setdefault(r["id"], []).append(Occurrence(
                round=r["round"], transcript=r["transcript"], evidence=r["evidence"], message=r["message"],
                source=r["source"] or "text", start=r["start"] or 0, end=r["stop"] or 0,
                location=Location(r["path"], r["line"], r["symbol"], r["command"]), signals=r["signals"],
                target=bool(r["target"]), detail=r["detail"] or "", ts_codes=json.loads(r["ts_codes"]),
                tests=json.loads(r["tests"])))
        out = []
        for r in self.conn.execute("SELECT * FROM errors_records ORDER BY created, rowid"):
            rec = ErrorRecord(r["id"], occs.get(r["id"], []), r["solution"], r["avoidance"], json.loads(r["merged"]),
                              bool(r["resolved"]), None if r["target_override"] is None else bool(r["target_override"]))
            rec.occurrences.sort(key=lambda o: (o.round, o.transcript))
            out.append(rec)
        return out

    def get(self, err_id: str) -> ErrorRecord | None:
        """The record with this id, else the one holding it as an alias (one failure, one record)."""
        return find(self.list(), err_id)

    def export(self, lang: str = "en", path: str | Path | None = None, *, protocol: bool = True) -> str:
        """The `## Error Memory` block of every record (written atomically when a path is given)."""
        text = render_block(self.list(), lang, protocol=protocol)
        if path is not None:
            write_text_atomic(Path(path), text)
        return text

    def import_block(self, markdown: str, *, source: str = "import", origin: str | None = None) -> list[str]:
        """Import an `## Error Memory` block (e.g. pasted into CLAUDE.md). Re-importing the same
        block leaves the memory unchanged: the block's occurrences replace earlier imported ones.
        Secrets in a pasted block are redacted before anything is stored. Solution and avoidance
        texts are stored marked `(imported from <origin>)`: advice written elsewhere is never shown
        as if this workspace's own sessions had learnt it."""
        records = parse_block(redact_text(markdown), source=source)
        if not records and "ERR_" in markdown:
            raise ErrorMemoryError("no record in the seed's format found (`- ERR_X_Y: occurrences N (rounds …)`)")
        for rec in records:
            rec.solution, rec.avoidance = (mark_imported(t, origin or source) for t in (rec.solution, rec.avoidance))
        now = time.time()
        with transaction(self.conn):
            for rec in records:
                self.conn.execute("DELETE FROM errors_occurrences WHERE id=? AND (transcript=? OR transcript LIKE ?)",
                                  (rec.id, source, f"{source}#%"))
                self._upsert_record(rec, now, user=True)
                for occ in rec.occurrences:
                    self._put_occurrence(rec.id, occ, now)
        self._writes += 1
        return [r.id for r in records]

    def check(self, task_text: str = "", files: list[str] | tuple = (), code: str = "",
              commands: list[str] | tuple = (), limit: int = 3, lang: str = "en",
              edits: list[str] | tuple = ()) -> list[Warning_]:
        """Ranked warnings for recorded errors resembling this work (never for ignored ones)."""
        version = (data_version(self.conn), self._writes)
        if self._index is None or version != self._index_version:
            self._index = index(self.list())
            self._ignored = set(self.decisions())
            self._index_version = version
        return rank(self._index, text=task_text, files=files, code=code, commands=commands, edits=edits,
                    limit=limit, ignored=self._ignored, lang=lang)
