# assay developer commands. Everything runs inside a virtual environment made here.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# Extras installed for the test-suite (each heavy family adds its extra here).
TEST_EXTRAS ?= dev,safety,runner,robustness,calibrate,judge,local-llm,ner,embed,nli,toxicity,lm,generate,label,ray,agents,verdict,traces,langchain,llamaindex,docs
# llama-cpp-python (extra local-llm) builds from source: skip its multimodal tools, and build for
# AVX2 rather than for this CPU: a native build on a CPU with AMX (Sapphire Rapids) takes
# llama.cpp's AMX path, which segfaults on the first evaluation (ggml-org/llama.cpp#20824).
CMAKE_ARGS ?= -DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON
export CMAKE_ARGS

.PHONY: install install-latest demo test test-latest lint typecheck bench readme docs clean

# Known-good versions (pip freeze of a working environment): `make install` and `make test` (so CI)
# install with them, so a dependency's new release cannot break the build overnight. Users of the
# package still get the ranges in pyproject.toml; `make test-latest` tries the newest versions on
# purpose. Refresh with: $(BIN)/pip freeze --exclude-editable > constraints.txt
CONSTRAINTS ?= constraints.txt

$(BIN)/activate:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

install: $(BIN)/activate
	$(BIN)/python -m pip install -q -c $(CONSTRAINTS) torch==2.13.0  # CPU build first, so extras do not pull CUDA
	$(BIN)/python -m pip install -q -c $(CONSTRAINTS) -e ".[$(TEST_EXTRAS)]"

install-latest: $(BIN)/activate
	$(BIN)/python -m pip install -q torch==2.13.0  # CPU build first, so extras do not pull CUDA
	$(BIN)/python -m pip install -q --upgrade --upgrade-strategy eager -e ".[$(TEST_EXTRAS)]"

demo: $(BIN)/activate
	$(BIN)/python -m pip install -q -c $(CONSTRAINTS) torch==2.13.0  # CPU build first, so extras do not pull CUDA
	$(BIN)/python -m pip install -q -c $(CONSTRAINTS) -e ".[embed,toxicity,verdict]"
	$(BIN)/assay demo --out demo-run

test: install lint typecheck
	$(BIN)/python -m pytest -q --doctest-modules src tests scripts/heads

# The same test-suite against the newest releases pyproject.toml allows (no constraints file).
test-latest: install-latest lint typecheck
	$(BIN)/python -m pytest -q --doctest-modules src tests scripts/heads

lint:
	$(BIN)/ruff check src tests benchmarks scripts

typecheck:
	$(BIN)/mypy

bench: install
	$(BIN)/python benchmarks/run_all.py

readme: install
	$(BIN)/python scripts/update_readme.py

# The documentation site (mkdocs.yml) into build/site, strict: a broken link or a missing
# reference fails the build.
docs: install
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

clean:
	rm -rf $(VENV) demo-run build dist .pytest_cache .mypy_cache .ruff_cache
