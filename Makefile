# Every target creates the virtual environment it needs.
VENV ?= .venv
PYTHON ?= python3
PY := $(VENV)/bin/python
MEM := $(VENV)/bin/mem

.PHONY: test hosts demo bench bench-large bench-portfolio bench-compare bench-quality lint fmt check clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet -e '.[test]' --config-settings editable_mode=compat
	touch $@

# Byte-compiled first, so the subprocess tests do not each recompile mem under
# PYTHONDONTWRITEBYTECODE; and pytest may keep its rewritten test modules (with the variable
# set, each worker parses and rewrites all of tests/ again: half of its ~10 s collection).
# Two workers for the machine's two cores. Worksteal: the long property tests sit late in the
# collection (tests/recall), and with the default `load` the tests already queued on one
# worker stay there while the other idles (a minute and more).
test: $(VENV)/.installed
	$(PY) -m compileall -q mem migrations
	PYTHONDONTWRITEBYTECODE= $(PY) -m pytest -q -n 2 --dist worksteal

# Issue 33: the real agent hosts tests/hosts/ runs (Claude Code, Codex, Gemini CLI, pinned
# in tests/support/hosts.py), installed from npm into the user's cache (about 20 s), or
# into $$MEM_TEST_HOSTS; reused when there. Without them, make test skips those tests.
# Issue 36: Serena too (serena-agent from PyPI, about a minute), in a venv beside them
# (or $$MEM_TEST_SERENA).
hosts:
	PYTHONPATH=tests $(PYTHON) -m support.hosts

demo: $(VENV)/.installed
	@bash bench/demo.sh $(abspath $(MEM))

# Byte-compile first, as pip does on a real install: an editable checkout run with
# PYTHONDONTWRITEBYTECODE would otherwise recompile every module on every `mem` call.
# Git history as memory (issue 34): ripgrep's 2.3k commits (a clone of $$MEM_BENCH_HISTORY_REPO,
# by default the local mirror), 100k and 1M generated commits (kept in ~/.cache/mem-bench and
# reused; the first run generates them: about 10 minutes). HISTORY_ARGS="--sizes 2k,100k".
# The portfolio's targets too (issue 12): the first run generates 1,000 projects x 1,000
# entries (kept in the temp directory and reused) and syncs them from an empty cache.
HISTORY_ARGS ?=
bench: $(VENV)/.installed
	$(PY) -m compileall -q mem
	$(PY) bench/run.py
	$(PY) bench/mcp_bench.py
	$(PY) bench/portfolio.py
	$(PY) bench/import_bench.py
	$(PY) bench/history.py $(HISTORY_ARGS)

# The 1,000,000-note first sync too: minutes, and about 250 MB of generated project.
bench-large: $(VENV)/.installed
	$(PY) -m compileall -q mem
	$(PY) bench/run.py --large

# The portfolio alone: generating and first syncing 1,000 projects x 1,000 entries takes
# minutes (the portfolio is kept in the temp directory and reused).
bench-portfolio: $(VENV)/.installed
	$(PY) -m compileall -q mem
	$(PY) bench/portfolio.py
	$(PY) bench/import_bench.py

# The CLI reference in docs/cli.md, regenerated from the click commands (cog); make test
# checks it is up to date.
.PHONY: docs
docs: $(VENV)/.installed
	$(PY) -m cogapp -r docs/cli.md

# Issue 22's performance guard: BASE's and the working tree's bench classes, taking turns
# in one run; ratios against limits, beside the run's floors. BASE gets a worktree and venv
# of its own in the temp directory (reused). A report: it exits 0 and its last line says
# whether the guard holds. BENCH_ARGS=--quick to iterate; see bench/README.md.
BASE ?= 4148755
BENCH_ARGS ?=
bench-compare: $(VENV)/.installed
	$(PY) bench/compare.py --base $(BASE) $(BENCH_ARGS)

# Issue 25's ranking quality: recall@1, recall@5 and MRR@5 of each ranking the installed mem
# accepts, over bench/quality/ (real ADRs, hand-written queries); seconds. Then issue 33's
# hooks: the prompt gate over bench/hooks/ (issue texts in projects of commit messages),
# the pre-edit hook over bench/pre_edit/ (ripgrep's commits), hit and false-injection
# rates; amendments over bench/amendments/ (a minute or two). A report: it exits 0.
# QUALITY_ARGS=--misses lists the queries a ranking does not answer first.
QUALITY_ARGS ?=
bench-quality: $(VENV)/.installed
	$(PY) -m compileall -q mem
	$(PY) bench/quality.py $(QUALITY_ARGS)
	$(PY) bench/hook_quality.py
	$(PY) bench/pre_edit.py
	$(PY) bench/history_hooks.py
	$(PY) bench/amendments.py
	$(PY) bench/amendment_rules.py
	$(PY) bench/import_bench.py --likeness

lint: $(VENV)/.installed
	$(VENV)/bin/pip install --quiet ruff mypy
	$(VENV)/bin/ruff check mem tests bench
	$(VENV)/bin/ruff format --check mem tests bench
	$(VENV)/bin/mypy mem

fmt: $(VENV)/.installed
	$(VENV)/bin/pip install --quiet ruff
	$(VENV)/bin/ruff format mem tests bench

check: lint test

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
