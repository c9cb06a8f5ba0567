"""Mends of a seventeenth blind review (error records and change records, 15 development sessions)."""

from __future__ import annotations

from compaction.edits import Hunk
from compaction.events import Event, EventKind
from compaction.history.sources.reasons import _taken_out

FINAL = "from . import icrs_observed_transforms\nfrom . import itrs_observed_transforms\nreturn cirs"


def _edit(*hunks: Hunk) -> Event:
    return Event(EventKind.EDIT, 15, 40, path="builtin_frames/__init__.py", hunks=hunks)


def test_a_deletion_the_final_diff_adds_again_was_a_probe() -> None:
    """astropy r15: `sed -i '/from . import itrs_observed_transforms/d'` to run the tests without the change,
    put back at r26: the agent's words at r15 are no reason for the file's final change."""
    assert _taken_out(_edit(Hunk(deletes_matching="from . import itrs_observed_transforms")), FINAL)
    assert _taken_out(_edit(Hunk(removed=("from . import itrs_observed_transforms",))), FINAL)


def test_a_deletion_that_lasts_keeps_its_reason() -> None:
    assert not _taken_out(_edit(Hunk(removed=("import pdb; pdb.set_trace()  # debug",))), FINAL)
    assert not _taken_out(_edit(Hunk(removed=("x = 1",))), FINAL)  # too short to judge by
    assert not _taken_out(_edit(Hunk(removed=("from . import itrs_observed_transforms",))), None)  # no final diff


def test_an_edit_that_adds_kept_or_unjudgeable_lines_is_no_probe() -> None:
    assert not _taken_out(_edit(Hunk(removed=("from . import itrs_observed_transforms",), added=("return cirs",))),
                          FINAL)
    assert not _taken_out(_edit(Hunk(removed=("from . import itrs_observed_transforms",), added=("v",),
                                     fragment=True)), FINAL)
