"""A data file the agent wrote says what it sets (`modelSize=small.en (was base.en)`), not its first line
(`"hotkey" : {`): JSON (with comments), YAML, TOML and key-value files, flattened to dotted leaves."""

from __future__ import annotations

from compaction import data_leaves
from compaction.events import extract_events
from compaction.history.sources import FactContext
from compaction.history.sources.changes import records
from compaction.history.steering import role_preset
from compaction.model import ToolResult, Transcript
from compaction.transcripts._agent_tools import make_call
from tests.unit.synthetic import steps_transcript

CONFIG = '{\n  "hotkey" : {\n    "modifiers" : [],\n    "keyCode" : 63\n  },\n  "modelSize" : "base.en",\n' \
         '  "language" : "en",\n  "spokenPunctuation" : true,\n  "maxRecordings" : 30\n}\n'

SPRING = """server:
  port: ${SERVER_PORT:8080}   # overridable
spring:
  datasource:
    password: hunter2
app:
  notification:
    queue-backlog-threshold: 100
    api-p95-threshold-ms: 500
jobs:
  test:
    steps:
    - uses: actions/checkout@v4
    - name: Test
      run: |
        pytest -q
        echo done
  hosts:
    - a.example
    - b.example
"""


def test_json_with_comments_and_trailing_commas_flattens_to_dotted_leaves() -> None:
    found = data_leaves.leaves("tsconfig.json", '{\n // strict\n "compilerOptions": {"target": "ES2020", '
                                                '/* x */ "strict": true,},\n "include": ["src"]}')
    assert found == [("compilerOptions.target", "ES2020"), ("compilerOptions.strict", "true"), ("include", "[src]")]
    assert data_leaves.render(found, 200) == "compilerOptions: target=ES2020, strict=true; include=[src]"


def test_yaml_block_mappings_sequences_and_block_scalars() -> None:
    found = dict(data_leaves.leaves("application.yml", SPRING))
    assert found["server.port"] == "${SERVER_PORT:8080}"  # the comment after it is not its value
    assert found["app.notification.queue-backlog-threshold"] == "100"
    assert found["jobs.test.steps[0].uses"] == "actions/checkout@v4"
    assert found["jobs.test.steps[1].run"] == "pytest -q …"  # a block scalar: its first line, and more
    assert found["jobs.hosts"] == "[a.example, b.example]"  # back out of the sequence, by indent
    assert found["spring.datasource.password"] == "…"  # a secret's value is never repeated


def test_toml_tables_and_env_files() -> None:
    toml = data_leaves.leaves("pyproject.toml", '[project]\nname = "sd"\ndependencies = ["a", "b"]\n'
                                                '[project.scripts]\nsd = "sd.core:main"\n')
    assert data_leaves.render(toml, 200, tables=True) == \
        "[project] name=sd, dependencies=[a, b]; [project.scripts] sd=sd.core:main"
    env = data_leaves.leaves(".env.example", "# keys\nOPENAI_API_KEY=sk-abc\nexport PORT=3000\n")
    assert env == [("OPENAI_API_KEY", "…"), ("PORT", "3000")]


def test_what_is_not_data_of_its_kind_gives_nothing() -> None:
    assert data_leaves.leaves("nginx.conf", "server {\n  listen 80;\n  location / { proxy_pass http://b; }\n}") == []
    assert data_leaves.leaves("broken.json", '{"a": ') == []
    assert data_leaves.leaves("notes.yaml", "Some prose here\nand more prose\nwithout keys at all\n") == []
    assert data_leaves.leaves("main.py", "x = 1\n") == []


def test_render_keeps_to_its_room_and_counts_the_rest() -> None:
    found = [("a", "1"), ("url", "https://example.com/a/very/long/path/to/somewhere"), ("b", "2"), ("c", "3")]
    shown = data_leaves.render(found, 30)
    assert shown == "a=1, b=2, c=3 (+1)"  # a long value leaves room for the shorter ones after it
    assert len(shown) <= 30


def _records(t: Transcript) -> dict:
    return records(FactContext(t, extract_events(t), [], role_preset("developer"), None, len(t.rounds)))


def test_a_written_configuration_record_says_its_settings_and_what_an_edit_changed() -> None:
    path = "/home/u/.config/app/config.json"
    t = steps_transcript(
        "set the model up",
        (make_call("Write", {"file_path": path, "content": CONFIG}, "w1"), ToolResult("ok", "w1")),
        (make_call("Edit", {"file_path": path, "old_string": '"modelSize" : "base.en",',
                            "new_string": '"modelSize" : "small.en",'}, "e1"), ToolResult("ok", "e1")))
    record = _records(t)[path]
    assert "sets hotkey: modifiers=[], keyCode=63; modelSize=small.en (was base.en)" in record.text
    assert '"hotkey" : {' not in record.text  # no longer its first line
    assert "maxRecordings=30" in record.text  # a small file's every setting, in its one line


