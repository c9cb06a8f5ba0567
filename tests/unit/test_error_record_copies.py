"""Error records copy themselves field by field (`__deepcopy__`, for speed): a copy equals its original
and shares nothing mutable with it, and a field added to a record is a field its copy must carry."""

from __future__ import annotations

import copy
from dataclasses import fields

from compaction.errors.records import ErrorRecord, Location, Occurrence


def test_a_copied_record_equals_its_original_and_shares_no_list():
    occ = Occurrence(4, "t1", "E boom", 7, "result:0", 3, 9, Location("a.py", 12, "f", "pytest a.py"), 2, True,
                     "boom", ["TS2322"], ["tests/test_a.py::t"], True)
    rec = ErrorRecord("ERR_PY_ValueError", [occ], "edited `a.py` (r5)", "check inputs", ["ERR_LOGIC_TestFailed"],
                      True, False, [((2, 3), "`boom` — edited `a.py` (r3)")])
    twin = copy.deepcopy(rec)
    assert twin == rec and twin.occurrences[0] == occ and twin.earlier == rec.earlier
    assert twin.earlier is not rec.earlier
    assert twin.occurrences is not rec.occurrences and twin.occurrences[0].tests is not occ.tests
    assert twin.merged is not rec.merged and twin.occurrences[0].location == occ.location


def test_the_copies_know_every_field():
    """The records' `__deepcopy__` name their fields in order: a new field must be
    added there too (this list is the reminder)."""
    assert [f.name for f in fields(Occurrence)] == ["round", "transcript", "evidence", "message", "source", "start",
                                                    "end", "location", "signals", "target", "detail", "ts_codes",
                                                    "tests", "baseline"]
    assert [f.name for f in fields(Location)] == ["path", "line", "symbol", "command"]
    assert [f.name for f in fields(ErrorRecord) if f.init] == ["id", "occurrences", "solution", "avoidance", "merged",
                                                                 "resolved", "target_override", "earlier"]
