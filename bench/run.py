#!/usr/bin/env python3
"""Benchmark for `mem recall`: synthetic projects at 1k/10k/50k notes, whole-process timings.

Run with the venv's python so the in-process `mem.sync` import matches the `mem` executable:
    python bench/run.py [--sizes 1000,10000,50000] [--repeat N] [--mem PATH]
    python bench/run.py --generate-only DIR [--sizes 1000]
    python bench/run.py --import-check
Stdlib only. Exits 0 even when targets are missed: this is a report, not a test.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
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
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

MEM_NOW = "2026-10-18T09:30:00.000Z"
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
    # Common, mid-frequency and rare-tail words; the tail words are made-up but deterministic.
    return ["postgres", "connection pooling", "pgbouncer", f"{vocab[1500]} migration", vocab[2000]]


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
    if tail in _reported:
        print(f"  ! {label} failed the same way")
    else:
        _reported.add(tail)
        print(f"  ! {label} failed:\n    " + tail.replace("\n", "\n    "))


def run_timed(label: str, cmd: list[str], env: dict, timeout: float = 600):
    """Whole-process wall time in ms, or None (reported once per label) on failure."""
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as exc:
        report_failure(label, repr(exc))
        return None, None
    ms = (time.perf_counter() - t0) * 1000
    if proc.returncode != 0:
        report_failure(label, f"exit {proc.returncode}\n{proc.stderr}")
        return None, proc
    return ms, proc


def stats(samples: list[float] | None) -> dict | None:
    if not samples:
        return None
    return {
        "median": statistics.median(samples),
        "min": min(samples),
        "n": len(samples),
        "samples": [round(s, 3) for s in samples],
    }


def repeat_timed(label: str, cmd: list[str], env: dict, n: int, before=None) -> dict | None:
    samples = []
    for i in range(n):
        if before:
            before(i)
        ms, _ = run_timed(label, cmd, env)
        if ms is None:
            return None  # timings of a failing command mean nothing
        samples.append(ms)
    return stats(samples)


def child_sync(env: dict, root: Path, mode: str, rounds: int) -> tuple[dict | None, str | None]:
    """Time mem.sync.sync_project in a fresh interpreter so it sees this size's MEM_CACHE_DIR."""
    cmd = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--child-sync",
        mode,
        str(root),
        str(rounds),
    ]
    try:
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
        result = json.loads(proc.stdout.strip().splitlines()[-1])
    except (OSError, subprocess.TimeoutExpired, IndexError, json.JSONDecodeError) as exc:
        report_failure(f"in-process sync ({mode})", f"{exc!r}\n{getattr(exc, 'stderr', '')}")
        return None, None
    if "unavailable" in result:
        return None, result["unavailable"]
    if "error" in result:
        report_failure(f"in-process sync ({mode})", result["error"])
        return None, None
    return stats(result["ms"]), None


def child_main(mode: str, root: str, rounds: int) -> None:
    try:
        import mem.index.sync

        sync_project = mem.sync.sync_project
    except (ImportError, AttributeError):
        print(json.dumps({"unavailable": "mem.sync.sync_project missing"}))
        return
    root_path, samples = Path(root), []
    try:
        sync_project(root_path)  # warm-up: also makes sure the index is current
        for i in range(rounds):
            if mode == "append":
                append_direct(root_path, i)
            t0 = time.perf_counter()
            sync_project(root_path)
            samples.append((time.perf_counter() - t0) * 1000)
    except Exception as exc:  # noqa: BLE001 - reported to the parent, which marks n/a
        import traceback

        print(json.dumps({"error": "".join(traceback.format_exception(exc))}))
        sys.exit(1)
    print(json.dumps({"ms": samples}))


def append_direct(root: Path, i: int) -> None:
    path = root / JOURNAL
    sep = "" if path.read_bytes().endswith(b"\n") else "\n"
    with path.open("a", encoding="utf-8") as fh:
        fh.write(
            sep + event_line(MEM_NOW, "bench", "bench", "none", f"bench direct {i}", "success")
        )


def bench_size(mem: str | None, n: int, workdir: Path, repeat: int, rounds: int) -> dict:
    root, cache = workdir / f"project-{n}", workdir / f"cache-{n}"
    info = generate(root, n)
    env = {**os.environ, "MEM_CACHE_DIR": str(cache), "MEM_NOW": MEM_NOW}
    queries = info["queries"]
    res = {k: info[k] for k in ("notes", "events", "files", "queries")} | {"size": n}
    res |= dict.fromkeys(["first_sync", "warm_recall", "warm_json", "index_path", "resync_process"])

    def cmd(*args: str) -> list[str]:
        return [mem, *args, "-d", str(root)]

    if mem:
        res["first_sync"] = repeat_timed(
            "first sync (mem recall, empty cache)",
            cmd("recall", *queries[0].split()),
            env,
            min(3, repeat),
            before=lambda _: shutil.rmtree(cache, ignore_errors=True),
        )
        for key, extra in (("warm_recall", []), ("warm_json", ["--json"])):
            label = "warm recall" + (" --json" if extra else "")
            per_query = [
                repeat_timed(label, cmd("recall", *q.split(), *extra), env, repeat) for q in queries
            ]
            if all(per_query):
                res[key] = stats([s for pq in per_query for s in pq["samples"]])
                res[key]["per_query"] = {
                    q: pq["median"] for q, pq in zip(queries, per_query, strict=True)
                }
        if res["warm_json"]:
            _, proc = run_timed(
                "warm recall --json", cmd("recall", *queries[0].split(), "--json"), env
            )
            try:
                json.loads(proc.stdout)
                res["warm_json"]["valid_json"] = True
            except (AttributeError, ValueError):
                res["warm_json"]["valid_json"] = False
        res["index_path"] = repeat_timed("mem index path", cmd("index", "path"), env, repeat)

    res["freshness"], why = child_sync(env, root, "fresh", 50)
    if why and why not in _reported:
        _reported.add(why)
        print(f"  freshness: unavailable ({why})")

    if mem:
        samples = []
        for i in range(rounds):
            wrote, _ = run_timed(
                "mem write", cmd("write", "--agent", "bench", "--task", f"bench event {i}"), env
            )
            # A mid-frequency query, so the figure is dominated by the re-sync, not by ranking
            # half the corpus as the most common word would be.
            ms, _ = run_timed("re-sync recall after mem write", cmd("recall", queries[2]), env)
            if wrote is None or ms is None:
                break
            samples.append(ms)
        else:
            if samples:
                res["resync_process"] = stats(samples) | {"query": queries[2]}
    res["resync_inprocess"], _ = child_sync(env, root, "append", rounds)
    return res


