#!/usr/bin/env python3
"""Benchmark for `mem recall` on synthetic projects: warm and in-process recall, first sync,
the next recall after an edit and after a write, beside floors measured in the same run
(`python -c pass`, the `sqlite3` shell answering an FTS5 MATCH over the same records) and
the JavaScript reference when it is present.

Run with the venv's python so the in-process import matches the `mem` executable:
    python bench/run.py [--sizes 10000,200000] [--repeat N] [--mem PATH]
    python bench/run.py --large            # adds a 1,000,000-note first sync (minutes)
    python bench/run.py --generate-only DIR [--sizes 1000]
    python bench/run.py --import-check
The JavaScript reference runs when `node` is on PATH and MEM_REFERENCE names its CLI script
(`node $MEM_REFERENCE mem recall ...`). Stdlib only; `mem`'s API only through mem_api.py.
A report, not a test: it exits 0. `make bench-compare` (compare.py) sets the figures against
another commit's.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import math
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

MEM_NOW = "2026-10-18T09:30:00.000Z"
# The pre-edit hook's file: a module named by a common word of the notes (`pooling`), and
# the notes that govern it, appended after every other figure is taken.
PRE_EDIT_MODULE = "pooling"
PRE_EDIT_NOTES = """
### 2026-10-17 — Pool sizes live in src/pooling.py
- **Decision**: `src/pooling.py` is the one place that sizes connection pools; callers ask
  `pool_budget()` instead of reading the settings.

### 2026-10-17 — pool_budget caps every pool
- **Decision**: `pool_budget()` never returns more than 20 connections per worker.
"""
JOURNAL_LIMIT = 2 * 1024 * 1024
# Room for the events the bench itself appends, so the journal never crosses the limit.
JOURNAL_HEADROOM = 64 * 1024
OUT_DIR = Path(__file__).resolve().parent / "out"

NOTE_FILES = [  # (path, share of notes, title)
    (".agents/memory/decisions.md", 0.25, "Decisions"),
    (".agents/memory/lessons.md", 0.15, "Lessons"),
    (".agents/memory/patterns.md", 0.10, "Patterns"),
    (".bmad/memory/decisions.md", 0.25, "Decisions"),
    (".bmad/memory/lessons.md", 0.15, "Lessons"),
    (".bmad/memory/patterns.md", 0.10, "Patterns"),
]
JOURNAL = ".bmad/memory/journal.ndjson"

FUNCTION_WORDS = "the to for in on with when and of is not from by after".split()
REAL_WORDS = list(
    dict.fromkeys(
        """
