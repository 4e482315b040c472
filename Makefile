# The two commands a newcomer needs: `make run` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000


.PHONY: run test install deps lint typecheck unit bench bench-load bench-abuse bench-compiled test-compiled clean i18n book atlas

$(BIN)/activate: pyproject.toml setup.py playtable/ai/_dotscore.c
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

unit: install deps
	$(BIN)/pytest -q

# Chromium (browser tests) and a C compiler, where this machine lets us install them.
deps:
	bash scripts/test-deps.sh

test: deps lint typecheck unit

# Extract every translatable string into the template catalog and merge it into each language.
# A new language: $(BIN)/pybabel init -i playtable/i18n/messages.pot -d playtable/i18n/locales -l fi
i18n: install
	$(BIN)/pybabel -q extract -F babel.cfg -o playtable/i18n/messages.pot \
		--project=Playtable --copyright-holder="Playtable contributors" \
		--add-comments=Translators: --sort-by-file --width=100 .
	$(BIN)/pybabel -q update -i playtable/i18n/messages.pot -d playtable/i18n/locales \
		--width=100 --ignore-obsolete

# The opening book of the small Dots and Boxes boards (playtable/ai/book.py): rebuild it after
# a change to the solver's values or to the boards, then re-solve every stored position.
book: install
	$(BIN)/python -m playtable.ai.book build
	$(BIN)/python -m playtable.ai.book check

# The atlas of solved boards (playtable/ai/atlas.py): prove every board again and rewrite
# playtable/ai/atlas.json (some minutes), then re-prove a sample of what was stored.
atlas: install
	$(BIN)/playtable atlas build --time-limit 60
	$(BIN)/playtable atlas check --sample 10

bench: install
	$(BIN)/pip install --quiet -e '.[bench]'
	$(BIN)/python bench/engines.py

# The mypyc-compiled Dots and Boxes engine (PLAYTABLE_COMPILE=1 pip install .), built into a
# temporary directory that is deleted afterwards; the work tree stays pure Python.
bench-compiled: install
	$(BIN)/pip install --quiet -e '.[bench]'
	$(BIN)/python bench/engines.py --compiled

test-compiled: install
	$(BIN)/python bench/compiled.py -- $(BIN)/pytest -q -p no:cacheprovider \
		--import-mode=importlib tests/games tests/ai

# Loopback only, bounded; uses the local PostgreSQL and Redis (see bench/load.py).
bench-load: install
	$(BIN)/python bench/load.py

# Issue 17's attacks against a server it starts (loopback only, bounded); see bench/README.md.
bench-abuse: install
	nice -n 10 $(BIN)/python bench/abuse.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache
	rm -f playtable/ai/*.so
