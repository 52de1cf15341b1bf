# Thin wrappers over CMake. Each target works as the first command on a fresh Debian 12 machine:
# it installs missing packages (scripts/install-deps.sh, apt) and configures the build as needed.
BUILD_DIR ?= build
BUILD_TYPE ?= Release
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=
FILE ?=
ARGS ?=

GENERATOR := $(if $(shell command -v ninja 2>/dev/null),-G Ninja,)
ANALYZE := $(BUILD_DIR)/bin/cudaperf-analyze

.PHONY: all build deps configure test demo analyze tasks clean help

all: build

help:
	@echo "make demo                 build the analyzer only, analyze data/examples/transpose.cu, show the findings"
	@echo "make test                 build, then run every unit and lit test (ctest)"
	@echo "make build                build everything into $(BUILD_DIR)/"
	@echo "make analyze FILE=x.cu    analyze a file (ARGS='--format=json' for JSON)"
	@echo "make deps                 install missing Debian packages (apt)"
	@echo "make validate             GPU host only: predictions against CUPTI counters (scripts/gpu/validate.sh)"
	@echo "make tasks                PyTorch problems: task.json and exported/ per data/tasks/pytorch/* (GPU, PyTorch)"
	@echo "make dataset              generate the training dataset into $(BUILD_DIR)/dataset/ (docs/dataset.md)"
	@echo "make sft                  GPU host only: dataset, SFT of the policy, held-out evaluation (scripts/gpu/sft.sh)"
	@echo "make lm-crosscheck        GPU host only: cudaperf-lm against transformers, speed, memory fit"
	@echo "make rank                 the ranking model: examples, training, evaluation, cross-validation (docs/ranking.md)"
	@echo "make train                GPU host only: multi-turn RL from the SFT checkpoint (scripts/gpu/rl.sh)"
	@echo "make eval-policy          held-out evaluation of MODEL= (turn 1, best of T; docs/training.md)"

deps:
	@scripts/install-deps.sh

$(BUILD_DIR)/CMakeCache.txt:
	@scripts/install-deps.sh
	cmake -S . -B $(BUILD_DIR) $(GENERATOR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_FLAGS)

configure: $(BUILD_DIR)/CMakeCache.txt

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

# The analyzer alone (not the LibTorch programs and tests that `make build` adds).
demo: configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target cudaperf-analyze
	@echo "== cudaperf-analyze data/examples/transpose.cu"
	@$(ANALYZE) data/examples/transpose.cu

analyze: configure
	@if [ -z "$(FILE)" ]; then echo "usage: make analyze FILE=path/to/file.cu [ARGS=...]"; exit 2; fi
	cmake --build $(BUILD_DIR) -j $(JOBS) --target cudaperf-analyze
	@$(ANALYZE) $(ARGS) $(FILE)

# Needs a GPU and python3 with PyTorch (on the GPU host: PATH=/opt/torch/.venv/bin:$PATH); docs/pytorch-tasks.md.
tasks:
	python3 scripts/import-pytorch-task.py data/tasks/pytorch/*/model.py

clean:
	rm -rf $(BUILD_DIR)

# GPU host only (an H200 with CUDA 13; the analyzer carried as .carry/analyzer, made here by
# scripts/pack-analyzer.sh): measures the corpus and the task implementations with the CUPTI counters
# and compares them with the analyzer's predictions (docs/accuracy.md, "Validation against measured counters").
.PHONY: validate
validate:
	bash scripts/gpu/validate.sh $(OUT)

# The generated training dataset (docs/dataset.md): C->CUDA and PyTorch->CUDA tasks with labeled
# implementations, manifest.jsonl and dataset.json. SEED= picks another dataset.
.PHONY: dataset
SEED ?= 1
dataset: configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target cudaperf-dataset
	$(BUILD_DIR)/bin/cudaperf-dataset generate --out $(BUILD_DIR)/dataset --seed $(SEED)

# GPU host only (LibTorch with CUDA, transformers; .carry/deps from scripts/pack-deps.sh): supervised
# fine-tuning of the policy on the generated dataset and its held-out evaluation (docs/training.md), and
# the policy model against transformers with the speed and memory-fit measurements (docs/policy-model.md).
.PHONY: sft lm-crosscheck
sft:
	bash scripts/gpu/sft.sh $(OUT)
lm-crosscheck:
	bash scripts/gpu/lm-crosscheck.sh $(OUT)

# The offline ranking model on everything measured (docs/ranking.md): examples (runs the analyzer,
# cached), the three model kinds, the evaluation beside the baselines and leave-one-family-out
# cross-validation, the scoring throughput; results into data/ranking/. CPU only.
.PHONY: rank
rank: configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target cudaperf-rank cudaperf-analyze cudaperf-dataset
	bash scripts/rank.sh $(BUILD_DIR)

# GPU host only (.carry/deps; the SFT checkpoint in data/models/sft or sft.sh's /tmp/cudaperf-sft): multi-turn
# GRPO from the SFT checkpoint with the held-out evaluation before and after (docs/training.md, "The
# experiment"). RL_SECONDS of training (default 900: with the evaluations within 20 minutes on one H200),
# by default with both ablations (outcome-only reward, single turn) run beside it with the same seed and
# seconds, as the recorded experiment was; RL_ABLATIONS=0 trains the RL run alone (all evaluator workers).
# Carry .carry/analyzer (scripts/pack-analyzer.sh) for the unified reward's structural terms.
.PHONY: train eval-policy
RL_SECONDS ?= 900
RL_ABLATIONS ?= parallel
train:
	RL_ABLATIONS=$(RL_ABLATIONS) RL_SECONDS=$(RL_SECONDS) RL_TOTAL_SECONDS=$$(( $(RL_SECONDS) + 300 )) bash scripts/gpu/rl.sh $(OUT)
# The held-out evaluation of a checkpoint (MODEL=, default data/models/sft), with the experiment's config;
# on a machine without a GPU add RL_EVAL_ARGS='--set device=cpu --set dtype=float32 --set static_only=true'.
MODEL ?= data/models/sft
RL_EVAL_ARGS ?=
eval-policy: configure
	@[ "$(MODEL)" != data/models/sft ] || [ -f data/models/sft/config.json ] || bash scripts/unpack-model.sh
	cmake --build $(BUILD_DIR) -j $(JOBS) --target cudaperf-train cudaperf-eval cudaperf-eval-worker cudaperf-torch-reference cudaperf-dataset
	@[ -f $(BUILD_DIR)/dataset/manifest.jsonl ] || $(BUILD_DIR)/bin/cudaperf-dataset generate --out $(BUILD_DIR)/dataset
	bash scripts/export-dataset-pytorch.sh $(BUILD_DIR)/dataset $(JOBS)
	$(BUILD_DIR)/bin/cudaperf-train eval-policy --config data/rl/h200.json --model $(MODEL) \
	  --set dataset=$(BUILD_DIR)/dataset --out $(BUILD_DIR)/eval-policy $(RL_EVAL_ARGS)
