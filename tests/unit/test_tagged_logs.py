"""A log several processes write tags each line with its process (vLLM's `(APIServer pid=7309) `, docker
compose's `web-1  | `): the traceback under the tags is still read, its span the log's own."""

from __future__ import annotations

from compaction.errors.classify import classify

VLLM = """(APIServer pid=7309) INFO 05-08 12:00:01 serving on 0.0.0.0:8000
(APIServer pid=7309)   File "/root/.venv/lib/python3.12/site-packages/vllm/v1/engine/core_client.py", line 1053, in _call
(APIServer pid=7309)     return await future
(APIServer pid=7309)            ^^^^^^^^^^^^
(APIServer pid=7309) Exception: Call to collective_rpc method failed: start_weight_update must be called before update_weights.
"""

COMPOSE = """web-1  | Traceback (most recent call last):
web-1  |   File "/app/server.py", line 12, in <module>
web-1  |     main()
web-1  |   File "/app/server.py", line 9, in main
web-1  |     raise KeyError("DATABASE_URL")
web-1  | KeyError: 'DATABASE_URL'
db-1   | LOG:  database system is ready to accept connections
"""


def test_a_traceback_under_process_tags_is_read_and_its_span_is_the_logs() -> None:
    (hit,) = classify(VLLM)
    assert hit.id == "ERR_PY_Exception"
    assert VLLM[hit.start:hit.end].endswith("must be called before update_weights.")
    assert "start_weight_update must be called" in hit.detail and "(APIServer" not in hit.detail


def test_a_compose_log_traceback_names_the_services_file() -> None:
    (hit,) = classify(COMPOSE)
    assert hit.id == "ERR_PY_KeyError" and hit.path == "/app/server.py" and hit.line == 9
    assert COMPOSE[hit.start:hit.end].rstrip().endswith("KeyError: 'DATABASE_URL'")


def test_a_bare_exception_line_needs_a_frame_above_it() -> None:
    assert classify("Exception: something odd happened\n") == []
    assert classify("(a) x\n(b) y\n(c) Exception: z\n") == []  # tagged lines, no frame: nothing


def test_maven_brackets_are_no_process_tags() -> None:
    from compaction.errors.classify import _untagged

    out = "[INFO] Scanning\n[ERROR] Failed to execute goal on project core: Compilation failure\n[INFO] done\n"
    assert _untagged(out) is None
    assert [h.id for h in classify(out)] == ["ERR_JAVA_BuildFailure"]


def test_a_traceback_ending_in_exception_itself_names_the_project_frame() -> None:
    tb = ('Traceback (most recent call last):\n  File "/app/main.py", line 3, in <module>\n    run()\n'
          '  File "/usr/lib/python3.12/site-packages/lib/x.py", line 9, in run\n    raise Exception("boom")\n'
          'Exception: boom\n')
    (hit,) = classify(tb)
    assert (hit.id, hit.path, hit.line) == ("ERR_PY_Exception", "/app/main.py", 3)


def test_a_span_ending_at_a_line_break_is_mapped_back_without_the_next_tag() -> None:
    from compaction.errors.classify import Hit, _retagged, _untagged

    text = "(a) x\n(b) y\n(c) z\n"
    bare, where = _untagged(text)
    assert bare == "x\ny\nz\n"
    hit = _retagged(Hit("X", 0, 2, bare[0:2]), where)  # "x\n" in the bare text
    assert text[hit.start:hit.end] == "x\n"
    hit = _retagged(Hit("X", 2, 5, bare[2:5]), where)  # "y\nz"
    assert text[hit.start:hit.end] == "y\n(c) z"
