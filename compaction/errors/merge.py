"""One failure, one record: a runtime exception and the test-failure/assertion records the same
output reports for it are one error. The exception's id stays primary; the others become aliases
(`ErrorRecord.merged`) that lookups, checks, counts and role filters honour.

Why by output and not by name: a test runner prints the exception of the failing test and its own
FAILED line in the same tool result; both signals then come from one occurrence of one failure. A
test failure reported elsewhere (another round, another command) stays its own record.
"""

from __future__ import annotations

from collections.abc import Callable

from compaction.errors.advice import RUN_AS_COMMAND, SUBSTITUTION_ID, own_word
from compaction.errors.families import FAMILIES, family_of
from compaction.errors.records import ErrorRecord, Occurrence

# Test-runner and assertion records a traceback's exception can cause.
CONSEQUENCES = ("ERR_LOGIC_TestFailed", "ERR_LOGIC_AssertionMismatch")
# What a build tool prints around the error that stopped it ("npm error code 1", node's "Error: Command
# failed: tsc --build"): the same failure said again by the wrapper, never its cause. A plain `Error:`
# is a wrapper's only when it says a command failed (else it is a test's or a program's own error).
_WRAPPER_PREFIXES = ("ERR_JS_Npm",)
# Maven's "BUILD FAILURE" banner and its "Failed to execute goal …" line are the build saying it stopped:
# beside a Checkstyle violation or a compiler error of the same output, that error's record (fastjson2: one
# failed run told twice, as ERR_JAVA_CheckstyleViolation and as ERR_JAVA_BuildFailure, with one solution). Not
# beside an exception alone (a passing test may log one): then the banner stays, and a test failure folds into it.
_BUILD_BANNER = "ERR_JAVA_BuildFailure"
# A compiler's error that follows from another of the same output and file: javac prints "cannot find symbol"
# at each use of a class whose package it could not find ("package com.x does not exist" at the import).
_FOLLOWS = {"ERR_JAVA_CannotFindSymbol": "ERR_JAVA_PackageDoesNotExist"}
_COMMAND_FAILED = ("ERR_JS_Error", "Command failed")


def _is_exception(err_id: str) -> bool:
    fam = FAMILIES.get(family_of(err_id))
    return fam is not None and fam.named_exceptions


def _is_wrapper(err_id: str, said: str = "") -> bool:
    """Whether the record (`said`: an occurrence's text, when known) is a build wrapper's line."""
    return err_id.startswith(_WRAPPER_PREFIXES) or (err_id == _COMMAND_FAILED[0] and _COMMAND_FAILED[1] in said)


def _is_cause(err_id: str) -> bool:
    """A record that says what failed: an exception or a compiler's error, not a wrapper's line, a test
    runner's count or a tool's own failure."""
    return not (_is_wrapper(err_id) or err_id in CONSEQUENCES or err_id.startswith("ERR_TOOL_"))


def merge_consequences(records: list[ErrorRecord]) -> list[ErrorRecord]:
    """Fold each test-failure/assertion occurrence into the exception record of the same output (same
    transcript, round, message and source), and each build wrapper's line into the record of the
    error it wraps there (a compiler's or an exception's); first, Maven's build-failure banner into the
    compiler's or checker's error of its output, and javac's "cannot find symbol" into the "package does not
    exist" of its output and file. A record left without occurrences goes, its id kept as an alias of the one
    it folded into. Returns the records in their original order."""
    records = _fold_banners(_fold_followers(records))
    places: dict[tuple, ErrorRecord] = {}
    causes: dict[tuple, ErrorRecord] = {}
    for rec in records:
        exception, cause = _is_exception(rec.id), _is_cause(rec.id)
        for o in rec.occurrences if exception or cause else ():
            if _is_wrapper(rec.id, o.detail or o.evidence):
                continue  # it folds into a cause itself: nothing folds into it
            key = (o.transcript, o.round, o.message, o.source)
            if exception:
                places.setdefault(key, rec)
            if cause:
                causes.setdefault(key, rec)
    if not places and not causes:
        return records

    def primary(rec: ErrorRecord, o: Occurrence) -> ErrorRecord | None:
        key = (o.transcript, o.round, o.message, o.source)
        if rec.id in CONSEQUENCES:
            return places.get(key)
        return causes.get(key) if _is_wrapper(rec.id, o.detail or o.evidence) else None

    return _fold_into(records, primary)


