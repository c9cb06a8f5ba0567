"""What a change does, inferred by structure (sources/behaviour.py and the change records that use it):
an entry file's re-exports, a stub's throw, literal values set by name, where added functions are called."""

from __future__ import annotations

from compaction.edits import Hunk
from compaction.events import Event, EventKind
from compaction.history.facts import Fact
from compaction.history.sections import Section
from compaction.history.sources import behaviour
from compaction.history.sources.changes import change_record
from compaction.history.sources.modified import with_changes


def test_reexports_throws_values():
    lines = ["export * from './validators/index.js';", "export { a, b } from \"./schemas/index.js\";",
             "export function dag() {", "  throw new Error('dag not yet implemented');", "}",
             "const totalDuration = 1200;", "let i = 0;", "osc.type = 'square';", "BASE = 0.4", "x == 3"]
    assert behaviour.reexports(lines) == ["./validators/index.js", "./schemas/index.js"]
    assert behaviour.throws(lines) == ["Error('dag not yet implemented')"]
    assert behaviour.values(lines, {"BASE"}) == ["totalDuration = 1200", "osc.type = 'square'"]
    assert behaviour.throws(["    raise NotImplementedError"]) == ["NotImplementedError"]


def test_callers_grouped_by_enclosing_definition():
    lines = ["function playTick(p) {", "  osc.start();", "}", "function tick(now) {", "  playTick(now);",
             "  if (done) playLand();", "}", "function playLand() {", "}"]
    assert behaviour.callers(lines, ["playTick", "playLand"]) == ["playTick, playLand called in tick"]


def _write(path: str, text: str, rnd: int) -> Event:
    return Event(EventKind.WRITE, rnd, 0, path=path, hunks=(Hunk(added=tuple(text.splitlines())),), whole=True)


def test_record_says_what_a_created_file_does():
    e = _write("dist/dag.js", "export function dag() {\n  throw new Error('dag not yet implemented');\n}\n", 3)
    f = change_record("dist/dag.js", [e])
    assert f is not None and "throws Error('dag not yet implemented')" in f.text


def test_with_changes_names_each_file_once():
    m1 = Fact(Section.MODIFIED, "`a.js`: created (r3)", [3], path="a.js")
    m2 = Fact(Section.MODIFIED, "`b.js`: edited (r4)", [4], path="b.js")
    rec = Fact(Section.CHANGES, "`a.js` (created): defines f (r3)\n  + detail", [3], path="a.js")
    mods, left = with_changes([m1, m2], [rec])
    assert [m.text for m in mods] == ["`a.js` (created): defines f (r3)\n  + detail", "`b.js`: edited (r4)"]
    assert left == [] and m1.text == "`a.js`: created (r3)"  # the chosen facts themselves unchanged


def test_signature_keyword_dropped():
    e = Event(EventKind.EDIT, 5, 0, path="u.ts", hunks=(Hunk(
        removed=("export async function* gen<T>(xs: T[]) {",), added=("export function* gen<T>(xs: T[]) {",)),))
    assert behaviour.signature_changes([e]) == ["gen signature: − async"]


def test_a_value_set_then_stepped_by_literals_says_its_steps():
    """A score's rules are its steps: `rule_score = 50`, then `+= 15`, `+= 5`, `-= 10` on conditions."""
    from compaction.history.sources.behaviour import values

    lines = ["    rule_score = 50  # base", "    if cand >= req:", "        rule_score += 15", "    elif cand >= req - 2:",
             "        rule_score += 5", "    else:", "        rule_score -= 10", "    for x in xs:", "        i += 1",
             "TIMEOUT = 30"]
    assert values(lines) == ["rule_score = 50 (+= 15, += 5, -= 10)", "TIMEOUT = 30"]


def test_a_configuration_without_definitions_says_the_lines_that_set_its_values():
    """nginx, a Dockerfile, a POM define nothing: their gist is the lines that hold a URL, a path, an image with
    its tag, a version (a URL first), not their first line (`server {`, `<?xml …?>`)."""
    from compaction.edits import digest, valued_lines

    nginx = ["server {", "    listen 80;", "    server_name localhost;", "    root /usr/share/nginx/html;",
             "    index index.html;", "    gzip on;", "    location /api/ {", "        proxy_pass http://backend:8080;",
             "        proxy_set_header Host $host;", "    }", "}"]
    assert valued_lines(nginx)[:2] == ("proxy_pass http://backend:8080", "root /usr/share/nginx/html")
    pom = ['<?xml version="1.0" encoding="UTF-8"?>', '<project xmlns="http://maven.apache.org/POM/4.0.0">',
           "  <modelVersion>4.0.0</modelVersion>", "  <version>3.2.3</version>",
           "  <sourceDirectory>../backend/src/main/java</sourceDirectory>", "</project>"]
    assert valued_lines(pom) == ("<sourceDirectory>../backend/src/main/java</sourceDirectory>", "<version>3.2.3</version>")
    assert digest(nginx).settings[0] == "proxy_pass http://backend:8080"
    assert digest(["def f():", "    return 'http://x.org/a'"]).settings == ()  # code: its definitions say it
    ignore = ["# Logs", "logs", "*.log", "build/Release", ".vuepress/dist", ".yarn/cache", "node_modules/", "dist/"]
    assert valued_lines(ignore) == ()  # an ignore list's patterns set nothing
    assert valued_lines(["{", '  "compilerOptions": {', "    /* Bundler mode */", '    "outDir": "./dist",', "  }"]) == \
        ('"outDir": "./dist",',)  # a comment is none


def test_an_object_literal_of_numbers_set_by_name_is_a_value():
    """codex-rtchess: `state.cooldowns[move.to] = { until: now + 10000, duration: 10000 }` was the answer to
    "how are cooldowns set"; only `name = literal` had been read."""
    from compaction.history.sources.behaviour import values

    said = values(["  state.cooldowns[move.to] = { until: now + 10000, duration: 10000 };",
                   "const opts = { retries: 3 };", "const style = { color: red };", "users[id] = { age: 42 };"])
    assert said == ["opts = { retries: 3 }", "state.cooldowns[move.to] = { until: now + 10000, duration: 10000 }"]
    assert values(['next.board[61] = "R";', "MATERIAL = { p: 100, n: 320 };", "DEPTH = 3"]) == [
        "DEPTH = 3", "MATERIAL = { p: 100, n: 320 }"]  # an element's content is no setting; scalars first
