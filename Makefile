# Everything installs itself: `make test` and `make train` work on a fresh machine.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# The compiled twins: C sources built into extensions by setup.py (docs/compiling.md). An editable install builds
# them once; an edited C file is rebuilt here (seconds) before the tests run.
C_SOURCES := $(wildcard euchre_env/compiled/c/*.[ch] agents/*/c/*.[ch])
BUILT := $(VENV)/.built

RUN ?= knock
LINTED := euchre_env agents evaluation training play cli tests benchmarks experiments examples
.PHONY: test check build train demo lint bench clean

$(STAMP): pyproject.toml constraints.txt setup.py
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -c constraints.txt -e ".[dev,eval,train,sb3,rllib,tianshou,torchrl,play,ray,render]"
	touch $(STAMP) $(BUILT)

$(BUILT): $(STAMP) $(C_SOURCES)
	$(PY) setup.py --quiet build_ext --inplace
	touch $(BUILT)

build: $(BUILT)

# `make test` builds .venv with every extra the tests need: dev, eval, train and the RL-library integrations
# (Ray/RLlib, Tianshou, Stable-Baselines3, TorchRL) plus OpenSpiel for the differential test, about 2 GB. It then
# runs ruff, the type check (tests/typecheck.py: every import resolves) and the whole test suite on both cores (the
# import-direction check, tests/test_layers.py, included).
test: $(BUILT)
	$(PY) -m ruff check $(LINTED)
	$(PY) tests/typecheck.py
	$(PY) -m pytest -n 2

# The fast tier (docs/testing.md): ruff, then every test not marked slow, on both cores; under 2 minutes.
check: $(BUILT)
	$(PY) -m ruff check $(LINTED)
	$(PY) tests/typecheck.py
	$(PY) -m pytest -n 2 -m "not slow"

# Trains configs/knock.yaml into runs/$(RUN) (under an hour on 2 cores), then evaluates the best checkpoint
# against random, rules and PIMC. Run it again to resume an interrupted run (or re-evaluate a finished one).
train: $(BUILT)
	$(PY) -m euchre_env.cli train --config configs/knock.yaml --run-name $(RUN) \
		$(if $(wildcard runs/$(RUN)/checkpoints/latest.pt),--resume)

demo: $(BUILT)
	$(PY) -m euchre_env.play.demo --rules knock --seed 7

bench: $(BUILT)
	$(PY) benchmarks/bench_env.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache build
	find euchre_env agents -name '*.so' -delete
