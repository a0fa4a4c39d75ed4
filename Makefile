# Twelve Ways. The two commands: `make report` (the quick report) and `make test`.
# Both create .venv on a fresh machine and install the pinned lock (envs/requirements.lock).

SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.twelveways-installed
COMPILED := $(VENV)/.twelveways-compiled
SNAKEMAKE := $(BIN)/snakemake
export PATH := $(CURDIR)/$(BIN):$(PATH)
# Where PYTHONDONTWRITEBYTECODE is set (containers, CI images), every job of the workflow and every test
# subprocess would compile scipy, pandas and statsmodels from source again (about 4 s per process):
# the targets here let Python cache the bytecode of what they import, in .venv and the git-ignored
# __pycache__ folders, compiled once by the first process that imports it.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: report reproduce ab test test-fast lint bench lab reader-report archive test-slurm docs venv browser-deps bench-deps envs clean help

help:
	@echo "make report         run the whole workflow (quick profile) and print the report's path"
	@echo "make test           run the style gates (make lint) and the test suite (bootstraps .venv)"
	@echo "make test-fast      the unit tier for everyday work (no workflow run, browser or cluster), about 60 s on 2 cores"
	@echo "make bench          the project's own performance benchmarks -> reports/bench.json"
	@echo "make reader-report  re-analyse and re-audit data/reference: the same reports/ as make report, no benchmark run"
	@echo "make lab            JupyterLab on the project's kernel with the notebooks (http://127.0.0.1:LAB_PORT, root or user)"
	@echo "make archive        dist/twelveways-DATE.tar.gz: code (git ls-files), results, reports and SHA256SUMS"
	@echo "make reproduce      run the quick workflow and compare it with data/reference -> reports/reproduction.html"
	@echo "make ab BASE=<ref>  is the working tree (or NEW=<ref>) faster than BASE? interleaved rounds -> reports/ab.html"
	@echo "make test-slurm     run the tiny workflow through a one-node SLURM cluster on this machine"
	@echo "make docs           the documentation site -> site/ (mkdocs build --strict; generated pages refreshed first)"

venv: $(COMPILED)

# The lock is installed by uv (pinned below, from PyPI) when it can be had, else by pip: the same
# exact pins either way. uv reads no pip configuration, so pip's find-links (where a local torch CPU
# wheel may lie) is passed on to it. make report needs no more: each module's bytecode is cached by the
# first job that imports it. The test tiers depend on $(COMPILED) too (below).
UV_VERSION := 0.13.9
FIND_LINKS = $(or $(PIP_FIND_LINKS),$(shell $(PYTHON) -m pip config get global.find-links 2>/dev/null))

$(STAMP): envs/requirements.lock pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@date +%s > $(VENV)/.install-started
	@if $(BIN)/python -m pip install --quiet --disable-pip-version-check uv==$(UV_VERSION) >/dev/null 2>&1 \
	    && echo "installing $$(grep -vc "^#" envs/requirements.lock) pinned packages with uv $(UV_VERSION)" \
	    && $(BIN)/uv pip install --quiet --python $(BIN)/python $(foreach d,$(FIND_LINKS),--find-links $(d)) -r envs/requirements.lock; then \
	  echo "installed envs/requirements.lock with uv $(UV_VERSION)"; \
	else \
	  echo "uv unavailable: installing envs/requirements.lock with pip"; \
	  $(BIN)/python -m pip install --quiet --disable-pip-version-check -r envs/requirements.lock; \
	fi
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	$(BIN)/python -m ipykernel install --sys-prefix --name twelveways --display-name "Python (twelveways)" >/dev/null
	@# .venv/.twelveways-installed records how long the install took (the artifact appendix quotes it); the
	@# target is only touched, so a STAMP pointed at another file (the tests point it at Makefile) is never overwritten
	@echo "install_seconds=$$(( $$(date +%s) - $$(cat $(VENV)/.install-started) ))" > $(VENV)/.twelveways-installed
	@touch $(STAMP)

# The test tiers start two workers at once, each of which would compile numpy, scipy, pandas and torch from
# source for itself: every installed package's bytecode is compiled first, on every core (about 17 s on 2
# cores; twelveways.bytecode says why not compileall). pip compiles at install already; this finds it done.
$(COMPILED): $(STAMP)
	$(BIN)/python -m twelveways.bytecode "$$($(BIN)/python -c 'import sysconfig; print(sysconfig.get_path("purelib"))')"
	@touch $(COMPILED)

report: $(STAMP)
	@# A run killed hard (SIGKILL, power loss) resumes: twelveways run releases a lock whose recorded owner
	@# process is gone (pid + start time) and names a live one; incomplete jobs rerun (profiles/default).
	@# twelveways run checks --configfile/--config itself (nested keys: CONFIG="measurement.max_samples=10"), then runs Snakemake
	$(BIN)/twelveways run --cores all --profile profiles/default $(if $(CONFIGFILE),--configfile $(CONFIGFILE)) $(if $(CONFIG),--config $(CONFIG))
	@echo "Report: $(CURDIR)/reports/report.html"

# The quick workflow (as make report), then this run against the committed reference set: per claim and
# headline number Reproduced / Not reproduced / Inconclusive, with the noise floor and environment diff.
reproduce: report
	$(BIN)/twelveways reproduce --reference data/reference --results results --output reports/reproduction
	@echo "Reproduction report: $(CURDIR)/reports/reproduction.html"

