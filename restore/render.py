"""Render a RestoreState as Markdown for the assistant (English or Chinese headings) or JSON."""

from __future__ import annotations

import datetime as _dt
import os
import re
from pathlib import Path

from compaction import statedir
from compaction.atomic import write_text_atomic
from compaction.errors.render import PROTOCOL, render_block
from compaction.mdsafe import escape_path
from compaction.summary import ErrorRecordOut
from restore.ranking import LABELS
from restore.state import MAX_LISTED, RestoreState

H = {
    "en": {
        "title": "Restore state",
        "intro": "Read this before continuing: it is where the work stands after the last compaction.",
        "cwd": "Working directory",
        "recorded": "recorded in the transcript as",
        "open": "Open files",
        "open_src": {"editor": "from the editor", "transcript": "last read in the transcript", "none": ""},
        "core": "Core files (the 5 most recently modified)",
        "elsewhere": "Edited in the session, not in this workspace",
        "problem_files": "Files with unresolved problems",
        "arch": "Architecture documents",
        "tests": "Test configuration",
        "tasks": "Unfinished tasks",
        "problems": "Problems found and their solutions",
        "em": "Error Memory",
        "excerpts": "File excerpts",
        "none": "(none)",
        "modified": "modified",
        "omitted": "omitted",
        "tokens": "tokens",
    },
    "zh": {
        "title": "压缩后状态恢复",
        "intro": "继续工作前请先阅读：这是上次压缩之后的工作状态。",
        "cwd": "当前工作目录",
        "recorded": "对话记录中为",
        "open": "已打开的文件",
        "open_src": {"editor": "来自编辑器", "transcript": "对话中最后读取的文件", "none": ""},
        "core": "核心文件（最近修改的 5 个）",
        "elsewhere": "会话中修改过、本工作区中没有的文件",
        "problem_files": "包含未解决问题的文件",
        "arch": "架构设计文档",
        "tests": "测试配置文件",
        "tasks": "未完成的任务",
        "problems": "已发现的问题和解决方案",
        "em": "Error Memory",
        "excerpts": "文件摘录",
        "none": "（无）",
        "modified": "修改于",
        "omitted": "已省略",
        "tokens": "tokens",
    },
}


def _h(lang: str) -> dict:
    return H["zh" if lang == "zh" else "en"]


