# Two commands do everything on a fresh machine (see README.md):
#   make run    create the environment if needed, install what running needs, then launch the app
#   make test   create the environment if needed, install what the tests need, then run the whole test suite
# TORCH_CPU=1 (make run TORCH_CPU=1) installs the CPU-only build of PyTorch (~1 GB instead of ~3 GB for CUDA).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
TORCH_CPU ?=
TORCH_CPU_INDEX := https://download.pytorch.org/whl/cpu
# empty unless TORCH_CPU is set: then the CPU build of torch goes in before the package (which then keeps it)
TORCH_INSTALL = $(if $(TORCH_CPU),$(BIN)/python -m pip install --quiet torch --index-url $(TORCH_CPU_INDEX))
# Two stamps: what running needs (the base package), and what the tests need on top (test, dev, hf, video, bench).
# `make test` leaves both, so a later `make run` installs nothing; both are redone when pyproject.toml changes.
RUN_STAMP := $(VENV)/.installed-run
TEST_STAMP := $(VENV)/.installed-test
TEST_EXTRAS := test,dev,hf,video,bench

.PHONY: run test lint bench demo-models screenshots clean bundle

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# running installs the package as a user would (a wheel: pip prints no warning)
$(RUN_STAMP): pyproject.toml | $(BIN)/python
	$(TORCH_INSTALL)
	rm -rf build  # setuptools builds the wheel from build/lib: a file removed from the checkout must not linger there
	$(BIN)/python -m pip install --quiet .
	@touch $(RUN_STAMP)

# the tests install the package as a wheel too (no editable-install notice), rebuilt when any installed file changes,
# so the entry-point scripts the tests run are the checkout's code
PACKAGE_FILES := $(shell git ls-files model_core viz_app assets 2>/dev/null)
$(TEST_STAMP): pyproject.toml $(PACKAGE_FILES) | $(BIN)/python
	$(TORCH_INSTALL)
	rm -rf build  # setuptools builds the wheel from build/lib: a file removed from the checkout must not linger there
	$(BIN)/python -m pip install --quiet ".[$(TEST_EXTRAS)]"
	@touch $(RUN_STAMP) $(TEST_STAMP)

run: $(RUN_STAMP)
	$(BIN)/python -m viz_app

test: $(TEST_STAMP)
	$(BIN)/ruff check .
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest

lint: $(TEST_STAMP)
	$(BIN)/ruff check .

bench: $(TEST_STAMP)
	$(BIN)/python benchmarks/run_all.py

# tools that regenerate shipped material (docs/tools/: not installed with the app); PYTHONPATH=. runs them on this checkout
demo-models: $(RUN_STAMP)
	PYTHONPATH=. $(BIN)/python docs/tools/demo_models.py

screenshots: $(TEST_STAMP)
	PYTHONPATH=. QT_QPA_PLATFORM=offscreen $(BIN)/python docs/tools/screenshots.py

clean:
	rm -rf $(VENV) build dist *.egg-info

# Standalone one-folder app in dist/attention-scope/ (PyInstaller; a few minutes, ~900 MB; not part of CI).
# Wants the CPU build of torch in $(VENV) (a CUDA build adds gigabytes): install it first (TORCH_CPU=1, or as
# .ci/run does), or set BUNDLE_ALLOW_CUDA=1 to bundle whatever torch is installed.
bundle: $(RUN_STAMP)
	$(BIN)/python -m pip install --quiet -e ".[bundle]"
	@$(BIN)/python -c "import os, sys, torch; cuda = torch.version.cuda; sys.exit(0 if cuda is None or os.environ.get('BUNDLE_ALLOW_CUDA') else f'make bundle: torch {torch.__version__} is a CUDA build; install the CPU build of torch into $(VENV) first (make run TORCH_CPU=1, or set BUNDLE_ALLOW_CUDA=1)')"
	QT_QPA_PLATFORM=offscreen $(BIN)/pyinstaller --noconfirm --clean --log-level WARN --distpath dist --workpath build/pyinstaller assets/attention-scope.spec
	@du -sh dist/attention-scope
