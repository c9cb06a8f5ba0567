"""Core-file classes and the "five most recently modified core files" ranking (seed 003 §3.3).

Classification is by path and name only (no file reads), so a 10,000-file tree classifies in a
few milliseconds; the one exception, package.json "main"/"bin"/"start" targets, is resolved by
the workspace index, which reads those few manifests. Rules cover Python (Django, Flask,
FastAPI, plain packages), JS/TS (Node, Express, Next.js app and pages routers), Go, Rust, Java
(Spring, Maven, Gradle) and Ruby on Rails; `Settings.restore.core_globs` overrides them.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterable, Mapping
from enum import StrEnum

from restore.globs import glob_regex


class CoreClass(StrEnum):
    ENTRY = "entry"
    ROUTER = "router"
    BUSINESS = "business"
    MODEL = "model"
    TEST_CONFIG = "test_config"
    ARCHITECTURE = "architecture"  # listed apart; never one of the five


# entry point > router > core business logic > data model > test configuration (seed §3.3)
CLASS_ORDER: dict[CoreClass, int] = {
    CoreClass.ENTRY: 0,
    CoreClass.ROUTER: 1,
    CoreClass.BUSINESS: 2,
    CoreClass.MODEL: 3,
    CoreClass.TEST_CONFIG: 4,
    CoreClass.ARCHITECTURE: 5,
}
RANKED_CLASSES = frozenset(c for c in CoreClass if c is not CoreClass.ARCHITECTURE)

LABELS = {
    "en": {
        CoreClass.ENTRY: "entry point",
        CoreClass.ROUTER: "router",
        CoreClass.BUSINESS: "core business logic",
        CoreClass.MODEL: "data model",
        CoreClass.TEST_CONFIG: "test configuration",
        CoreClass.ARCHITECTURE: "architecture document",
    },
    "zh": {
        CoreClass.ENTRY: "主应用入口",
        CoreClass.ROUTER: "路由配置",
        CoreClass.BUSINESS: "核心业务逻辑",
        CoreClass.MODEL: "数据库模型",
        CoreClass.TEST_CONFIG: "测试配置",
        CoreClass.ARCHITECTURE: "架构设计文档",
    },
}

SOURCE_EXTS = frozenset(
    ".py .pyi .js .jsx .ts .tsx .mjs .cjs .mts .cts .go .rs .java .kt .kts .scala .groovy .rb .php .cs "
    ".c .cc .cpp .cxx .h .hpp .swift .ex .exs .erl .clj .vue .svelte .dart .lua .sql .prisma".split()
)
JS_EXTS = frozenset(".js .jsx .ts .tsx .mjs .cjs .mts .cts".split())

# folders whose files are never core business logic by default
_NON_CORE_DIRS = frozenset(
    "docs doc examples example samples sample public static assets vendor third_party fixtures testdata "
    "test tests __tests__ spec specs e2e benchmarks bench scripts tools".split()
)
_TEST_DIRS = frozenset("test tests __tests__ spec specs e2e".split())

_TEST_CONFIG_NAMES = frozenset(
    "pytest.ini conftest.py tox.ini noxfile.py .coveragerc karma.conf.js .rspec phpunit.xml phpunit.xml.dist "
    ".mocharc.js .mocharc.json .mocharc.yml .mocharc.yaml .mocharc.cjs spec_helper.rb rails_helper.rb "
    "test_helper.rb setuptests.ts setuptests.js jest.setup.js jest.setup.ts vitest.setup.ts".split()
)
_TEST_CONFIG_PREFIXES = ("jest.config.", "vitest.config.", "vitest.workspace.", "playwright.config.",
                         "cypress.config.", "karma.conf.", "wdio.conf.", "jest.preset.")

_ENTRY_NAMES = frozenset(
    "__main__.py manage.py wsgi.py asgi.py main.py app.py run.py main.go config.ru main.rs "
    "server.js server.ts server.mjs app.js app.ts app.mjs index.js index.ts index.mjs main.js main.ts "
    "main.tsx main.jsx index.tsx index.jsx".split()
)
# JS names that are entries only at the package root or in src/
_JS_ROOT_ENTRY = frozenset("server.js server.ts server.mjs app.js app.ts app.mjs index.js index.ts index.mjs "
                           "main.js main.ts main.tsx main.jsx index.tsx index.jsx".split())
_JAVA_ENTRY = re.compile(r"(?:\w+Application|Main|App)\.(?:java|kt)\Z")
_ROUTER_NAMES = frozenset(
    "urls.py routes.py routers.py router.py routing.py routes.go router.go routes.rs router.rs "
    "routes.js routes.ts router.js router.ts routes.rb middleware.ts middleware.js".split()
)
_ROUTER_DIRS = frozenset("routes router routers urls".split())
_JAVA_ROUTER = re.compile(r"\w+(?:Controller|Resource|Router|Routes|Endpoint)\.(?:java|kt)\Z")
_NEXT_ROUTE = re.compile(r"(?:\A|/)(?:src/)?app/(?:.+/)?(?:route|page)\.(?:ts|tsx|js|jsx)\Z")
_NEXT_ROOT = re.compile(r"(?:\A|/)(?:src/)?(?:app/layout|pages/_app|pages/_document)\.(?:ts|tsx|js|jsx)\Z")
_NEXT_PAGES = re.compile(r"(?:\A|/)(?:src/)?pages/.+\.(?:ts|tsx|js|jsx)\Z")

_MODEL_NAMES = frozenset(
    "models.py model.py schema.prisma schema.rb schema.sql models.go model.go schema.rs schema.ts "
    "schema.js schema.graphql entities.py tables.py structure.sql".split()
)
_MODEL_DIRS = frozenset("models model entities entity migrations migrate schemas alembic".split())
_MODEL_SUFFIX = re.compile(
    r"(?:\w+(?:Entity|Repository|Model|Dao|DAO)\.(?:java|kt)|[\w-]+\.(?:entity|model|schema)\.(?:ts|js))\Z"
)

_BUSINESS_NAMES = frozenset(
    "views.py services.py service.py handlers.py handler.py tasks.py serializers.py forms.py logic.py "
    "api.py crud.py dependencies.py service.go handler.go handlers.go lib.rs".split()
)
_BUSINESS_DIRS = frozenset(
    "services service controllers handlers handler usecases usecase domain core logic internal pkg "
    "jobs workers interactors commands queries api".split()
)
_BUSINESS_SUFFIX = re.compile(
    r"(?:\w+(?:Service|ServiceImpl|Handler|UseCase|Manager)\.(?:java|kt)|[\w-]+\.(?:service|controller|handler)"
    r"\.(?:ts|js))\Z"
)

_TEST_FILE = re.compile(
    r"(?:\Atest_.*\.py|\Atests?\.py|.*_test\.(?:py|go|rb)|.*_spec\.rb|.*\.(?:test|spec)\.(?:[cm]?[jt]sx?)|.*Tests?\.(?:java|kt))\Z"
)

_ARCH_ROOT = frozenset(
    "architecture.md design.md readme.md readme.rst readme.txt readme adr.md agents.md claude.md".split()
)
_DOC_EXTS = frozenset((".md", ".rst", ".txt", ".adoc"))
_ARCH_ANY = frozenset("architecture.md design.md".split())


def _is_arch(rel: str, lower_name: str, parts: list[str]) -> bool:
    if lower_name in _ARCH_ANY:
        return True
    if len(parts) == 1 and lower_name in _ARCH_ROOT:
        return True
    if not lower_name.endswith((".md", ".rst", ".txt", ".adoc")):
        return False
    low = rel.lower()
    if "/adr/" in "/" + low or "/adrs/" in "/" + low or "/decisions/" in "/" + low:
        return True
    return len(parts) == 2 and parts[0].lower() in ("docs", "doc") and (
        lower_name.startswith(("architecture", "design", "overview", "readme"))
    )


def classify(rel: str) -> CoreClass | None:
    """The built-in class of a workspace-relative POSIX path, or None when it is not core."""
    parts = rel.split("/")
    name = parts[-1]
    lower = name.lower()
    dot = lower.rfind(".")
    ext = lower[dot:] if dot > 0 else ""
    dirs = parts[:-1]

    if (not ext or ext in _DOC_EXTS) and _is_arch(rel, lower, parts):
        return CoreClass.ARCHITECTURE
    if lower in _TEST_CONFIG_NAMES or lower.startswith(_TEST_CONFIG_PREFIXES):
        return CoreClass.TEST_CONFIG
    if ext not in SOURCE_EXTS:
        # bin/www-style targets come from package.json (see the workspace index)
        return CoreClass.ENTRY if lower == "config.ru" else None
    if ext == ".pyi" or lower.endswith(".d.ts"):
        return None
    lower_dirs = [d.lower() for d in dirs]
    dirset = set(lower_dirs)
    if _TEST_FILE.match(name) or not dirset.isdisjoint(_TEST_DIRS) or "src/test/" in rel:
        return None
    js = ext in JS_EXTS
    jvm = ext in (".java", ".kt")
    next_like = js and ("app/" in rel or "pages/" in rel)

    # --- entry points
    if next_like and _NEXT_ROOT.search(rel):
        return CoreClass.ENTRY
    if lower in _ENTRY_NAMES:
        if js and lower in _JS_ROOT_ENTRY:
            if len(dirs) == 0 or lower_dirs[-1] in ("src", "server", "bin"):
                return CoreClass.ENTRY
        elif lower == "main.rs":
            if lower_dirs[-1:] == ["src"]:
                return CoreClass.ENTRY
        elif lower in ("app.py", "run.py"):
            if len(dirs) <= 2:
                return CoreClass.ENTRY
        else:
            return CoreClass.ENTRY
    if ext == ".rs" and lower_dirs[-2:] == ["src", "bin"]:
        return CoreClass.ENTRY
    if lower == "application.rb" and lower_dirs[-1:] == ["config"]:
        return CoreClass.ENTRY
    if jvm and _JAVA_ENTRY.match(name):
        return CoreClass.ENTRY

    # --- routers
    if lower in _ROUTER_NAMES or (next_like and _NEXT_ROUTE.search(rel)) or (jvm and _JAVA_ROUTER.match(name)):
        return CoreClass.ROUTER
    if lower_dirs[-2:] == ["config", "routes"]:
        return CoreClass.ROUTER
    if not dirset.isdisjoint(_ROUTER_DIRS) and lower != "__init__.py":
        return CoreClass.ROUTER
    if next_like and _NEXT_PAGES.search(rel):
        return CoreClass.ROUTER

    # --- data models
    if lower in _MODEL_NAMES or ((js or jvm) and _MODEL_SUFFIX.match(name)):
        return CoreClass.MODEL
    if not dirset.isdisjoint(_MODEL_DIRS) and lower != "__init__.py":
        return CoreClass.MODEL
    if ext == ".prisma" or ext == ".sql":
        return CoreClass.MODEL

    # --- core business logic: named places first, then any other source file of the project
    if lower in _BUSINESS_NAMES or ((js or jvm) and _BUSINESS_SUFFIX.match(name)):
        return CoreClass.BUSINESS
    if lower == "__init__.py":
        return None
    if not dirset.isdisjoint(_NON_CORE_DIRS):
        return None
    if ".config." in lower or lower.startswith(("eslint.", "prettier.", "babel.", "webpack.", "rollup.",
                                                  "vite.", "postcss.", "tailwind.", "next.config", "setup.py")):
        return None
    return CoreClass.BUSINESS


class Classifier:
    """Built-in rules plus the configured globs (`{"entry": ["src/boot.py"], "none": ["gen/**"]}`).

    A glob class of "none" (or "exclude") removes matching files from every class."""

    def __init__(self, core_globs: Mapping[str, Iterable[str]] | None = None) -> None:
        self.overrides: list[tuple[re.Pattern[str], CoreClass | None]] = []
        for cls_name, globs in (core_globs or {}).items():
            key = cls_name.strip().lower().replace("-", "_").replace(" ", "_")
            aliases = {"test": "test_config", "testconfig": "test_config", "arch": "architecture",
                       "doc": "architecture", "docs": "architecture", "models": "model", "routes": "router",
                       "business_logic": "business", "logic": "business"}
            key = aliases.get(key, key)
            if key in ("none", "exclude", "ignore"):
                target: CoreClass | None = None
            else:
                try:
                    target = CoreClass(key)
                except ValueError:
                    raise ValueError(f"restore.coreGlobs: unknown class {cls_name!r}; "
                                     f"use one of {[c.value for c in CoreClass] + ['none']}") from None
            for g in globs:
                self.overrides.append((glob_regex(g), target))
        self._cache: dict[str, CoreClass | None] = {}

    def __call__(self, rel: str) -> CoreClass | None:
        for regex, target in self.overrides:
            if regex.match(rel):
                return target
        return classify(rel)

    def overridden(self, rel: str) -> bool:
        return any(regex.match(rel) for regex, _ in self.overrides)


def package_json_targets(text: str, folder: str) -> list[str]:
    """Workspace-relative candidate paths of a package.json's "main", "bin" and `node X` start script.

    Candidates include the bare name and the usual extensions; the index keeps those that exist."""
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, ValueError):
        return []
    if not isinstance(data, dict):
        return []
    raw: list[str] = []
    if isinstance(data.get("main"), str):
        raw.append(data["main"])
    bin_field = data.get("bin")
    if isinstance(bin_field, str):
        raw.append(bin_field)
    elif isinstance(bin_field, dict):
        raw.extend(v for v in bin_field.values() if isinstance(v, str))
    scripts = data.get("scripts")
    if isinstance(scripts, dict):
        for key in ("start", "serve", "dev"):
            cmd = scripts.get(key)
            if isinstance(cmd, str):
                try:
                    words = shlex.split(cmd)
                except ValueError:
                    continue
                for i, w in enumerate(words[:-1]):
                    if w in ("node", "nodemon", "ts-node", "tsx", "bun", "deno") and not words[i + 1].startswith("-"):
                        raw.append(words[i + 1])
                        break
    out: list[str] = []
    for item in raw:
        p = item.strip()
        while p.startswith("./"):
            p = p[2:]
        if not p or p.startswith(("/", "..")):
            continue
        rel = f"{folder}/{p}" if folder else p
        rel = rel.rstrip("/")
        cands = [rel]
        if "." not in rel.rsplit("/", 1)[-1]:
            cands += [rel + e for e in (".js", ".cjs", ".mjs", ".ts")] + [rel + "/index.js", rel + "/index.ts"]
        out.extend(cands)
    return out


def pick_five(candidates: Iterable[tuple[str, CoreClass, tuple]], n: int = 5) -> list[tuple[str, CoreClass, tuple]]:
    """The n most recent core files (largest recency key), then ordered by class, ties by recency.

    `candidates` yields (path, class, recency key); architecture documents are not candidates."""
    import heapq

    ranked = [c for c in candidates if c[1] in RANKED_CLASSES]
    recent = heapq.nlargest(n, ranked, key=lambda c: (c[2], c[0]))
    # Sort by class; within a class the most recent first (path breaks exact ties deterministically)
    recent.sort(key=lambda c: c[0])
    recent.sort(key=lambda c: c[2], reverse=True)
    recent.sort(key=lambda c: CLASS_ORDER[c[1]])
    return recent
