"""The engine's view of the error memory: scan, filter by role, render the budgeted block."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from compaction.events import Event
from compaction.history.steering import RolePreset
from compaction.model import Transcript
from compaction.summary import ErrorRecordOut


def scan(transcript: Transcript, events: list[Event] | None = None) -> tuple[list[Any], None]:
    """The transcript's error records; with its `events`, the shell edits they found changed nothing
    (a `sed -i 'Ns/a/b/'` whose line held no `a`) are no fix of an error either, and an edit whose call
    names no file (an export that kept only its text) fixes in the file its content named."""
    from compaction.errors import scan_transcript

    no_effect = frozenset((e.message_index, e.command) for e in events or () if e.unchanged and e.via_shell and e.command)
    inferred = {e.call_id: e.path for e in events or () if e.inferred and e.call_id and e.path}
    return scan_transcript(transcript, no_effect=no_effect, inferred_paths=inferred), None


def filter_for_role(records: list[Any], preset: RolePreset) -> list[Any]:
    if not preset.error_memory:
        return []
    if preset.error_prefixes is None:
        return list(records)
    # An alias counts: the tester's ERR_LOGIC_TestFailed merged into the exception that caused it stays shown.
    return [r for r in records if any(i.startswith(preset.error_prefixes) for i in [r.id, *r.merged])]


def to_out(records: list[Any]) -> list[ErrorRecordOut]:
    from compaction.errors import records_to_out

    return records_to_out(records)


def render_block(records: list[Any], lang: str, ceiling: int, current_round: int,
                 ignored: Callable[[str], bool] | None = None) -> tuple[str, str]:
    """The `## Error Memory` block (with the seed's protocol) held to `ceiling` tokens; and a note
    saying what the budget merged or dropped."""
    from compaction.errors import fit_budget

    if ignored is not None:  # `--instructions "ignore X"`: records that mention X go too
        records = [r for r in records if not ignored(_record_text(r))]
    fitted = fit_budget(records, ceiling=ceiling, current_round=current_round, lang=lang)
    return fitted.markdown.rstrip("\n"), "; ".join(fitted.notes)


def document_block(records: list[Any], lang: str, ceiling: int, current_round: int, *,
                   detail: Callable[[Any, bool], str], clean: Callable[[Any], tuple[str, str]],
                   ignored: Callable[[str], bool] | None = None) -> tuple[str, set[str]]:
    """The hand-over document's `## Error Memory` block: the same records, protocol and budget rules as
    `render_block`, each record also saying what failed and where (`detail`: its `Error:` line; brief:
    the latest error line alone, for an alias merged into it) and its
    texts as the document words them (`clean`: solution and avoidance), so a failure is told once, in
    its record, not again under Problems. Returns the block and the ids it shows (aliases included):
    the Problems lines of those records are not rendered beside it."""
    from compaction.errors import fit_budget
    from compaction.errors.budget import STALE_ROUNDS
    from compaction.errors.render import assemble_block, ids_label

    if ignored is not None:
        records = [r for r in records if not ignored(_record_text(r))]
    worded, originals = [], {}
    # The aliases a record had before the budget merged any: the test failures its own outputs reported
    # (`errors.merge`). Their occurrences are in it; a record left with their id is another failure of
    # another output (pytest-5787: r76's `test_unserialization_failure` read as the cause of ValueError: 11).
    consequences = {r.id: frozenset(r.merged) for r in records}
    for r in records:
        originals[r.id] = r
        r = copy.copy(r)
        r.merged = list(r.merged)  # the budget's merges go to the copy, not to the record it was made from
        r.solution, r.avoidance = clean(r)
        worded.append(r)

    def said(r: Any) -> str:  # a merged record: its own failure first, then each alias's the budget folded in
        if not r.merged or r.id not in originals:
            return detail(r, False)
        aliases = [f"{a}: {d}" for a in r.merged if a in originals and a not in consequences.get(r.id, ())
                   and (d := detail(originals[a], True))]
        return "; ".join(d for d in [detail(originals[r.id], False), *aliases] if d)  # each may be told elsewhere

    fitted = fit_budget(worded, ceiling=ceiling, current_round=current_round, lang=lang, detail=said)
    # The head lines name the aliases and the dropped records keep their own Problems lines: the
    # notes say only which were dropped.
    dropped = [ids_label(i, [], fitted.merged.get(i, [])) for i in fitted.dropped]  # an alias stays named
    # "dropped" read as "gone" beside the Problems lines that still tell them: the note says what it is, and
    # "left out" alone read as contradicting them: left out of this block
    notes = [f"left out here, unseen for over {STALE_ROUNDS} rounds: {', '.join(dropped)}"] if dropped else []
    notes += [n for n in fitted.notes if n.startswith("texts cut")]
    markdown = assemble_block(fitted.texts, lang, notes=notes)  # the records as the budget rendered them
    shown = {i for r in fitted.records for i in (r.id, *r.merged)}
    return markdown.rstrip("\n"), shown


def _record_text(record: Any) -> str:
    parts = [record.id, record.solution or "", record.avoidance or ""]
    parts += [o.evidence for o in record.occurrences[:3]]
    return " ".join(parts)
