"""The `## Error Memory` Markdown block (DESIGN.md §4 / seed §2.3) and its parser.

Export and import are inverse on what the block carries (id, merged ids, count, rounds, target-bug
mark, solution, avoidance): `parse_block(render_block(x))` gives records whose `records_to_out`
equals x's, in English and in Chinese. The parser also reads the seed's own Chinese example and
blocks pasted into CLAUDE.md-style files (anything before/after the block is ignored).
"""

from __future__ import annotations

import re

from compaction.errors.convert import ErrorRecordOut
from compaction.errors.records import ErrorRecord, Occurrence

HEADING = "## Error Memory"
TARGET_EN = "[target bug]"
TARGET_ZH = "[目标缺陷]"

PROTOCOL = {
    "en": (
        "> Protocol: read this Error Memory before writing code. When the work resembles a record, first print\n"
        "> `⚠️ Detected historical error [ID], avoidance: [advice]`; if the user overrides it, record "
        "`@decision: ignore_ERR_xxx`."
    ),
    "zh": (
        "> 协议：生成代码或回答前先读取本错误记忆块。若当前任务与某条记录相似，先输出\n"
        "> `⚠️ 检测到历史错误 [标识]，规避建议：[规避建议]`；若用户要求忽略，记录为 `@decision: ignore_ERR_xxx`。"
    ),
}

WARNING = {
    "en": "⚠️ Detected historical error [{id}], avoidance: [{advice}]",
    "zh": "⚠️ 检测到历史错误 [{id}]，规避建议：[{advice}]",
}


def _one_line(text: str | None) -> str:
    return " ".join((text or "").split())


def ids_label(err_id: str, codes: list[str], merged: list[str]) -> str:
    """`ERR_TS_TypeNotAssignable (TS2322) (+ERR_LOGIC_TestFailed)`: the id, the compiler's own codes
    beside it, then the aliases folded into it."""
    return (err_id + (f" ({', '.join(codes)})" if codes else "")
            + (f" (+{', '.join(merged)})" if merged else ""))


def _ids(rec: ErrorRecord) -> str:
    return ids_label(rec.id, rec.ts_codes, rec.merged)


def _record_lines(ids: str, count: int, rounds: list[int], recurring: bool, target: bool,
                  solution: str | None, avoidance: str | None, lang: str, detail: str | None = None) -> str:
    tag = "#recurring " if recurring else ""
    if lang == "zh":
        head = f"- {tag}{ids}: 发生{count}次 ({','.join(map(str, rounds))})"
        head += f" {TARGET_ZH}" if target else ""
        lines = [head, f"  错误: {_one_line(detail)}", f"  解决: {_one_line(solution)}", f"  规避: {_one_line(avoidance)}"]
    else:
        head = f"- {tag}{ids}: occurrences {count} (rounds {', '.join(map(str, rounds))})"
        head += f" {TARGET_EN}" if target else ""
        lines = [head, f"  Error: {_one_line(detail)}", f"  Solution: {_one_line(solution)}",
                 f"  Avoidance: {_one_line(avoidance)}"]
    if not detail:
        del lines[1]
    return "\n".join(lines)


def render_record(rec: ErrorRecord, lang: str = "en", detail: str | None = None) -> str:
    """One record; with `detail` (the hand-over document's form) an `Error:` line says what failed and
    where, so the document states each failure once, in its record (parse_block skips that line)."""
    return _record_lines(_ids(rec), rec.count, rec.rounds, rec.recurring, rec.target_bug, rec.solution,
                         rec.avoidance, lang, detail)


def render_out_record(rec: ErrorRecordOut, lang: str = "en") -> str:
    """The same line for a record in its boundary shape (what restore, LSP and MCP hold)."""
    ids = ids_label(rec.id, rec.codes, rec.merged)
    return _record_lines(ids, rec.count, rec.rounds, rec.recurring or rec.count >= 2, rec.target_bug,
                         rec.solution, rec.avoidance, lang)