TARGETS = [  # (label, size or None for every size, result key, limit ms)
    ("warm recall", 10000, "warm_recall", 60),
    ("warm recall", 50000, "warm_recall", 100),
    ("freshness check", 10000, "freshness", 10),
    ("re-sync after one append (in-process)", None, "resync_inprocess", 30),
]


def evaluate_targets(results: list[dict]) -> list[dict]:
    by_size = {r["size"]: r for r in results}
    out = []
    for label, size, key, limit in TARGETS:
        for s in [size] if size else sorted(by_size):
            fig = by_size[s][key] if s in by_size else None
            if s not in by_size:
                verdict = "not measured"
            elif not fig:
                verdict = "n/a"
            else:
                verdict = "PASS" if fig["median"] <= limit else "MISS"
            median = fig["median"] if fig else None
            out.append(
                {
                    "target": label,
                    "size": s,
                    "limit_ms": limit,
                    "verdict": verdict,
                    "median_ms": median,
                }
            )
    return out


def print_report(results: list[dict], targets: list[dict]) -> None:
    cols = [
        ("first-sync", "first_sync"),
        ("warm-recall", "warm_recall"),
        ("warm-json", "warm_json"),
        ("freshness", "freshness"),
        ("index-path", "index_path"),
        ("resync-proc", "resync_process"),
        ("resync-inproc", "resync_inprocess"),
    ]

    def cell(fig):
        p = 2 if fig and fig["median"] < 10 else 1  # sub-ms in-process figures need the digits
        return f"{fig['median']:.{p}f}/{fig['min']:.{p}f}" if fig else "n/a"

    print("\nmilliseconds, median/min (process = whole `mem` run; freshness/inproc = sync_project)")
    print(f"{'size':>6} {'notes':>6} {'events':>6} " + " ".join(f"{h:>13}" for h, _ in cols))
    for r in results:
        print(
            f"{r['size']:>6} {r['notes']:>6} {r['events']:>6} "
            + " ".join(f"{cell(r.get(k)):>13}" for _, k in cols)
        )
    for r in results:
        if r["warm_recall"]:
            per = ", ".join(f"{q} {ms:.0f}" for q, ms in r["warm_recall"]["per_query"].items())
            print(f"warm recall @{r['size']} per query (median ms): {per}")
    print("\ntargets (median):")
    for t in targets:
        fig = f"{t['median_ms']:.2f} ms" if t["median_ms"] is not None else "-"
        limit = f"<= {t['limit_ms']} ms"
        print(f"  {t['target']:<40} @{t['size']:>6}  {limit:>9}  {fig:>10}  {t['verdict']}")


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
        verdict = "IMPORTED (must not be on a warm recall)" if found[mod] else "not imported"
        print(f"  {mod}: {verdict}")
    return {"top": [{"module": n_, "cumulative_us": us} for us, n_ in rows[:10]], "found": found}


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--sizes", default="1000,10000,50000")
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--rounds", type=int, default=10, help="append/re-sync rounds")
    ap.add_argument("--mem", help="mem executable (default: next to sys.executable, else PATH)")
    ap.add_argument(
        "--generate-only", metavar="DIR", help="write projects to DIR/project-N and stop"
    )
    ap.add_argument("--import-check", action="store_true", help="importtime of a warm recall only")
    ap.add_argument(
        "--keep", action="store_true", help="keep the temp dir with projects and caches"
    )
    ap.add_argument("--child-sync", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args.child_sync:
        mode, root, rounds = args.child_sync
        return child_main(mode, root, int(rounds))
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
            print(f"mem: {mem or 'NOT FOUND (process timings n/a)'}; python: {sys.executable}")
            results = []
            for n in sizes:
                print(f"size {n}: generating and timing ...", flush=True)
                results.append(bench_size(mem, n, workdir, args.repeat, args.rounds))
            targets = evaluate_targets(results)
            print_report(results, targets)
            meta = {
                "mem": mem,
                "python": sys.executable,
                "platform": platform.platform(),
                "repeat": args.repeat,
                "rounds": args.rounds,
                "MEM_NOW": MEM_NOW,
                "started": datetime.now(UTC).isoformat(),
            }
            out = OUT_DIR / "results.json"
            result = {"meta": meta, "sizes": results, "targets": targets}
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