def test_a_large_configurations_line_keeps_its_length_and_its_full_record_the_rest() -> None:
    text = "\n".join(f"setting_{i}: value_{i}" for i in range(40))
    t = steps_transcript("configure", (make_call("Write", {"file_path": "app.yml", "content": text}, "w1"),
                                       ToolResult("ok", "w1")))
    record = _records(t)["app.yml"]
    assert "setting_0=value_0" in record.text and "(+" in record.text and len(record.text) < 230
    assert "setting_20=value_20" in (record.full_text or "")


def test_a_dockerfile_says_its_stages_images_and_what_it_runs_with() -> None:
    text = ("# build\nFROM node:18-alpine AS build\nWORKDIR /app\nCOPY . .\nRUN npm ci && \\\n    npm run build\n"
            "FROM nginx:1.25-alpine\nEXPOSE 80\nCMD [\"nginx\", \"-g\", \"daemon off;\"]\n")
    found = data_leaves.leaves("frontend/Dockerfile", text)
    assert data_leaves.render(found, 200) == ('FROM node:18-alpine AS build, WORKDIR /app, FROM nginx:1.25-alpine, '
                                              'EXPOSE 80, CMD ["nginx", "-g", "daemon off;"]')
    assert data_leaves.leaves("Dockerfile", "RUN make\n") == []  # no image: no Dockerfile's settings


def test_a_changed_value_is_known_by_a_key_set_once_on_each_side() -> None:
    before = [("FROM ", "maven:3.9"), ("FROM ", "temurin:17"), ("modelSize", "base.en"), ("port", "80")]
    after = [("FROM ", "maven:3.9"), ("FROM ", "temurin:21"), ("modelSize", "small.en"), ("port", "80")]
    assert data_leaves.changed(before, after) == {"modelSize": "base.en"}


def test_deep_nesting_and_long_lines_give_nothing_or_their_settings_without_failing() -> None:
    assert data_leaves.leaves("a.json", "[" * 1000) == []  # RecursionError is caught, as a parse error
    assert data_leaves.leaves("a.toml", "a = " + "[" * 1000) == []
    assert data_leaves.leaves("a.json", "/* " * 2000) == []  # unclosed comments: one pass, nothing left
    assert data_leaves.leaves("a.yaml", "a" + " " * 40000 + "b\nkey: value\n") == [("key", "value")]
    assert data_leaves.leaves("a.json", '{"msg": "a, }", "b": 1,}') == [("msg", "a, }"), ("b", "1")]  # strings kept


def test_secrets_are_hidden_in_lists_block_scalars_and_dockerfile_assignments() -> None:
    compose = ("services:\n  db:\n    environment:\n      - POSTGRES_PASSWORD=hunter2\n      - POSTGRES_DB=app\n"
               "    password: >\n      hunter2\n    note: 'hello #world'\n    color: \"#ddddff\" # a colour\n")
    found = dict(data_leaves.leaves("compose.yml", compose))
    assert found == {"services.db.environment": "[POSTGRES_PASSWORD=…, POSTGRES_DB=app]",
                     "services.db.password": "…", "services.db.note": "hello #world", "services.db.color": "#ddddff"}
    docker = data_leaves.leaves("Dockerfile", "FROM x\nENV API_KEY=sk-abc123 PORT=80\nARG GITHUB_TOKEN=ghp_x\n"
                                              "ENV SECRET_KEY value\n")
    assert [v for _, v in docker[1:]] == ["API_KEY=… PORT=80", "GITHUB_TOKEN=…", "SECRET_KEY …"]
    assert dict(data_leaves.leaves("a.json", '{"api_keys": ["sk-abc"], "max_tokens": 5}')) == \
        {"api_keys": "[…]", "max_tokens": "5"}  # a count named like a token is no secret
    assert data_leaves.kind_of("docs/Dockerfile.md") is None and data_leaves.kind_of("Dockerfile.dev") == "dockerfile"
    assert data_leaves.render([("a_long_key", "a_long_value")], 10) == "1 settings"


def test_a_value_or_key_holding_a_newline_stays_on_one_line() -> None:
    """A string with a newline would end the record's line and open a heading of the file's choosing."""
    assert data_leaves.leaves("a.json", r'{"note": "line one\n# evil heading", "k\nx": 1}') == \
        [("note", "line one # evil heading"), ("k x", "1")]
    assert data_leaves.leaves("a.toml", 'note = """a\n## b"""') == [("note", "a ## b")]