def _static_cause(err_id: str) -> bool:
    """A Java compiler's or checker's error (a violation, a missing symbol): what stopped a build, not an
    exception a run raised or logged."""
    return err_id.startswith("ERR_JAVA_") and err_id != _BUILD_BANNER and not err_id.endswith(("Exception", "Error"))


def _fold_banners(records: list[ErrorRecord]) -> list[ErrorRecord]:
    """Each occurrence of Maven's build-failure banner folded into the compiler's or checker's error of the same
    output (`_static_cause`); the banner of an output without one stays its own record."""
    causes: dict[tuple, ErrorRecord] = {}
    for rec in records:
        if _static_cause(rec.id):
            for o in rec.occurrences:
                causes.setdefault((o.transcript, o.round, o.message, o.source), rec)
    return _fold_into(records, lambda rec, o: causes.get((o.transcript, o.round, o.message, o.source))
                      if rec.id == _BUILD_BANNER else None) if causes else records


def _fold_followers(records: list[ErrorRecord]) -> list[ErrorRecord]:
    """Each occurrence of a follower (`_FOLLOWS`) folded into the record of the error it follows from in the
    same output and file; a record left without occurrences goes, its id an alias of the one it folded into."""
    leads: dict[tuple, ErrorRecord] = {}
    for rec in records:
        if rec.id in _FOLLOWS.values():
            for o in rec.occurrences:
                leads.setdefault((rec.id, o.transcript, o.round, o.message, o.source, o.location.path), rec)
    if not leads:
        return records
    return _fold_into(records, lambda rec, o: leads.get((_FOLLOWS[rec.id], o.transcript, o.round, o.message, o.source,
                                                         o.location.path)) if rec.id in _FOLLOWS else None)


def _fold_into(records: list[ErrorRecord],
               target: Callable[[ErrorRecord, Occurrence], ErrorRecord | None]) -> list[ErrorRecord]:
    """Each occurrence moved into the record `target` names for it (its id kept as that record's alias); a record
    left without occurrences goes. In the records' order."""
    out: list[ErrorRecord] = []
    for rec in records:
        kept = []
        for o in rec.occurrences:
            lead = target(rec, o)
            if lead is None or lead is rec:
                kept.append(o)
                continue
            lead.add(o)
            if rec.id not in lead.merged:
                lead.merged.append(rec.id)
        if len(kept) < len(rec.occurrences):
            rec.occurrences = kept
        if kept:
            out.append(rec)
    return out


def split_substitutions(records: list[ErrorRecord]) -> list[ErrorRecord]:
    """A word in backticks inside double quotes is run by the shell, and each such word fails its own way
    (zsh: "no such file or directory: a.mdc", "permission denied: docs/"; bash: "command not found"): one
    mistake, one record. Those occurrences move to a record of their own (`SUBSTITUTION_ID`, after the
    first record they came from); a record left without occurrences goes. No alias: a store keeps one
    record per id across sessions, and a real missing file is no substitution."""
    moved: ErrorRecord | None = None
    out: list[ErrorRecord] = []
    for rec in records:
        ran = [o for o in rec.occurrences if own_word(rec.id, o)] if rec.id in RUN_AS_COMMAND else []
        if ran:
            if moved is None:
                moved = ErrorRecord(SUBSTITUTION_ID)
                out.append(moved)
            for o in ran:
                moved.add(o)
            rec.occurrences = [o for o in rec.occurrences if not any(o is w for w in ran)]
        if rec.occurrences:
            out.append(rec)
    if moved is not None:
        moved.occurrences.sort(key=lambda o: (o.transcript, o.round))
    return out


def ids_of(rec: ErrorRecord) -> list[str]:
    """The record's id and its aliases."""
    return [rec.id, *rec.merged]


def find(records: list[ErrorRecord], err_id: str) -> ErrorRecord | None:
    """The record with this id, else the one that holds it as an alias."""
    return next((r for r in records if r.id == err_id), None) or next(
        (r for r in records if err_id in r.merged), None)
