# Two commands do everything on a fresh machine (see README.md):
#   make run    create the environment if needed, then launch the app
#   make test   create the environment if needed, then run the whole test suite
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint bench demo-models screenshots clean bundle

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

# Standalone one-folder app in dist/attention-scope/ (PyInstaller; a few minutes, ~900 MB; not part of CI).
# Wants the CPU build of torch in $(VENV) (a CUDA build adds gigabytes): install it first, as .ci/run does,
# or set BUNDLE_ALLOW_CUDA=1 to bundle whatever torch is installed.
bundle: $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[bundle]"
	@$(BIN)/python -c "import os, sys, torch; cuda = torch.version.cuda; sys.exit(0 if cuda is None or os.environ.get('BUNDLE_ALLOW_CUDA') else f'make bundle: torch {torch.__version__} is a CUDA build; install the CPU build of torch into $(VENV) first (or set BUNDLE_ALLOW_CUDA=1)')"
	QT_QPA_PLATFORM=offscreen $(BIN)/pyinstaller --noconfirm --clean --log-level WARN --distpath dist --workpath build/pyinstaller assets/attention-scope.spec
	@du -sh dist/attention-scope
