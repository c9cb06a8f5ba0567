"""Runs of look-alike log lines folded in the verbatim tail (history/fold.py)."""

from __future__ import annotations

from compaction.history.fold import folded


def test_a_run_of_one_shape_keeps_its_first_and_last_lines_and_a_count():
    table = [f"19{y:02d}-{m:02d}-01      +08:00 (Asia/Shanghai, standard time)" for y in range(13, 20)
             for m in range(1, 13)]  # 84 rows
    text = "\n".join(["Picked up JAVA_TOOL_OPTIONS", *table, "[INFO] BUILD SUCCESS"])
    out = folded(text).split("\n")
    assert out[:3] == ["Picked up JAVA_TOOL_OPTIONS", table[0], table[1]]
    assert out[3] == "[… 81 more lines like these …]" and out[4:] == [table[-1], "[INFO] BUILD SUCCESS"]


def test_two_shapes_alternating_are_one_run_and_a_different_line_ends_it():
    pairs = [ln for i in range(60) for ln in (f"[INFO] Running com.alibaba.fastjson2.codec.JSONBTableTest{i}",
                                              f"[INFO] Tests run: {i % 3 + 1}, Failures: 0, Errors: 0 -- in com.alibaba.fastjson2.codec.JSONBTableTest{i}")]
    pairs.insert(61, "@important: the cache test is flaky")  # a line of its own ends a run (two folds): shown
    out = folded("\n".join(pairs))
    assert "@important: the cache test is flaky" in out
    assert out.count("more lines like these") == 2 and "Running com.alibaba.fastjson2.codec.JSONBTableTest0" in out and "JSONBTableTest59" in out


def test_short_runs_and_nested_data_are_left_whole():
    # 45 lines of one shape, but fewer than RUN_MIN_CHARS characters: the listing is read whole
    files = "\n".join(f" delete mode 100644 frontend/app/api/r{i}/route.ts" for i in range(45))
    assert folded(files) == files  # a commit's list of files is read whole
    keys = [a + b for a in "abcdefg" for b in "hijklmn"]  # 49 lines, long enough to fold if they were one shape
    nested = "\n".join("\t" * 8 + f'"{k}_{"x" * 90}":{i},' for i, k in enumerate(keys))
    assert folded(nested) == nested  # one indent, different keys: not one shape