# Is NEW (a git ref; default the working tree) faster than BASE (a git ref)? Both sides' PRK kernels are built side
# by side and run alternately in randomized rounds on this machine (twelveways ab): reports/ab.md, .html, .json and
# every sample of each side (reports/ab.base.nc, ab.new.nc). AB_ARGS passes more options (--only workload=stencil,
# --effect 0.05, --max-seconds 600, --base-config F, --new-config F).
ab: $(STAMP)
	@test -n "$(BASE)" || { echo "make ab needs BASE=<git ref> (and optionally NEW=<git ref>; default the working tree)" >&2; exit 2; }
	$(BIN)/twelveways ab --base $(BASE) $(if $(NEW),--new $(NEW)) --output reports/ab $(AB_ARGS)
	@echo "A/B report: $(CURDIR)/reports/ab.html"

# PYTEST_ARGS narrows either run (files, -k, -x); make bench's testsuite topic times both on a fresh clone.
# Both spread the tests over TEST_WORKERS processes (pytest-xdist; default one per core, at most 8, as each
# holds NumPy, SciPy and PyTorch; TEST_WORKERS=0 runs them in one process, for --pdb or a plain -x).
# --dist loadgroup keeps the tests that share a fixture, a build or PyTorch on one worker; the groups are
# handed out before the single tests, the longest (the tiny workflow run) first (tests/conftest.py).
TEST_WORKERS ?= $(shell n=$$(nproc 2>/dev/null || echo 1); echo $$(( n < 8 ? n : 8 )))
XDIST = $(if $(filter 0,$(TEST_WORKERS)),,-n $(TEST_WORKERS) --dist loadgroup --no-loadscope-reorder)
test: $(COMPILED) browser-deps lint
	$(BIN)/python -m pytest $(XDIST) $(PYTEST_ARGS)

# The unit tier: no tiny workflow, no end-to-end or multi-process test (marked slow), no browser, no cluster;
# the readers' property tests draw 3 damaged files per seed instead of make test's 20 (TWELVEWAYS_FUZZ_EXAMPLES),
# and every other property test a quarter of its examples, at least 5 (Hypothesis profile "fast",
# tests/hypothesis_profiles.py); make test draws them all.
test-fast: export TWELVEWAYS_FUZZ_EXAMPLES ?= 3
test-fast: $(COMPILED)
	$(BIN)/python -m pytest $(XDIST) -m "not slow and not browser and not slurm" --hypothesis-profile=fast $(PYTEST_ARGS)

# Style gates (pyproject.toml [tool.ruff], [tool.snakefmt]); part of make test, so CI runs them.
lint: $(STAMP)
	$(BIN)/ruff check src bench tests kernels/python notebooks
	$(BIN)/snakefmt --check Snakefile workflow/rules

bench: $(STAMP) bench-deps
	$(BIN)/python bench/run.py --output reports/bench.json

reader-report: $(STAMP)
	$(BIN)/python -m twelveways.report rebuild --from data/reference --output reports
	@echo "Report: $(CURDIR)/reports/report.html"

# JupyterLab on this machine only (127.0.0.1), no browser started (headless machines: open the URL it
# prints); --allow-root when run as root, as make bench and make test-slurm are. Opened in a fresh clone
# the notebooks read data/reference and say so at the top.
# envs/jupyter is searched first for Jupyter settings (JUPYTER_CONFIG_PATH; the user's own stay in force):
# its labconfig/default_setting_overrides.json makes a double-click open the paired .py notebooks as
# notebooks (jupytext's "Jupytext Notebook" viewer), not as plain text.
LAB_PORT ?= 8888
lab: export JUPYTER_CONFIG_PATH := $(CURDIR)/envs/jupyter$(if $(JUPYTER_CONFIG_PATH),:$(JUPYTER_CONFIG_PATH))
lab: $(STAMP)
	$(BIN)/jupyter lab --no-browser --ip=127.0.0.1 --port=$(LAB_PORT) --notebook-dir=notebooks $(if $(filter 0,$(shell id -u)),--allow-root)

# A dated tarball for a DOI service (Zenodo, figshare): every file git tracks, results/ and reports/,
# with SHA256SUMS inside and the tarball's own checksum beside it.
archive: $(STAMP)
	$(BIN)/python -m twelveways.report archive --output dist

test-slurm: $(STAMP)
	bash tests/slurm/run.sh

# The browser test needs Debian's chromium; install it when missing and we may (root with apt).
browser-deps:
	@if ! command -v chromium >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing Debian chromium for the browser test"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
	      || echo "warning: could not install chromium; the browser test will be skipped"; \
	  else echo "note: chromium missing and not root with apt: the browser test will be skipped"; fi; \
	fi

# make bench compares C nstream with likwid-bench's stream on the same machine in the same run;
# install Debian's likwid when missing and we may (root with apt), else bench says it is absent.
bench-deps:
	@if ! command -v likwid-bench >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing Debian likwid for the stream bound"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq likwid >/dev/null) \
	      || echo "warning: could not install likwid; bench will report no stream bound"; \
	  else echo "note: likwid-bench missing and not root with apt: bench will report no stream bound"; fi; \
	fi

# The documentation site (mkdocs.yml, docs/): the generated pages (command reference, checklist, config keys,
# formats, evidence) refreshed from the code, then site/ in strict mode (a broken link or a page missing from
# the navigation fails). tests/test_docsite.py builds it in make test and fails on a stale generated page.
docs: $(STAMP)
	$(BIN)/python -m twelveways.docsite
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict
	@echo "Documentation: $(CURDIR)/site/index.html"

envs: $(STAMP)
	$(BIN)/python -m twelveways.pins --write

clean:
	rm -rf results build logs .snakemake site reports/*.html reports/*.md reports/*.json reports/*.png
