"""aider's watch mode: a request the user writes as an `AI!` comment in a watched file is logged with no
`####` prompt (only "Processing your request..."); the reply's SEARCH block quotes the comment it removes.
That comment is the user's request."""

from __future__ import annotations

from compaction.model import Role
from compaction.transcripts import load_transcript

HISTORY = """
# aider chat started at 2025-06-01 10:00:00

#### add markdown conventions to CONVENTIONS.md

Okay, I will add them.

> Applied edit to CONVENTIONS.md
> Added src/index.ts to the chat
> Processing your request...

Okay, I will reorganize the exports in `src/index.ts` as instructed.

src/index.ts
```typescript
<<<<<<< SEARCH
export * from './b.ts';
export * from './a.ts';
// AI! Reorganize this!
=======
export * from './a.ts';
export * from './b.ts';
>>>>>>> REPLACE
```

> Applied edit to src/index.ts
"""


def test_an_ai_comment_the_reply_removes_is_the_users_request(tmp_path):
    """The block's file is named before its fence or inside it (aider writes either)."""
    path = tmp_path / ".aider.chat.history.md"
    path.write_text(HISTORY, encoding="utf-8")
    t = load_transcript(str(path))
    users = [m.text for m in t.messages if m.role is Role.USER]
    assert users == ["add markdown conventions to CONVENTIONS.md",
                     "Reorganize this! (an AI! comment in src/index.ts)"]
    asked = next(i for i, m in enumerate(t.messages) if m.meta.get("ai_comment"))
    assert t.messages[asked + 1].role is Role.ASSISTANT and t.messages[asked + 1].tool_calls  # the reply follows


def test_an_ai_comment_quoted_with_aiders_margin_marks_is_the_request_too(tmp_path):
    """aider-monochromatic r50: the SEARCH block copied aider's `│`/`█` margin marks (`█// AI! Add all missing
    TSDoc`); the request went unseen and the hand-over named the one before as current."""
    history = HISTORY.replace("// AI! Reorganize this!", "█// AI! Add all missing TSDoc").replace(
        "export * from './a.ts';\nexport * from './b.ts';\n>>>", "│export * from './a.ts';\n>>>")
    path = tmp_path / ".aider.chat.history.md"
    path.write_text(history, encoding="utf-8")
    users = [m.text for m in load_transcript(str(path)).messages if m.role is Role.USER]
    assert users[-1] == "Add all missing TSDoc (an AI! comment in src/index.ts)"