def render_block(records: list[ErrorRecord] | list[ErrorRecordOut], lang: str = "en", *, protocol: bool = True,
                 heading: str = HEADING, notes: list[str] | None = None,
                 details: dict[str, str] | None = None) -> str:
    """The block: heading, the §2.5 protocol (2 lines), one record per entry, then budget notes.
    Records may be ErrorRecord or their boundary shape, ErrorRecordOut; `details` (by id) gives
    records an `Error:` line."""
    texts = [render_out_record(r, lang) if isinstance(r, ErrorRecordOut)
             else render_record(r, lang, (details or {}).get(r.id)) for r in records]
    return assemble_block(texts, lang, protocol=protocol, heading=heading, notes=notes)


def assemble_block(texts: list[str], lang: str = "en", *, protocol: bool = True, heading: str = HEADING,
                   notes: list[str] | None = None) -> str:
    """`render_block` of records already rendered (`texts`, one a record): the budget renders each
    record once to count it and puts the same texts in its block, not renders them again."""
    parts = [heading]
    if protocol:
        parts.append(PROTOCOL.get(lang, PROTOCOL["en"]))
    if texts:
        parts.append("\n".join(texts))
    else:
        parts.append("(no errors recorded)" if lang != "zh" else "（无错误记录）")
    for note in notes or []:
        parts.append(f"<!-- {note} -->")
    return "\n\n".join(parts) + "\n"


_HEAD = re.compile(
    r"^- (?P<rec>#recurring )?\[?(?P<id>ERR_[A-Z]+_[A-Za-z0-9_]+)\]?"
    r"(?: \((?P<codes>[A-Z]{1,5}\d{1,6}(?:, [A-Z]{1,5}\d{1,6}){0,20})\))?(?: \(\+(?P<merged>[^)]*)\))?:? "
    r"(?:occurrences (?P<n>\d{1,12}) \(rounds (?P<rounds>(?:\d{1,12}(?!\d)|[, ])*)\)"
    r"|发生(?:次数: ?)?(?P<nz>\d{1,12})次? \((?:轮次:? ?)?(?P<roundsz>(?:\d{1,12}(?!\d)|[,， ])*)\))"
    r"(?P<target> \[target bug\]| \[目标缺陷\])?\s*$")
MAX_OCCURRENCES = 10_000  # per record, when a block is parsed
_SOL = re.compile(r"^\s+(?:Solution|解决方案|解决):\s?(?P<v>.*)$")
_AVOID = re.compile(r"^\s+(?:Avoidance|规避建议|规避):\s?(?P<v>.*)$")


def parse_block(markdown: str, *, source: str = "import") -> list[ErrorRecord]:
    """Records from an `## Error Memory` block (English or Chinese form). Occurrences are rebuilt
    from the round list; a count above the number of listed rounds adds occurrences at the last one
    (from other sessions), so the count survives."""
    out: list[ErrorRecord] = []
    current: ErrorRecord | None = None
    markdown = markdown.encode("utf-8", "replace").decode("utf-8")  # lone surrogates (from JSON-RPC) cannot be stored
    for line in markdown.splitlines():
        m = _HEAD.match(line)
        if m:
            # bounded: a pasted `occurrences 9999999999` must not allocate without limit (found by fuzzing)
            n = min(int(m.group("n") or m.group("nz")), MAX_OCCURRENCES)
            raw = m.group("rounds") if m.group("rounds") is not None else m.group("roundsz")
            rounds = [int(x) for x in re.split(r"[,， ]+", raw or "") if x][:MAX_OCCURRENCES]
            rec = ErrorRecord(m.group("id"))
            rec.merged = [x.strip() for x in (m.group("merged") or "").split(",") if x.strip()]
            codes = [x.strip() for x in (m.group("codes") or "").split(",") if x.strip()]
            for r in rounds:
                rec.occurrences.append(Occurrence(round=r, transcript=source, ts_codes=list(codes)))
            last = rounds[-1] if rounds else 0
            for k in range(max(0, n - len(rounds))):
                rec.occurrences.append(Occurrence(round=last, transcript=f"{source}#{k + 1}"))
            rec.target_override = bool(m.group("target"))
            out.append(rec)
            current = rec
            continue
        if current is None:
            continue
        s = _SOL.match(line)
        if s:
            current.solution = s.group("v").strip() or None
            continue
        a = _AVOID.match(line)
        if a:
            current.avoidance = a.group("v").strip() or None
            continue
        if line.startswith("#") or (line.strip() and not line.startswith((" ", "\t"))):
            current = None
    return out