postgres cache api test build deploy config docker migration schema index query auth token
session retry timeout logging error service client server connection pooling pipeline release
branch merge review lint ci worker queue kafka redis nginx kubernetes helm terraform aws s3
lambda gateway proxy tls certificate dns latency throughput memory cpu disk backup restore
replica shard transaction lock deadlock mutex thread async await promise callback event handler
router middleware controller view template component state store reducer hook render bundle
webpack vite typescript python rust golang node npm pnpm yarn poetry pip venv pytest jest vitest
playwright cypress fixture mock stub snapshot coverage benchmark profiler flamegraph trace span
metric prometheus grafana alert oncall incident rollback canary feature flag rollout sqlite fts5
tokenizer ranking bm25 embedding vector search recall journal ndjson markdown heading parser
lexer ast compiler codegen plugin extension cli pgbouncer pgvector timescale clickhouse
elasticsearch opensearch mongo dynamodb cassandra etcd consul vault secret oauth oidc jwt saml
csrf cors xss sanitizer validation pydantic fastapi django flask rails spring graphql grpc
protobuf openapi swagger rest websocket sse polling debounce throttle ratelimit backoff jitter
idempotency checksum hash xxhash sha256 uuid ulid timestamp timezone utc cron scheduler celery
sidekiq airflow dag etl warehouse parquet arrow pandas polars numpy notebook jupyter dataset
tensor cuda gpu onnx quantization inference prompt agent llm context window chunk overlap dedupe
compaction vacuum wal fsync mmap inode symlink permission chmod umask container image registry
layer alpine distroless musl glibc linker cmake bazel makefile monorepo workspace submodule
rebase bisect hotfix changelog semver tag artifact sbom signing cosign provenance dependabot
renovate lockfile vendoring wheel sdist manylinux pyproject setuptools hatch ruff mypy pyright
black isort eslint prettier biome storybook tailwind css flexbox grid a11y aria i18n locale
unicode utf8 emoji normalization casefold regex glob gitignore watcher inotify fsevents sharding
partition vacuuming upsert trigger view materialized cursor pagination offset keyset serializer
encoder decoder codec gzip zstd brotli tarball checksum manifest lease heartbeat leader election
raft quorum consensus
""".split()
    )
)
# A bug report in a user's words: 48 terms, 32 of them the vocabulary's (each held by
# hundreds of notes), the kind of prompt whose search reads the most (issue 33).
LONG_PROMPT = (
    "Since the last release the api gateway times out under load: requests through the nginx "
    "proxy to the postgres replica hang for thirty seconds, then the client retries with "
    "backoff and the connection pooling in pgbouncer runs out of slots. I checked the logging, "
    "the metric dashboards in grafana and the trace spans; the deadlock shows up only when the "
    "celery worker and the cron scheduler write to the same table. Rolling back the migration "
    "fixes it. Running on kubernetes with helm, python 3.11, docker images on alpine."
)
TITLES = [
    "Use {} for {} {}",
    "Prefer {} over {}",
    "Avoid {} in {} {}",
    "Pin {} to stop {} {}",
    "Move {} {} behind {}",
    "Cache {} results in {}",
    "Retry {} on {} timeout",
    "{} {} breaks {}",
    "Split {} from {} {}",
    "Run {} before {}",
    "Keep {} out of {}",
    "Batch {} writes to {}",
]
VERBS = "refactor fix add migrate investigate document review bump remove tune trace".split()
AGENTS = ["forge", "scout", "atlas", "quill", "sentinel", "architect", "dev"]
CLIS = [
    ("claude-code", "claude"),
    ("codex", "gpt-5"),
    ("gemini-cli", "gemini"),
    ("cursor", "claude"),
]
OUTCOMES = ["success", "failure", "partial", "abandoned", None]
OUTCOME_WEIGHTS = [60, 10, 12, 5, 13]


def build_vocab(rng: random.Random, size: int = 3000) -> list[str]:
    """Function words, then real tech words, then pronounceable made-up ones (the rare tail)."""
    vocab = FUNCTION_WORDS + [w for w in REAL_WORDS if w not in FUNCTION_WORDS]
    seen = set(vocab)
    onsets = "b c d f g k l m n p r s t v z br kr st tr pl gl".split()
    vowels, codas = "aeiou", ["", "n", "r", "x", "l"]
    while len(vocab) < size:
        word = "".join(
            rng.choice(onsets) + rng.choice(vowels) + rng.choice(codas)
            for _ in range(rng.randint(2, 3))
        )
        if word not in seen:
            seen.add(word)
            vocab.append(word)
    return vocab


class Zipf:
    def __init__(self, words: list[str], s: float = 1.07):
        self.words = words
        self.cum = list(itertools.accumulate(1 / (r**s) for r in range(1, len(words) + 1)))

    def draw(self, rng: random.Random, k: int) -> list[str]:
        return rng.choices(self.words, cum_weights=self.cum, k=k)


def events_for(n_notes: int) -> int:
    return 5000 if n_notes <= 1000 else 6000 if n_notes <= 10000 else 8000


def pick_queries(vocab: list[str]) -> list[str]:
    """The query classes, in QUERY_CLASSES order: rare id, mid words, "the", 5-word mix."""
    return [vocab[2500], "connection pooling", "the", f"the postgres cache pgbouncer {vocab[2000]}"]


# The hooks' rows of the report: (key in the results, what the row names).
HOOK_ROWS = (
    ("session-start", "session-start` (the brief, Claude Code)"),
    ("prompt", "prompt` (a short question's matches)"),
    ("prompt-long", "prompt`, a long bug report (48 terms)"),
    ("pre-edit", "pre-edit` (Claude Code Edit of a file two notes govern)"),
)
QUERY_CLASSES = ["rare id", "2-3 mid words", '"the"', "5-word mix"]


def event_line(ts: str, agent: str, cli: str, model: str, task: str, outcome: str | None) -> str:
    ident = hashlib.sha256(f"{ts}\0{agent}\0{task}".encode()).hexdigest()[:12]
    ev = {
        "ts": ts,
        "agent": agent,
        "cli": cli,
        "model": model,
        "task": task,
        "outcome": outcome,
        "signals": {},
        "artifactHashes": [],
        "id": ident,
    }
    return json.dumps(ev, separators=(",", ":"), ensure_ascii=False) + "\n"


def iso_ms(dt: datetime) -> str:
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}Z"


def generate(root: Path, n_notes: int, seed: int = 42) -> dict:
    """Write a synthetic project under root; return what was written (verified by re-reading)."""
    rng = random.Random(seed)
    vocab = build_vocab(rng)
    body_words, title_words = Zipf(vocab), Zipf(vocab[len(FUNCTION_WORDS) :])
    counts = [int(n_notes * share) for _, share, _ in NOTE_FILES]
    counts[0] += n_notes - sum(counts)
    first, span = date(2025, 1, 1), (date(2026, 10, 17) - date(2025, 1, 1)).days

    for (rel, _, title), count in zip(NOTE_FILES, counts, strict=True):
        out = [
            f"# {title}\n",
            "\n",
            f"{title} recorded by agents for this project, oldest first.\n",
        ]
        for i in range(count):
            day = first + timedelta(days=i * span // max(count, 1))
            slots = []
            while len(slots) < 3:  # distinct, so no "Prefer postgres over postgres"
                slots += [w for w in title_words.draw(rng, 1) if w not in slots]
            heading = rng.choice(TITLES).format(*slots)
            out += ["\n", f"### {day.isoformat()} — {heading[0].upper()}{heading[1:]}\n"]
            for _ in range(rng.randint(1, 4)):
                words = [
                    f"`{w}`" if rng.random() < 0.04 and w not in FUNCTION_WORDS else w
                    for w in body_words.draw(rng, rng.randint(5, 16))
                ]
                line = " ".join(words)
                line = line[0].upper() + line[1:] + "."
                out.append(("- " if rng.random() < 0.2 else "") + line + "\n")
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(out), encoding="utf-8")

    n_events = events_for(n_notes)
    # Cap each task so even the longest event lines keep the journal under the limit.
    task_budget = (JOURNAL_LIMIT - JOURNAL_HEADROOM) // n_events - len(
        event_line(
            "2026-10-01T08:00:00.000Z", "architect", "claude-code", "claude", "", "abandoned"
        )
    )
    ts = datetime(2026, 10, 1, 8, 0, 0, tzinfo=UTC)
    lines = []
    for i in range(n_events):
        if i:
            ts += timedelta(seconds=rng.randint(1, 150), milliseconds=rng.randint(0, 999))
        task = " ".join([rng.choice(VERBS)] + title_words.draw(rng, rng.randint(2, 6)))
        while len(task.encode()) > task_budget:
            task = task.rsplit(" ", 1)[0]
        cli, model = rng.choice(CLIS)
        outcome = rng.choices(OUTCOMES, weights=OUTCOME_WEIGHTS)[0]
        lines.append(event_line(iso_ms(ts), rng.choice(AGENTS), cli, model, task, outcome))
    (root / JOURNAL).write_text("".join(lines), encoding="utf-8")
    return verify(root, n_notes, n_events, pick_queries(vocab))


def verify(root: Path, n_notes: int, n_events: int, queries: list[str]) -> dict:
    files, sections, bodies = {}, 0, []
    for rel, _, _ in NOTE_FILES:
        text = (root / rel).read_text(encoding="utf-8")
        n = sum(line.startswith("### ") for line in text.splitlines())
        files[rel] = {"bytes": len((root / rel).read_bytes()), "sections": n}
        sections += n
        bodies += [s.lower() for s in text.split("\n### ")[1:]]
    if sections != n_notes:
        sys.exit(f"generator bug: {sections} '### ' sections, expected {n_notes}")

    raw = (root / JOURNAL).read_bytes()
    jlines = raw.decode().splitlines()
    keys = ["ts", "agent", "cli", "model", "task", "outcome", "signals", "artifactHashes", "id"]
    prev = ""
    for line in jlines:
        ev = json.loads(line)
        ident = hashlib.sha256(f"{ev['ts']}\0{ev['agent']}\0{ev['task']}".encode()).hexdigest()[:12]
        if list(ev) != keys or ev["id"] != ident or ev["ts"] <= prev:
            sys.exit(f"generator bug: bad journal line {line!r}")
        prev = ev["ts"]
    if len(jlines) != n_events or not raw.endswith(b"\n") or len(raw) >= JOURNAL_LIMIT:
        sys.exit(f"generator bug: journal has {len(jlines)} lines, {len(raw)} bytes")
    files[JOURNAL] = {"bytes": len(raw), "events": len(jlines)}

    # Sections containing every query word: shows that the queries span common to rare.
    tokens = [set(re.findall(r"[a-z0-9]+", b)) for b in bodies]
    hits = {q: sum(set(q.split()) <= t for t in tokens) for q in queries}
    return {
        "notes": sections,
        "events": len(jlines),
        "files": files,
        "queries": queries,
        "query_hits": hits,
    }


# ---------------------------------------------------------------- timing

_reported: set[str] = set()


def report_failure(label: str, detail: str) -> None:
    if label in _reported:
        return
    _reported.add(label)
    tail = "\n".join(detail.strip().splitlines()[-15:]) or "(no stderr)"
    print(f"  ! {label} failed:\n    " + tail.replace("\n", "\n    "))


_last_cpu_ms: list[float] = [0.0]


def run_measured(
    label: str, cmd: list[str], env: dict, cwd: Path | None = None
) -> tuple[float | None, float | None]:
    """Wall ms and peak RSS (MiB) of one process, through wait4 (its CPU ms in _last_cpu_ms)."""
    t0 = time.perf_counter()
    try:
        proc = subprocess.Popen(
            cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
    except OSError as exc:
        report_failure(label, repr(exc))
        return None, None
    _, status, usage = os.wait4(proc.pid, 0)
    ms = (time.perf_counter() - t0) * 1000
    _last_cpu_ms[0] = (usage.ru_utime + usage.ru_stime) * 1000
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    if status != 0:
        report_failure(label, f"status {status}\n{err}")
        return None, None
    return ms, usage.ru_maxrss / 1024


def hooks_beside_floor(env: dict, series: dict[str, tuple[list[str], list[bytes], bool]]) -> dict:
    """Wall ms of `mem hook` processes, each fed its host's JSON on stdin (with `answers`,
    each must answer: a prompt that matches nothing is answered with nothing), and of the
    floor `python -S -c "import sqlite3"`, taking turns (a floor, then one run of each hook)
    so that all meet the same load: {label: stats, "floor": stats}. The first round is not
    counted: it builds what the index builds on its first such read (bm25)."""
    floor_cmd = [sys.executable, "-S", "-c", "import sqlite3"]
    samples: dict[str, list[float]] = {label: [] for label in [*series, "floor"]}
    rounds = min(len(payloads) for _, payloads, _ in series.values())
    for turn in range(rounds):
        t0 = time.perf_counter()
        subprocess.run(floor_cmd, env=env, capture_output=True, check=True)
        if turn:
            samples["floor"].append((time.perf_counter() - t0) * 1000)
        for label, (cmd, payloads, answers) in series.items():
            t0 = time.perf_counter()
            done = subprocess.run(
                cmd, env=env, input=payloads[turn], capture_output=True, check=False
            )
            if turn:
                samples[label].append((time.perf_counter() - t0) * 1000)
            if done.returncode != 0 or answers and not done.stdout:
                report_failure(" ".join(cmd[1:3]), f"status {done.returncode}, no answer")
                return {}
    return {label: stats(values) for label, values in samples.items()}


def pre_edit_input(root: Path, number: int) -> bytes:
    """An edit of a file that notes name (the bench's notes name `src/<word>.py`): the hook
    reads the notes holding the module's words and injects the governing ones."""
    payload = {
        "session_id": f"bench-edit-{number}",
        "cwd": str(root),
        "hook_event_name": "PreToolUse",
        "tool_name": "Edit",
        "tool_input": {
            "file_path": str(root / "src" / f"{PRE_EDIT_MODULE}.py"),
            "old_string": "pass",
            "new_string": "def pool_budget(size):\n    return min(size, 20)\n",
        },
    }
    return json.dumps(payload).encode()


def stats(samples: list[float] | None) -> dict | None:
    if not samples:
        return None
    ordered = sorted(samples)
    return {
        "median": statistics.median(ordered),
        "min": ordered[0],
        "p95": ordered[min(len(ordered) - 1, math.ceil(0.95 * len(ordered)) - 1)],
        "n": len(ordered),
    }


def repeat_timed(
    label: str, cmd: list[str], env: dict, n: int, cwd: Path | None = None
) -> dict | None:
    samples = []
    for _ in range(n):
        ms, _ = run_measured(label, cmd, env, cwd)
        if ms is None:
            return None
        samples.append(ms)
    return stats(samples)


def recall_samples(
    recall: Callable[[str, str], object], root: str, query: str, rounds: int
) -> list[tuple[float, float]]:
    """(wall ms, CPU ms) of `rounds` calls of an in-process recall (mem_api.open_recall's)."""
    samples = []
    for _ in range(rounds):
        wall, cpu = time.perf_counter(), time.process_time()
        recall(root, query)
        samples.append(((time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000))
    return samples


def child_main(root: str, rounds: int, queries: list[str]) -> None:
    """In-process recall on an open, synced index: per query class, `rounds` calls.

    The index stays open between calls, as `mem mcp` keeps it (every call still checks
    the files first); MEM_BENCH_REOPEN=1 opens and closes it per call instead.
    """
    import mem_api

    recall = mem_api.open_recall(keep_open=not os.environ.get("MEM_BENCH_REOPEN"))
    recall(root, queries[0])  # sync and warm up
    walls = {q: [wall for wall, _ in recall_samples(recall, root, q, rounds)] for q in queries}
    print(json.dumps(walls))


def in_process(env: dict, root: Path, rounds: int, queries: list[str]) -> dict | None:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", str(root), str(rounds)]
    proc = subprocess.run(
        [*cmd, *queries], env=env, capture_output=True, text=True, timeout=3600, check=False
    )
    if proc.returncode != 0:
        report_failure("in-process recall", proc.stderr)
        return None
    samples = json.loads(proc.stdout.strip().splitlines()[-1])
    return {query: stats(values) for query, values in samples.items()} | {
        "all": stats([value for values in samples.values() for value in values])
    }


def index_file(env: dict, mem: str, root: Path) -> str | None:
    proc = subprocess.run(
        [mem, "index", "path", "-d", str(root)], env=env, capture_output=True, text=True
    )
    return proc.stdout.strip() or None


def fts5_floor(
    env: dict, mem: str, root: Path, workdir: Path, queries: list[str], repeat: int
) -> dict | None:
    """The `sqlite3` shell answering an FTS5 MATCH (top 8 by bm25) over the index's records.

    mem's index has no FTS5 table (postings of its own instead), so the shell first copies
    the records into one, once, outside the timing: the floor is SQLite answering alone.
    """
    shell = shutil.which("sqlite3")
    path = index_file(env, mem, root)
    if not shell or not path or not os.path.exists(path):
        return None
    fts = workdir / f"fts5-{root.name}.sqlite"
    if not fts.exists():
        script = (
            f"ATTACH '{path}' AS i;"
            " CREATE VIRTUAL TABLE f USING fts5(text,"
            " tokenize = \"unicode61 remove_diacritics 0 tokenchars '-_'\");"
            " INSERT INTO f (rowid, text) SELECT id, text FROM i.records;"
        )
        subprocess.run([shell, str(fts), script], check=True, capture_output=True)
    result = {}
    for query in queries:
        match = " OR ".join(f'"{word}"' for word in query.split())
        sql = f"SELECT rowid FROM f WHERE f MATCH '{match}' ORDER BY rank LIMIT 8;"
        result[query] = repeat_timed("sqlite3 FTS5 MATCH", [shell, str(fts), sql], env, repeat)
    return result


def reference(env: dict, root: Path, queries: list[str], repeat: int) -> dict | None:
    script = os.environ.get("MEM_REFERENCE")
    node = shutil.which("node")
    if not script or not node or not os.path.exists(script):
        return None
    result = {}
    for query in queries:
        cmd = [node, script, "mem", "recall", *query.split()]
        result[query] = repeat_timed("JavaScript reference", cmd, env, repeat, cwd=root)
    return result


def edit_one_section(path: Path) -> None:
    """Rewrite one section in the middle of a big notes file (same size, so same offsets)."""
    data = path.read_bytes()
    middle = data.index(b"\n### ", len(data) // 2) + 5
    end = data.index(b"\n", middle)
    heading = data[middle:end]
    swapped = heading[::-1] if heading != heading[::-1] else heading + b"!"
    path.write_bytes(data[:middle] + swapped[: len(heading)] + data[end:])


def generate_apart(workdir: Path, n: int) -> dict:
    """Generate in a child process: a child forked from a big parent would report the
    parent's memory as its own peak RSS (Linux counts it until exec)."""
    subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--generate-only", str(workdir)]
        + ["--sizes", str(n)],
        check=True,
        capture_output=True,
    )
    return {
        "notes": n,
        "events": events_for(n),
        "queries": pick_queries(build_vocab(random.Random(42))),
    }


# Generated projects are kept in the user's cache (generating 200,000 notes takes about half
# a minute) and made again when this file changes.
KEEP_DIR = (
    Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "mem-bench" / "projects"
)


def kept_project(n: int, keep: Path = KEEP_DIR) -> tuple[Path, list[str]]:
    """An n-note project generated once under `keep` and reused by later runs, and its query
    classes. Its journal is cut back to the generated events first: the benches append."""
    root, marker = keep / f"project-{n}", keep / f"project-{n}.json"
    generator = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()
    kept = json.loads(marker.read_text()) if marker.exists() else {}
    if kept.get("generator") != generator:
        shutil.rmtree(root, ignore_errors=True)
        keep.mkdir(parents=True, exist_ok=True)
        info = generate_apart(keep, n)
        journal_bytes = (root / JOURNAL).stat().st_size
        kept = {"queries": info["queries"], "journal_bytes": journal_bytes, "generator": generator}
        marker.write_text(json.dumps(kept))
    journal = root / JOURNAL
    if journal.stat().st_size != kept["journal_bytes"]:
        os.truncate(journal, kept["journal_bytes"])
    return root, kept["queries"]


def hook_project(n: int, keep: Path = KEEP_DIR) -> tuple[Path, Path, list[str]]:
    """(project, index cache, query classes): the kept n-note project with the notes of the
    pre-edit hook's file, and its index cache, both kept beside it. The hooks read a warm
    index, as in a session (a 200,000-note index takes minutes to build its bm25 postings,
    which the first hook that needs them would give up on at its deadline): built once."""
    kept, queries = kept_project(n, keep)
    root, cache = keep / f"hooks-{n}", keep / f"hooks-{n}-cache"
    marker = keep / f"hooks-{n}.json"
    source = (keep / f"project-{n}.json").read_text()
    if not marker.exists() or marker.read_text() != source:
        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(cache, ignore_errors=True)
        shutil.copytree(kept, root)
        with (root / NOTE_FILES[2][0]).open("a", encoding="utf-8") as notes:
            notes.write(PRE_EDIT_NOTES)
        marker.write_text(source)
    return root, cache, queries


def bench_size(
    mem: str | None, n: int, workdir: Path, repeat: int, rounds: int, hook_repeat: int
) -> dict:
    root, cache = workdir / f"project-{n}", workdir / f"cache-{n}"
    kept, queries = kept_project(n)
    shutil.copytree(kept, root)  # a copy: the bench edits and appends to it
    env = {**os.environ, "MEM_CACHE_DIR": str(cache), "MEM_NOW": MEM_NOW}
    res: dict = {"notes": n, "events": events_for(n), "queries": queries, "size": n}

    def cmd(*args: str) -> list[str]:
        return [mem, *args, "-d", str(root)]

    if not mem:
        return res
    shutil.rmtree(cache, ignore_errors=True)
    ms, rss = run_measured("first sync", cmd("recall", queries[0]), env)
    res["first_sync"] = {"ms": ms, "rss_mib": rss, "cpu_ms": _last_cpu_ms[0]}
    res["warm"] = {
        query: repeat_timed("warm recall", cmd("recall", *query.split()), env, repeat)
        for query in queries
    }
    res["in_process"] = in_process(env, root, rounds, queries)

    if n <= COLD_HOOK_NOTES:
        res["hook_cold"] = cold_hooks(mem, env, root, workdir / f"cold-{n}", max(3, repeat // 2))
    res["fts5_floor"] = fts5_floor(env, mem, root, workdir, queries, repeat)
    res["reference"] = reference(env, root, queries, max(1, repeat // 3))

    # Next recall after one `mem write` (journal append), each beside a warm recall of the same
    # query taken just before the write: a warm median from minutes earlier moved the
    # difference by 10 ms between runs.
    after_write, warm_before = [], []
    for i in range(max(3, repeat // 2)):
        warm, _ = run_measured("warm recall before mem write", cmd("recall", queries[0]), env)
        wrote, _ = run_measured(
            "mem write", cmd("write", "--agent", "bench", "--task", f"bench event {i}"), env
        )
        ms, _ = run_measured("recall after mem write", cmd("recall", queries[0]), env)
        if warm is None or wrote is None or ms is None:
            break
        warm_before.append(warm)
        after_write.append(ms)
    res["after_write"] = stats(after_write)
    res["warm_before_write"] = stats(warm_before)

    # Next recall after editing one section of the biggest notes file.
    biggest = max((root / rel for rel, _, _ in NOTE_FILES), key=lambda path: path.stat().st_size)
    res["edited_file_notes"] = biggest.read_bytes().count(b"\n### ")
    after_edit, edit_rss = [], []
    for _ in range(3):
        edit_one_section(biggest)
        ms, rss = run_measured("recall after one edited section", cmd("recall", queries[0]), env)
        if ms is None:
            break
        after_edit.append(ms)
        edit_rss.append(rss)
    res["after_edit"] = stats(after_edit)
    res["after_edit_rss_mib"] = max(edit_rss) if edit_rss else None

    # The hooks a host runs (issues 24 and 33): the brief at session start, a prompt's
    # matches (a short question and a long bug report), the notes that govern a file about
    # to change; each in a session of its own so that the per-session filter never empties
    # the answer, in turns with the floor, on a warm index (a bm25 recall builds what the
    # hooks read, once).
    hooks_root, hook_cache, _ = hook_project(n)
    hook_env = {
        **env,
        "MEM_CACHE_DIR": str(hook_cache),
        "MEM_STATE_DIR": str(workdir / f"state-{n}"),
    }
    warm_up = [mem, "recall", "--ranking", "bm25", PRE_EDIT_MODULE, "-d", str(hooks_root)]
    run_measured("bm25 recall before the hooks", warm_up, hook_env)
    prompt = f"How should the {queries[1]} work with postgres and the api?"

    def hook(event: str) -> list[str]:
        return [mem, "hook", event, "--host", "claude-code"]

    runs = range(hook_repeat + 1)  # and the first, uncounted
    res["hooks"] = hooks_beside_floor(
        hook_env,
        {
            "session-start": (
                hook("session-start"),
                [hook_input(hooks_root, f"start-{i}", source="startup") for i in runs],
                True,
            ),
            "prompt": (
                hook("prompt"),
                [hook_input(hooks_root, f"short-{i}", prompt=prompt) for i in runs],
                False,
            ),
            "prompt-long": (
                hook("prompt"),
                [hook_input(hooks_root, f"long-{i}", prompt=LONG_PROMPT) for i in runs],
                False,
            ),
            "pre-edit": (hook("pre-edit"), [pre_edit_input(hooks_root, i) for i in runs], True),
        },
    )
    return res


COLD_HOOK_NOTES = 10_000
# The hooks' deadlines (mem.commands.hook.DEADLINES): past them a hook answers nothing.
HOOK_DEADLINES_S = {"session-start": 20.0, "prompt": 4.0}


def cold_hooks(mem: str, env: dict, root: Path, workdir: Path, runs: int) -> dict:
    """The first hook of a fresh clone (issue 35): the prompt hook and the session start,
    each from an empty cache, whole process, `runs` times each; whether each answered what
    the same hook answers once the index is built (a prompt that names a note's heading),
    or gave up at its deadline. A build the hook left running is waited for between runs."""
    heading = next(
        line[4:]
        for line in (root / NOTE_FILES[0][0]).read_text(encoding="utf-8").splitlines()
        if line.startswith("### ")
    )
    prompt = heading.split(" — ", 1)[-1]
    found: dict = {}
    for event, fields in (("prompt", {"prompt": prompt}), ("session-start", {"source": "startup"})):
        cache, state = workdir / "cache", workdir / "state"
        run_env = {**env, "MEM_CACHE_DIR": str(cache), "MEM_STATE_DIR": str(state)}
        command = [mem, "hook", event, "--host", "claude-code"]
        samples, answered, gave_up = [], 0, 0
        for number in range(runs):
            shutil.rmtree(workdir, ignore_errors=True)
            payload = hook_input(root, number, **fields)
            t0 = time.perf_counter()
            cold = subprocess.run(command, env=run_env, input=payload, capture_output=True)
            samples.append((time.perf_counter() - t0) * 1000)
            log = state / "hook.log"
            gave_up += log.exists() and "gave up" in log.read_text(encoding="utf-8")
            # The index the cold hook (or the build it left running) makes; then the same
            # input in a new session, warm: the answer the cold one must equal.
            subprocess.run([mem, "recall", "x", "-d", str(root)], env=run_env, capture_output=True)
            warm = subprocess.run(
                command,
                env=run_env,
                input=hook_input(root, 1000 + number, **fields),
                capture_output=True,
            )
            answered += bool(cold.stdout) and cold.stdout == warm.stdout
        found[event] = {
            **(stats(samples) or {}),
            "max": max(samples),
            "runs": runs,
            "answered": answered,
            "gave_up": gave_up,
            "deadline_ms": HOOK_DEADLINES_S[event] * 1000,
        }
    shutil.rmtree(workdir, ignore_errors=True)
    return found


def bench_large(mem: str | None, workdir: Path, n: int) -> dict:
    root, cache = workdir / f"project-{n}", workdir / f"cache-{n}"
    t0 = time.perf_counter()
    info = generate_apart(workdir, n)
    print(f"  generated {n:,} notes in {time.perf_counter() - t0:.0f} s", flush=True)
    env = {**os.environ, "MEM_CACHE_DIR": str(cache), "MEM_NOW": MEM_NOW}
    ms, rss = (None, None)
    if mem:
        ms, rss = run_measured("first sync (large)", [mem, "recall", "x", "-d", str(root)], env)
    return {
        "size": n,
        "entries": info["notes"] + info["events"],
        "ms": ms,
        "rss_mib": rss,
        "cpu_ms": _last_cpu_ms[0],
    }


def python_floor(repeat: int) -> dict | None:
    return repeat_timed("python -c pass", [sys.executable, "-c", "pass"], dict(os.environ), repeat)


def fmt(value: float | None, unit: str = "ms") -> str:
    if value is None:
        return "n/a"
    return f"{value:,.0f} {unit}" if value >= 10 else f"{value:.1f} {unit}"


def hook_input(root: Path, number: int | str, **fields: str) -> bytes:
    payload = {"session_id": f"bench-{number}", "cwd": str(root), **fields}
    return json.dumps(payload).encode()


def report(results: list[dict], large: dict | None, floor: dict | None, load: str) -> str:
    lines = [
        f"Load: {load}. Medians of whole processes unless marked.",
        "",
        "| measure | " + " | ".join(f"{r['size']:,} notes" for r in results) + " |",
        "|---|" + "---|" * len(results),
    ]

    def row(label: str, cells: list[str]) -> None:
        lines.append(f"| {label} | " + " | ".join(cells) + " |")

    row("`python -c pass` (floor)", [fmt(floor["median"] if floor else None)] * len(results))
    for place, query_class in enumerate(QUERY_CLASSES):
        cells = []
        for r in results:
            query = r["queries"][place]
            warm = (r.get("warm") or {}).get(query)
            value = warm["median"] if warm else None
            cells.append(fmt(value))
        row(f"warm recall, {query_class}", cells)
    for place, query_class in enumerate(QUERY_CLASSES):
        cells = []
        for r in results:
            floor_cell = (r.get("fts5_floor") or {}).get(r["queries"][place])
            cells.append(fmt(floor_cell["median"] if floor_cell else None))
        row(f"`sqlite3` FTS5 MATCH (floor), {query_class}", cells)
    if any(r.get("reference") for r in results):
        for place, query_class in enumerate(QUERY_CLASSES):
            cells = []
            for r in results:
                ref = (r.get("reference") or {}).get(r["queries"][place])
                cells.append(fmt(ref["median"] if ref else None))
            row(f"JavaScript reference, {query_class}", cells)
    else:
        row("JavaScript reference", ["not present (node + MEM_REFERENCE)"] * len(results))
    for key, label in HOOK_ROWS:
        cells = []
        for r in results:
            timed, floor_ms = (r.get("hooks") or {}).get(key), (r.get("hooks") or {}).get("floor")
            if timed and floor_ms:
                ratio = timed["median"] / floor_ms["median"]
                cells.append(f"{fmt(timed['median'])} / {fmt(timed['p95'])} ({ratio:.1f}x)")
            else:
                cells.append("n/a")
        row(f"`mem hook {label}, median / p95 (x the floor)", cells)
    for event in ("prompt", "session-start"):
        cells = []
        for r in results:
            timed = (r.get("hook_cold") or {}).get(event)
            cells.append(
                f"{fmt(timed['median'])} / max {fmt(timed['max'])}: answered {timed['answered']}"
                f" of {timed['runs']} as once built, gave up {timed['gave_up']} (deadline"
                f" {fmt(timed['deadline_ms'])})"
                if timed
                else "n/a"
            )
        row(f"`mem hook {event}`, first of a fresh clone (empty cache), median", cells)
    cells = []
    for r in results:
        floor_ms = (r.get("hooks") or {}).get("floor")
        cells.append(f"{fmt(floor_ms['median'])} (n={floor_ms['n']})" if floor_ms else "n/a")
    row('`python -S -c "import sqlite3"` (the hooks\' floor, in turns with them), median', cells)
    cells = []
    for r in results:
        ip = (r.get("in_process") or {}).get("all")
        value = ip["p95"] if ip else None
        cells.append(fmt(value))
    row("in-process recall, p95 over the classes", cells)
    for place, query_class in enumerate(QUERY_CLASSES):
        cells = []
        for r in results:
            ip = (r.get("in_process") or {}).get(r["queries"][place])
            cells.append(f"{fmt(ip['median'])} / {fmt(ip['p95'])}" if ip else "n/a")
        row(f"in-process, {query_class} (median / p95)", cells)
    cells = []
    for r in results:
        fs = r.get("first_sync") or {}
        cells.append(
            f"{fmt(fs.get('ms'))} (CPU {fmt(fs.get('cpu_ms'))}), {fmt(fs.get('rss_mib'), 'MiB')}"
        )
    row("first sync (wall (CPU), peak RSS)", cells)
    cells = []
    for r in results:
        edit = r.get("after_edit")
        value = edit["median"] if edit else None
        cells.append(
            f"{fmt(value)}"
            f" ({r.get('edited_file_notes', 0):,}-note file,"
            f" {fmt(r.get('after_edit_rss_mib'), 'MiB')})"
        )
    row("next recall after editing one section", cells)
    cells = []
    for r in results:
        after = r.get("after_write")
        warm = r.get("warm_before_write")
        if after and warm:
            extra = after["median"] - warm["median"]
            cells.append(f"{fmt(after['median'])} (warm + {extra:.1f} ms)")
        else:
            cells.append("n/a")
    row("next recall after one `mem write`", cells)
    if large:
        lines += [
            "",
            f"{large['entries']:,} entries ({large['size']:,} notes): first sync"
            f" {fmt(large['ms'])}"
            f" (CPU {fmt(large.get('cpu_ms'))}),"
            f" peak RSS {fmt(large['rss_mib'], 'MiB')}.",
        ]
    return "\n".join(lines)


def find_mem(explicit: str | None) -> str | None:
    if explicit:
        return str(Path(explicit).resolve()) if os.sep in explicit else explicit
    beside = Path(sys.executable).parent / "mem"
    return str(beside) if beside.exists() else shutil.which("mem")


def import_check(mem_env_root: Path, n: int) -> dict:
    root, cache = mem_env_root / f"project-{n}", mem_env_root / f"cache-{n}"
    info = generate(root, n)
    env = {**os.environ, "MEM_CACHE_DIR": str(cache), "MEM_NOW": MEM_NOW}
    args = ["recall", *info["queries"][0].split(), "-d", str(root)]
    warm = subprocess.run(
        [sys.executable, "-m", "mem", *args], env=env, capture_output=True, text=True
    )
    if warm.returncode != 0:  # a cold run would legitimately import the index builders
        report_failure("warm-up python -m mem recall", f"exit {warm.returncode}\n{warm.stderr}")
        return {"error": "warm-up recall failed"}
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "mem", *args],
        env=env,
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        report_failure(
            "python -X importtime -m mem recall", f"exit {proc.returncode}\n{proc.stderr}"
        )
        return {"error": proc.stderr[-2000:]}
    rows = []
    for line in proc.stderr.splitlines():
        parts = line.removeprefix("import time:").split("|")
        if line.startswith("import time:") and len(parts) == 3 and parts[1].strip().isdigit():
            rows.append((int(parts[1]), parts[2].strip()))
    rows.sort(reverse=True)
    print(f"top 10 cumulative imports (warm `mem recall`, {len(rows)} modules):")
    for us, name in rows[:10]:
        print(f"  {us / 1000:8.1f} ms  {name}")
    found = {}
    for mod in ("sqlite_utils", "filelock"):
        found[mod] = any(name == mod or name.startswith(mod + ".") for _, name in rows)
        verdict_text = "IMPORTED (must not be on a warm recall)" if found[mod] else "not imported"
        print(f"  {mod}: {verdict_text}")
    return {"top": [{"module": n_, "cumulative_us": us} for us, n_ in rows[:10]], "found": found}


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--sizes", default="10000,200000")
    ap.add_argument("--repeat", type=int, default=9, help="runs of each whole-process figure")
    ap.add_argument("--rounds", type=int, default=40, help="in-process calls per query class")
    ap.add_argument(
        "--hook-repeat", type=int, default=15, help="runs of each hook, in turns with the floor"
    )
    ap.add_argument("--large", action="store_true", help="add a 1,000,000-note first sync")
    ap.add_argument("--mem", help="mem executable (default: next to sys.executable, else PATH)")
    ap.add_argument(
        "--generate-only", metavar="DIR", help="write projects to DIR/project-N and stop"
    )
    ap.add_argument("--import-check", action="store_true", help="importtime of a warm recall only")
    ap.add_argument(
        "--keep", action="store_true", help="keep the temp dir with projects and caches"
    )
    ap.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args.child:
        root, rounds, *queries = args.child
        return child_main(root, int(rounds), queries)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]

    if args.generate_only:
        for n in sizes:
            root = Path(args.generate_only) / f"project-{n}"
            t0 = time.perf_counter()
            info = generate(root, n)
            print(
                f"{root}: {info['notes']} notes, {info['events']} events "
                f"({time.perf_counter() - t0:.1f} s)"
            )
            for rel, f in info["files"].items():
                what = f"{f['sections']} sections" if "sections" in f else f"{f['events']} events"
                print(f"  {rel:<32} {f['bytes']:>10,} bytes  {what}")
            print("  sections matching each query:", info["query_hits"])
        return

    mem = find_mem(args.mem)
    workdir, home = Path(tempfile.mkdtemp(prefix="mem-bench-")), os.getcwd()
    # A neutral cwd: `python -m mem` from the repo root would pick up the working tree
    # instead of the installed package the executable and the in-process import use.
    os.chdir(workdir)
    try:
        if args.import_check:
            out, result = OUT_DIR / "import-check.json", import_check(workdir, min(sizes))
        else:
            load_before = os.getloadavg()
            print(f"mem: {mem or 'NOT FOUND (process timings n/a)'}; python: {sys.executable}")
            floor = python_floor(args.repeat)
            results = []
            for n in sizes:
                print(f"size {n:,}: generating and timing ...", flush=True)
                results.append(
                    bench_size(mem, n, workdir, args.repeat, args.rounds, args.hook_repeat)
                )
            large = None
            if args.large:
                print("1,000,000 notes: generating and syncing ...", flush=True)
                large = bench_large(mem, workdir, 1_000_000)
            load_after = os.getloadavg()
            load = (
                f"{os.cpu_count()} cores, 1-minute load average {load_before[0]:.1f} before"
                f" and {load_after[0]:.1f} after"
            )
            table = report(results, large, floor, load)
            print("\n" + table)
            meta = {
                "mem": mem,
                "python": sys.executable,
                "platform": platform.platform(),
                "repeat": args.repeat,
                "rounds": args.rounds,
                "MEM_NOW": MEM_NOW,
                "load": load,
                "started": datetime.now(UTC).isoformat(),
            }
            out = OUT_DIR / "results.json"
            result = {"meta": meta, "floor": floor, "sizes": results, "large": large}
            (OUT_DIR).mkdir(parents=True, exist_ok=True)
            (OUT_DIR / "table.md").write_text(table + "\n")
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(result, indent=2) + "\n")
        print(f"\nraw numbers: {out}")
    finally:
        os.chdir(home)
        if args.keep:
            print(f"kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
