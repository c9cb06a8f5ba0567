"""What a command that worked did differently from the one that failed, word by word.

Why: "then `javac -cp core/target/classes …` no longer printed it" shows the fix only to a reader who
compares it with the failed command, which the record does not show; the changed words are the fix
(`…/target/classes` (was `…/target/fastjson2-2.0.52-SNAPSHOT.jar`)). Simple commands are paired by
the program they run, so a retry that dropped the failed line's look-ups (`ls …; jar tf …`) still
compares with its `javac` part. Only replacements are said: words merely added are in the retry's
command, shown beside; a word that moved is no change.
"""

from __future__ import annotations

from difflib import SequenceMatcher

from compaction.shell import first_word, split_commands, words

MAX_CHANGES = 2  # more than this is another command, not the same one rerun with a fix
MAX_WORDS_CHANGED = 3  # a change of more words than this is a rewrite
MAX_COMMANDS = 20  # simple commands on either line: more is a script, not a command rerun
TRIVIAL_WORDS = 3  # a command this short is read whole
SIDE_CHARS = 48  # a changed word longer than this is said by its end, past the part both sides share
_BOUNDARIES = "/:=,"  # (no backslash: a command holding one is never compared)


def command_change(failed: str, retry: str) -> str:
    """"`new` (was `old`)" for each distinct replacement of words between simple commands of `failed`
    and `retry` that run the same program, each failed command paired once; "" when none pairs up,
    nothing was replaced, so much was that the retry is another command, or the words cannot be read
    as typed (a heredoc's body, backslashes a shell would eat: `C:\\lib\\app.jar`)."""
    if "<<" in failed or "<<" in retry or "\\" in failed or "\\" in retry:
        return ""
    failed_parts, retry_parts = split_commands(failed), split_commands(retry)
    if len(failed_parts) > MAX_COMMANDS or len(retry_parts) > MAX_COMMANDS:
        return ""
    before: dict[str, list[list[str]]] = {}
    for cmd in failed_parts:
        before.setdefault(first_word(cmd), []).append(words(cmd))
    changes: list[tuple[str, str]] = []
    for cmd in retry_parts:
        new = words(cmd)
        olds = before.get(first_word(cmd))
        if len(new) <= TRIVIAL_WORDS or not olds:
            continue  # `ls tests` after `ls x.py`: another look-up, shown whole, not a fix of its words
        matchers = [SequenceMatcher(a=old, b=new, autojunk=False) for old in olds]
        best = max(matchers, key=SequenceMatcher.ratio)  # `javac -cp … F.java` pairs with its like, not `javac -version`
        olds.remove(best.a)  # one failed command answers one retry
        if len(best.a) <= TRIVIAL_WORDS:
            continue
        for tag, i1, i2, j1, j2 in best.get_opcodes():
            if tag != "replace":
                continue  # words only added (shown in the retry) or only dropped (a move's other half, often)
            was, now = best.a[i1:i2], best.b[j1:j2]
            if max(len(was), len(now)) > MAX_WORDS_CHANGED or any(any(c.isspace() for c in w) for w in was + now):
                return ""  # a rewrite, or a quoted script's text: the command shown says it better
            if set(was) <= set(new) or set(now) <= set(best.a):
                continue  # the words moved: `-x` after the path rather than before it
            change = _trimmed(" ".join(was), " ".join(now))
            if change not in changes:
                changes.append(change)
            if len(changes) > MAX_CHANGES:
                return ""
    return ", ".join(f"`{now}` (was `{was}`)" for was, now in changes)


def _trimmed(was: str, now: str) -> tuple[str, str]:
    """Both sides past the start they share, from the path component before where they differ
    (`/home:/x/target/a.jar`, `/home:/x/target/classes` -> `…target/a.jar`, `…target/classes`), when a
    side is long: one change made in two spellings of its place reads as one."""
    if not was or not now or max(len(was), len(now)) <= SIDE_CHARS:
        return was, now
    shared = 0
    while shared < min(len(was), len(now)) and was[shared] == now[shared]:
        shared += 1
    cut = max((was.rfind(c, 0, shared) for c in _BOUNDARIES), default=-1)
    start = max((was.rfind(c, 0, cut) for c in _BOUNDARIES), default=-1) + 1 if cut > 0 else 0
    if start <= 0:
        return was, now
    return "…" + was[start:], "…" + now[start:]
