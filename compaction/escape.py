"""One physical line for text that came from a file a repository controls (config keys, link
targets, exception texts): control characters, DEL, C1 controls and bidi overrides become escapes.

Why: such text ends up in `.compaction/hooks.log` and on a terminal. A newline would let a config
key start a line of its own (a log shipped as a link to a shell rc file would run it); an escape
sequence would drive the user's terminal; a bidi override would make a line read differently.
"""

from __future__ import annotations

_BIDI = {0x061C, 0x200E, 0x200F, 0x2028, 0x2029, *range(0x202A, 0x202F), *range(0x2066, 0x206A)}


def escape_control(text: str) -> str:
    """Backslash-escape what could break or disguise a line; other text is kept as is."""
    out = []
    for ch in text:
        code = ord(ch)
        if ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif code < 0x20 or 0x7F <= code < 0xA0:
            out.append(f"\\x{code:02x}")
        elif code in _BIDI:
            out.append(f"\\u{code:04x}")
        else:
            out.append(ch)
    return "".join(out)
