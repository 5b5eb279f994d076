# Two commands do everything on a fresh machine (see README.md):
#   make run    create the environment if needed, then launch the app
#   make test   create the environment if needed, then run the whole test suite
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint bench demo-models screenshots clean

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test,hf,dev,bench,video]"
	@touch $(STAMP)

run: $(STAMP)
	$(BIN)/python -m viz_app

test: $(STAMP)
	$(BIN)/ruff check .
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check .

bench: $(STAMP)
	$(BIN)/python benchmarks/run_all.py

demo-models: $(STAMP)
	$(BIN)/python -m model_core.demo_models

clean:
	rm -rf $(VENV) build dist *.egg-info
