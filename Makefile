# Everything installs itself: `make test` and `make train` work on a fresh machine.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

RUN ?= knock
.PHONY: test train demo lint bench clean

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -c constraints.txt -e ".[dev,eval,train,sb3,rllib,tianshou,play,ray]"
	touch $(STAMP)

# `make test` builds .venv with every extra the tests need: dev, eval, train and the RL-library integrations
# (Ray/RLlib, Tianshou, Stable-Baselines3) plus OpenSpiel for the differential test, about 2.1 GB. It then runs
# ruff and the whole test suite (the import-direction check, tests/test_layers.py, included).
test: $(STAMP)
	$(PY) -m ruff check euchre_env agents evaluation training play cli tests benchmarks experiments examples
	$(PY) -m pytest

# Trains configs/knock.yaml into runs/$(RUN) (under an hour on 2 cores), then evaluates the best checkpoint
# against random, rules and PIMC. Run it again to resume an interrupted run (or re-evaluate a finished one).
train: $(STAMP)
	$(PY) -m euchre_env.cli train --config configs/knock.yaml --run-name $(RUN) \
		$(if $(wildcard runs/$(RUN)/checkpoints/latest.pt),--resume)

demo: $(STAMP)
	$(PY) -m euchre_env.play.demo --rules knock --seed 7

bench: $(STAMP)
	$(PY) benchmarks/bench_env.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