def _when(ts: float) -> str:
    return _dt.datetime.fromtimestamp(ts, _dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


_CITED = re.compile(r"\(r\d+(?:, (?:r\d+|…))*\)\s*\Z")


def _cite(rounds: list[int], text: str = "") -> str:
    if _CITED.search(text):
        return ""  # the compaction already cited its rounds
    return f" (r{', r'.join(str(r) for r in rounds[-6:])})" if rounds else ""


def render_error_memory(records: list[ErrorRecordOut], lang: str = "en") -> str:
    """The complete `## Error Memory` block in the seed's shape, with the protocol above it — the
    error memory's own renderer, so every document shows the block the same way."""
    return render_block(records, lang, heading=f"## {_h(lang)['em']}")


def _em_block(state: RestoreState) -> str:
    t = _h(state.lang)
    md = state.error_memory_markdown.strip()
    if not md:
        return render_error_memory(state.error_memory, state.lang)
    has_heading = md.lstrip().startswith("#")
    has_protocol = "@decision: ignore_ERR" in md
    head = [] if has_heading else [f"## {t['em']}", ""]
    proto = [] if has_protocol else [PROTOCOL.get(state.lang, PROTOCOL["en"]), ""]
    if has_heading and not has_protocol:
        first, _, rest = md.partition("\n")
        return "\n".join([first, "", *proto, rest.lstrip("\n")]) + "\n"
    return "\n".join([*head, *proto, md]) + "\n"


def _p(path: object) -> str:
    """A path as printed in the document: controls, bidi characters and backticks escaped."""
    return escape_path(str(path))


def render_markdown(state: RestoreState, *, excerpts: bool = True) -> str:
    t = _h(state.lang)
    labels = LABELS["zh" if state.lang == "zh" else "en"]
    out: list[str] = [f"# {t['title']}", "", f"> {t['intro']}", ""]
    rec = f" ({t['recorded']} `{_p(state.recorded_cwd)}`)" if state.recorded_cwd else ""
    out += [f"**{t['cwd']}:** `{_p(state.cwd)}`{rec}", ""]

    src = t["open_src"].get(state.open_files_source, "")
    out.append(f"## {t['open']}" + (f" ({src})" if src else ""))
    out += [f"- `{_p(p)}`" for p in state.open_files] or [t["none"]]
    out.append("")

    out.append(f"## {t['core']}")
    for i, cf in enumerate(state.core_files, 1):
        why = "; ".join(cf.reasons)
        out.append(f"{i}. `{_p(cf.path)}` — {labels[cf.cls]} ({t['modified']} {_when(cf.mtime)}; {why})")
    if not state.core_files and not state.edited_elsewhere:
        out.append(t["none"])
    if state.edited_elsewhere:  # not the five: no excerpt to give, but a successor must know they exist
        shown = state.edited_elsewhere[:MAX_LISTED]
        more = len(state.edited_elsewhere) - len(shown)
        out.append(f"- {t['elsewhere']}: " + ", ".join(f"`{_p(p)}`" for p in shown) + (f" (+{more})" if more else ""))
    out.append("")

    out.append(f"## {t['problem_files']}")
    for pf in state.problem_files:
        where = f"`{_p(pf.path)}{':' + str(pf.line) if pf.line else ''}`"
        ids = ", ".join(pf.ids)
        msg = f" {pf.message}" if pf.message else ""
        out.append(f"- {where} — {pf.source}{': ' + ids if ids else ''}{msg}")
    if not state.problem_files:
        out.append(t["none"])
    out.append("")

    for key, items in (("arch", state.architecture_docs), ("tests", state.test_config)):
        out.append(f"## {t[key]}")
        out += [f"- `{_p(p)}`" for p in items] or [t["none"]]
        out.append("")

    out.append(f"## {t['tasks']}")
    out += [f"- {it.text}{_cite(it.rounds, it.text)}" for it in state.unfinished_tasks] or [t["none"]]
    out.append("")
    out.append(f"## {t['problems']}")
    out += [f"- {it.text}{_cite(it.rounds, it.text)}" for it in state.problems] or [t["none"]]
    out.append("")

    out.append(_em_block(state).rstrip("\n"))
    out.append("")

    if excerpts and any(cf.excerpt for cf in state.core_files):
        out.append(f"## {t['excerpts']}")
        out.append("")
        for cf in state.core_files:
            ex = cf.excerpt
            if ex is None:
                continue
            cut = f", {t['omitted']}: {'; '.join(ex.omitted)}" if ex.omitted else ""
            out.append(f"### `{_p(cf.path)}` ({labels[cf.cls]}, {ex.tokens}/{ex.file_tokens} {t['tokens']}{cut})")
            fence = "````" if "```" in ex.text else "```"
            out.append(f"{fence}{ex.language}")
            out.append(ex.text.rstrip("\n"))
            out.append(fence)
            out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def render_json(state: RestoreState, *, indent: int | None = 2) -> str:
    return state.model_dump_json(indent=indent)


def restore_path(workspace: str | os.PathLike[str]) -> Path:
    return Path(workspace) / ".compaction" / "restore.md"


def write_restore(state: RestoreState, path: str | os.PathLike[str] | None = None) -> Path:
    """Write the Markdown atomically to `path`, or by default to `<workspace>/.compaction/restore.md`
    (through compaction.statedir: a link there is refused, never followed)."""
    if path:
        return write_text_atomic(path, render_markdown(state))
    return statedir.write_text(state.workspace, "restore.md", render_markdown(state))
