"""Section headings and fixed phrases in the languages we write (English, Chinese)."""

from __future__ import annotations

HEADINGS: dict[str, dict[str, str]] = {
    "en": {
        "title": "Compacted conversation",
        "goal": "Task goal",
        "rules": "Project rules and environment (instructions the agent read)",
        "current": "Current work (where the session ended)",
        "completed": "Completed key actions",
        "modified": "Modified files",
        "changes": "What changed",  # file records, the agent's own account, settings the harness saved
        "findings": "Findings (round by round)",
        "evidence": "What the agent read and learned (code lines, reports, searches)",
        "harness_elided": "Harness and system-prompt rules ({n}) elided: context, not decisions",
        "change_reason": "Why {files} changed (edit r{n}): ",
        "decisions": "Key decisions and constraints",
        "problems": "Problems and solutions",
        "error_memory": "Error Memory",
        "marked": "Marked items",
        "next": "Next steps",
        "dropped": "Dropped",
        "recent": "Recent rounds (verbatim)",
        "written": "Files the session created or rewrote, as it left them",
        "excerpts": "Earlier replies of the agent (excerpts, one line each)",
        "cwd": "Working directory",
        "root": "Project root",
        "root_inferred": "inferred from the agent's commands and paths; file paths below are relative to it",
        "unchanged": "Conversation (unchanged)",
        "last_messages": "its last {shown} of {total} messages; what came before is told above",
        "earlier_parts": "{n} earlier parts of this message elided",
        "request_report": "Reported on r{n} “{head}”: ",
    },
    "zh": {
        "title": "压缩后的对话",
        "goal": "任务目标",
        "rules": "项目规则与环境（智能体读到的指令）",
        "current": "当前工作（会话结束时）",
        "completed": "已完成工作",
        "modified": "已修改文件",
        "changes": "具体改动",
        "findings": "发现与结论（按轮次）",
        "evidence": "读到的关键内容（代码行、子代理报告、搜索）",
        "harness_elided": "已省略 {n} 条框架/系统提示规则：属于上下文，不是决策",
        "change_reason": "{files} 的修改原因（编辑 r{n}）：",
        "decisions": "关键决策与约束",
        "problems": "问题与解决方案",
        "error_memory": "错误记忆",
        "marked": "标记内容",
        "next": "下一步计划",
        "dropped": "已省略",
        "recent": "最近轮次（原文）",
        "written": "会话创建或重写的文件（会话结束时的内容）",
        "excerpts": "智能体较早的回复（摘录，每条一行）",
        "cwd": "当前工作目录",
        "root": "项目根目录",
        "root_inferred": "由智能体的命令和路径推断；下文文件路径均相对于此目录",
        "unchanged": "对话（未压缩）",
        "last_messages": "其最后 {shown}/{total} 条消息；之前的内容见上文",
        "earlier_parts": "此消息之前的 {n} 部分已省略",
        "request_report": "对 r{n}「{head}」的汇报：",
    },
}


def h(lang: str, key: str) -> str:
    return HEADINGS.get(lang, HEADINGS["en"])[key]
