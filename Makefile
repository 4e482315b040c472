# The two commands a newcomer needs: `make run` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test install lint typecheck unit bench bench-load clean

$(BIN)/activate: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(BIN)/activate

install: $(BIN)/activate

run: install
	$(BIN)/playtable serve --host $(HOST) --port $(PORT)

lint: install
	$(BIN)/ruff check playtable tests bench
	$(BIN)/ruff format --check playtable tests bench

typecheck: install
	$(BIN)/mypy playtable

unit: install
	$(BIN)/pytest -q

test: lint typecheck unit

bench: install
	$(BIN)/pip install --quiet -e '.[bench]'
	$(BIN)/python bench/engines.py

# Loopback only, bounded; uses the local PostgreSQL and Redis (see bench/load.py).
bench-load: install
	$(BIN)/python bench/load.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache
