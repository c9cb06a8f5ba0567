"""The shared argument-name tables: one spelling for every name, the table's order decides."""

from __future__ import annotations

import pytest

from compaction.transcripts.arg_names import NAMES, ArgRole, arg_text, arg_value, is_name, spell


@pytest.mark.parametrize("name", ["oldText", "old_text", "old-text", "OLD_TEXT", "oldtext"])
def test_spellings_are_one_name(name: str) -> None:
    """Camel case, snake case and kebab case of one name are the same argument."""
    assert spell(name) == "oldtext"
    assert arg_text({name: "x = 1"}, ArgRole.OLD) == "x = 1"


def test_table_order_wins_over_argument_order() -> None:
    """`old_str` is named before `search` in the table, so it is read whichever the call sent first."""
    assert NAMES[ArgRole.OLD].index("oldstr") < NAMES[ArgRole.OLD].index("search")
    assert arg_text({"search": "a", "old_str": "b"}, ArgRole.OLD) == "b"
    assert arg_text({"filePath": "a.py", "path": "b.py"}, ArgRole.PATH) == "a.py"
    assert arg_text({"path": "b.py", "filePath": "a.py"}, ArgRole.PATH) == "a.py"


def test_kind_and_blank() -> None:
    """A value of the wrong kind is passed over; `blank=False` passes over an empty path."""
    assert arg_text({"old_string": 3, "search": "s"}, ArgRole.OLD) == "s"
    assert arg_text({"file_path": "", "path": "p"}, ArgRole.PATH) == ""
    assert arg_text({"file_path": "", "path": "p"}, ArgRole.PATH, blank=False) == "p"
    assert arg_value({"cmd": ["ls", "-l"]}, ArgRole.COMMAND, object) == ["ls", "-l"]
    assert arg_value({"edits": "no list"}, ArgRole.EDIT_LIST, list) is None
    assert arg_text(None, ArgRole.NEW) is None
    assert arg_text({"new_text": "n"}, ArgRole.OLD) is None


def test_named_subsets() -> None:
    """A subset or extension is asked like a role."""
    assert is_name("file_path", ArgRole.PATH) and not is_name("uri", ArgRole.PATH)
    assert arg_text({"uri": "file:///a.py"}, ("uri",)) == "file:///a.py"
