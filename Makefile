# Everything installs itself: `make test` and `make demo` work on a fresh machine.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: test demo lint bench clean

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -c constraints.txt -e ".[dev]"
	touch $(STAMP)

test: $(STAMP)
	$(PY) -m ruff check euchre_env agents training tests benchmarks
	$(PY) -m pytest

demo: $(STAMP)
	$(PY) -m agents.play --rules knock --seed 7

bench: $(STAMP)
	$(PY) benchmarks/bench_env.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
