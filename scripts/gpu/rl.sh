#!/usr/bin/env bash
# `make train` on the GPU host (docs/training.md, "The experiment"): a short multi-turn GRPO run from the
# SFT checkpoint, with the held-out evaluation (turn 1 and best-of-T, training families and held-out
# families) before and after it, in one command. Runs on its own or right after scripts/gpu/sft.sh in the
# same device call (scripts/gpu/session.sh): it then reuses sft.sh's build (build-gpu), dataset and
# checkpoint, which stay on the host under /tmp/cudaperf-sft.
#   1. builds cudaperf-train, cudaperf-eval (+ worker), cudaperf-dataset (incremental after sft.sh);
#   2. the dataset: sft.sh's, else generated;
#   3. cudaperf-train rl --config data/rl/h200.json for RL_SECONDS of training (evaluations on top),
#      rewards from the persistent evaluator (cudaperf-eval --serve) or one cudaperf-eval per candidate;
#   4. RL_ABLATIONS=1: the same seeds and budget with reward_mode=outcome, then with turns=1;
#      RL_ABLATIONS=parallel: the run and both ablations at the same time, RL_SECONDS each (RL_EVAL_JOBS
#      evaluator workers each, default 5), for equal budgets in one device call;
#   5. packs logs, curves and the LoRA state (exact resume in a later call) under OUTDIR.
# Usage: scripts/gpu/rl.sh [OUTDIR]   (default $OUT, else /tmp/rl)
# Carry: .carry/deps (scripts/pack-deps.sh), .carry/analyzer (scripts/pack-analyzer.sh, 16 MB: the unified
# reward's static terms); data/models/sft when sft.sh does not run first.
# Environment: RL_SFT_DIR (default /tmp/cudaperf-sft/sft/checkpoint, else data/models/sft), RL_SECONDS
# (training seconds, default 200), RL_TOTAL_SECONDS (whole-script deadline, default RL_SECONDS + 170),
# RL_SEED (0), RL_ARM (the main run's arm: unified-ranker (default), unified, outcome, single-turn),
# RL_ABLATION_ARMS (with RL_ABLATIONS; default "outcome single-turn"), RL_SET (extra "--set K=V ..." for cudaperf-train rl), RL_ABLATIONS (0), RL_ABLATION_SECONDS
# (default RL_SECONDS / 2 each), RL_RESUME_TAR (an rl-state.tar.gz of an earlier call: resume from it),
# RL_GDB (1: run cudaperf-train under gdb where the host has it), RL_ANALYZER (a cudaperf-analyze to run; default: the package
# RL_ANALYZER_PACK (.carry/analyzer, scripts/pack-analyzer.sh) unpacked by scripts/gpu/unpack-analyzer.sh when
# carried, else /tmp/cudaperf-analyzer/cudaperf-analyze when an earlier call of the session unpacked it, else
# none: the static terms are then neutral).
# RL_EVAL_POLICY, RL_EVAL_MODES, RL_EVAL_TASKS, RL_EVAL_HELD_OUT: evaluate finished policies instead (below).
# Writes OUTDIR/{summary.txt,rl.log,rl-report.tar.gz,rl-state.tar.gz[,ablations.tar.gz]}.
# Commit: the summary table and curves into docs/training.md ("Results"); rl-state.tar.gz travels back
# (carry) to continue with RL_RESUME_TAR. Exit 1 if a step failed.
set -uo pipefail
out=${1:-${OUT:-/tmp/rl}}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
export PATH=$PWD/.carry/deps/bin:/opt/torch/.venv/bin:/usr/local/cuda/bin:$PATH
export NCCL_NVLS_ENABLE=0
mkdir -p "$out"
work=/tmp/cudaperf-rl
rm -rf "$work" && mkdir -p "$work/logs"
exec > >(tee -a "$out/rl.log") 2>&1
summary=$out/summary.txt
: > "$summary"
note() { echo "$*" | tee -a "$summary"; }
rl_seconds=${RL_SECONDS:-200}
deadline=$(( $(date +%s) + ${RL_TOTAL_SECONDS:-$(( rl_seconds + 170 ))} ))
left() { echo $(( deadline - $(date +%s) )); }
cap() { local want=$1 l; l=$(( $(left) - 15 )); [ "$l" -lt "$want" ] && want=$l; [ "$want" -lt 1 ] && want=1; echo "$want"; }
seed=${RL_SEED:-0}
failed=0
pack() {
  local files=()
  for f in build.log dataset.log export.log; do [ -f "$work/logs/$f" ] && cp "$work/logs/$f" "$out/" && files+=("$f"); done
  if [ -d "$work/run" ]; then
    for f in rl-config.json rl-log.jsonl eval.jsonl rl-report.json reward.svg correctness.svg speedup.svg train.log; do
      [ -f "$work/run/$f" ] && cp "$work/run/$f" "$out/" && files+=("$f")
    done
    [ -f "$work/run/candidates.jsonl" ] && gzip -c "$work/run/candidates.jsonl" > "$out/candidates.jsonl.gz" && files+=(candidates.jsonl.gz)
    [ -d "$work/run/state" ] && tar -czf "$out/rl-state.tar.gz" -C "$work/run" state $( [ -d "$work/run/adapter" ] && echo adapter )
  fi
  [ ${#files[@]} -gt 0 ] && tar -czf "$out/rl-report.tar.gz" -C "$out" "${files[@]}" && (cd "$out" && rm -f "${files[@]}")
  local abl=()
  for d in unified outcome single-turn; do [ -d "$work/ablation-$d" ] && abl+=("ablation-$d"); done
  if [ ${#abl[@]} -gt 0 ]; then
    for d in "${abl[@]}"; do rm -rf "$work/$d/work" "$work/$d/checkpoint" "$work/$d/state" "$work/$d/adapter"; gzip -f "$work/$d/candidates.jsonl" 2>/dev/null; done
    tar -czf "$out/ablations.tar.gz" -C "$work" "${abl[@]}"
  fi
}

# The experiment's arms (docs/training.md, "The experiment"): what each sets on top of data/rl/h200.json.
arm_set() { # ARM -> "K=V" (empty for the main arm)
  case $1 in
    unified-ranker) echo "" ;;                            # the config as is: unified reward + the ranking model
    unified) echo "ranking_checkpoint=none" ;;           # the unified reward without the learned term
    outcome) echo "reward_mode=outcome" ;;               # outcome-only reward
    single-turn) echo "turns=1" ;;                       # no second turn with feedback
    *) return 1 ;;
  esac
}
# RL_ARM: which arm the main run is (default unified-ranker); RL_ABLATION_ARMS: the arms run beside or
# after it with RL_ABLATIONS (default "outcome single-turn").
arm=${RL_ARM:-unified-ranker}
arm_kv=$(arm_set "$arm") || { note "RESULT: FAILED (RL_ARM=$arm: not one of unified-ranker unified outcome single-turn)"; exit 2; }
main_set=()
[ -n "$arm_kv" ] && main_set=(--set "$arm_kv")
note "arm: $arm${arm_kv:+ ($arm_kv)}, seed $seed"
ablations=()
for a in ${RL_ABLATION_ARMS:-outcome single-turn}; do
  kv=$(arm_set "$a") && [ -n "$kv" ] || { note "RESULT: FAILED (RL_ABLATION_ARMS: $a is not an ablation arm)"; exit 2; }
  ablations+=("$a:$kv")
done

note "== machine"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee -a "$summary"
note "commit $(cat SOURCE_COMMIT 2>/dev/null || git rev-parse --short HEAD 2>/dev/null || echo unknown)"

note "== build"
SECONDS=0
. scripts/gpu/build-gpu.sh
# cudaperf-torch-reference: the pytorch-to-cuda tasks' reference (without it every PyTorch candidate is internal_error)
gpu_build "$work/logs/build.log" 120 300 cudaperf-dataset cudaperf-train cudaperf-eval cudaperf-eval-worker cudaperf-torch-reference
rc=$?
note "build rc=$rc in ${SECONDS} s"
grep -E "error|NOT found|unknown target" "$work/logs/build.log" | head -20 | tee -a "$summary"
bin=$root/build-gpu/bin
for b in cudaperf-train cudaperf-eval; do
  [ -x "$bin/$b" ] || { note "RESULT: FAILED (no $b)"; pack; exit 1; }
done

note "== inputs"
sft=${RL_SFT_DIR:-}
if [ -z "$sft" ]; then
  if [ -f /tmp/cudaperf-sft/sft/checkpoint/config.json ]; then sft=/tmp/cudaperf-sft/sft/checkpoint; else sft=$root/data/models/sft; fi
fi
# The committed checkpoint (data/models/README.md) travels compressed: unpacked and verified here.
if [ "$sft" = "$root/data/models/sft" ] && [ ! -f "$sft/config.json" ] && [ -f "$root/data/models/sft.tar.zst" ]; then
  bash scripts/unpack-model.sh >> "$work/logs/unpack-model.log" 2>&1 || note "unpacking data/models/sft.tar.zst failed (unpack-model.log)"
fi
[ -f "$sft/config.json" ] && [ -f "$sft/tokenizer.json" ] || { note "RESULT: FAILED (no SFT checkpoint in $sft)"; pack; exit 1; }
note "SFT checkpoint: $sft"
dataset=/tmp/cudaperf-sft/dataset
if [ ! -f "$dataset/manifest.jsonl" ]; then
  dataset=$work/dataset
  SECONDS=0
  timeout "$(cap 150)" "$bin/cudaperf-dataset" generate --out "$dataset" --kind all --jobs "$(nproc)" > "$work/logs/dataset.log" 2>&1
  note "cudaperf-dataset generate rc=$? in ${SECONDS} s"
fi
[ -f "$dataset/manifest.jsonl" ] || { note "RESULT: FAILED (no dataset)"; pack; exit 1; }
note "dataset: $dataset ($(wc -l < "$dataset/manifest.jsonl") tasks)"
# The PyTorch tasks' exported modules (the evaluator's reference for them; without them every PyTorch
# candidate that compiles gets internal_error: the void arm of 2026-12-07). Kept with a kept dataset.
SECONDS=0
timeout "$(cap 180)" bash scripts/export-dataset-pytorch.sh "$dataset" "$(nproc)" > "$work/logs/export.log" 2>&1
note "PyTorch exports rc=$? in ${SECONDS} s: $(grep -c '^error' "$work/logs/export.log") failures; $(tail -1 "$work/logs/export.log")"
analyzer=${RL_ANALYZER:-}
if [ -z "$analyzer" ] && [ -d "${RL_ANALYZER_PACK:-.carry/analyzer}" ]; then
  bash scripts/gpu/unpack-analyzer.sh "${RL_ANALYZER_PACK:-.carry/analyzer}" /tmp/cudaperf-analyzer > "$work/logs/analyzer-unpack.log" 2>&1 ||
    note "analyzer package unusable: $(tail -1 "$work/logs/analyzer-unpack.log")"
fi
[ -z "$analyzer" ] && [ -x /tmp/cudaperf-analyzer/cudaperf-analyze ] && analyzer=/tmp/cudaperf-analyzer/cudaperf-analyze
[ -z "$analyzer" ] && analyzer=none
note "analyzer: $analyzer$( [ "$analyzer" = none ] && echo ' (static terms neutral: unified = outcome + constants)')"
# The persistent evaluator where this build has it, else one process per candidate.
evaluator=process
"$bin/cudaperf-eval" --help 2>&1 | grep -q -- "--serve" && evaluator=serve
note "evaluator: $evaluator"

# cudaperf-train rl with the experiment's config and this run's paths; extra arguments after.
eval_args_json() { # cudaperf-eval's arguments for the rewards (serve: its worker count)
  local timing='"--sets","2","--budget-ms","40","--timeout","30","--stall-timeout","10"'
  if [ "$evaluator" = serve ]; then echo '["--jobs","'"${RL_EVAL_JOBS:-12}"'",'"$timing"']'; else echo "[$timing]"; fi
}
run_rl() { # DIR SECONDS [--set K=V]...
  local dir=$1 secs=$2; shift 2
  local eval_args fit
  # The trainer stops itself at max_seconds, finishes its step and saves its state; killed at the call's
  # deadline instead, it loses the steps since its last save (every save_every steps). So max_seconds ends
  # 60 s before the deadline's kill (the last step, the state, the report), however long the build took.
  fit=$(( $(left) - 15 - 60 ))
  if [ "$secs" -gt 0 ] && [ "$fit" -lt "$secs" ]; then
    [ "$fit" -lt 1 ] && fit=1
    note "rl: $(basename "$dir"): max_seconds $fit instead of $secs (the call's deadline)"
    secs=$fit
  fi
  eval_args=$(eval_args_json)
  # RL_GDB=1 (where gdb exists): under gdb, every thread's stack printed if it stops on a signal.
  local dbg=()
  [ "${RL_GDB:-0}" = 1 ] && command -v gdb > /dev/null &&
    dbg=(gdb -q -batch -ex "handle SIGPIPE nostop noprint" -ex run -ex "thread apply all bt 25" --args)
  # Each run its own result cache: identical candidates within a run reuse their results, runs in
  # parallel (RL_ABLATIONS=parallel) do not share one directory.
  # shellcheck disable=SC2086
  CUDAPERF_CACHE_DIR=$work/cache-$(basename "$dir") \
  timeout --kill-after=10 "$(cap $(( secs + 150 )))" "${dbg[@]}" "$bin/cudaperf-train" rl --config data/rl/h200.json --out "$dir" \
    --set model="$sft" --set dataset="$dataset" --set seed="$seed" --set max_seconds="$secs" \
    --set evaluator="$evaluator" --set eval_path="$bin/cudaperf-eval" --set analyzer_path="$analyzer" \
    --set eval_args="$eval_args" "$@" ${RL_SET:-}
}

# A finished run's lines in the summary: its evaluations, step count and environment (the last LINES), and
# its log's tail when it failed (then the script fails too).
report_rl() { # NAME (folder under $work) RC LINES
  grep -E "eval |steps \(|environment:|skipped" "$work/$1/train.log" | tail -"$3" | tee -a "$summary"
  [ "$2" -eq 0 ] || { failed=1; tail -5 "$work/$1/train.log" | tee -a "$summary"; }
}

# RL_EVAL_POLICY: the held-out evaluation of finished policies instead of training (docs/training.md,
# "Evaluating an arm"). Each item is LABEL=sft (the SFT checkpoint) or ARM=STATE (an arm's state, .tar.bp.zst as
# arm.sh returns it or an rl-state.tar.gz: its checkpoint is written first by resuming it with steps = its step,
# the arm's settings and RL_SET, so `--resume` checks they are the arm's). Every policy is evaluated in every
# RL_EVAL_MODES mode (greedy: 1 sample at temperature 0; sampled4: 4 samples at 0.8) on RL_EVAL_TASKS test
# tasks of the training families (48) and RL_EVAL_HELD_OUT of held-out families (12), the same tasks for all;
# OUTDIR/eval-LABEL-MODE.tar.gz holds eval-policy.json and candidates.jsonl.gz (scripts/eval-report.py).
if [ -n "${RL_EVAL_POLICY:-}" ]; then
  note "== held-out evaluation: ${RL_EVAL_POLICY} (modes ${RL_EVAL_MODES:-greedy sampled4})"
  for item in $RL_EVAL_POLICY; do
    label=${item%%=*}; what=${item#*=}; model=
    if [ "$what" = sft ]; then
      model=$sft
    else
      kv=$(arm_set "$label") || { note "$item: $label is not an arm (unified-ranker unified outcome single-turn)"; failed=1; continue; }
      dir=$work/export-$label
      rm -rf "$dir" && mkdir -p "$dir"
      bash scripts/pack/state-tar.sh "$what" | tar -x -C "$dir"
      at=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["extra"]["rl_step"])' "$dir/state/trainer_state.json" 2>/dev/null)
      [ -n "$at" ] || { note "$item: no trainer state with an rl_step in $what"; failed=1; continue; }
      SECONDS=0
      run_rl "$dir" 0 --resume --set steps="$at" --set eval_tasks=0 --set eval_held_out_family_tasks=0 \
        ${kv:+--set "$kv"} > "$dir/train.log" 2>&1
      note "$label: checkpoint of step $at rc=$? in ${SECONDS} s"
      [ -f "$dir/checkpoint/config.json" ] && model=$dir/checkpoint ||
        { tail -3 "$dir/train.log" | tee -a "$summary"; failed=1; continue; }
    fi
    for mode in ${RL_EVAL_MODES:-greedy sampled4}; do
      case $mode in
        greedy) ms=(--set eval_samples=1 --set eval_temperature=0) ;;
        sampled4) ms=(--set eval_samples=4 --set eval_temperature=0.8) ;;
        *) note "RL_EVAL_MODES: $mode is not greedy or sampled4"; failed=1; continue ;;
      esac
      [ "$(left)" -lt 60 ] && { note "eval $label $mode: skipped ($(left) s left)"; continue; }
      d=$work/eval-$label-$mode
      rm -rf "$d" && mkdir -p "$d"
      SECONDS=0
      # shellcheck disable=SC2086
      CUDAPERF_CACHE_DIR=$work/cache-eval timeout --kill-after=10 "$(cap 3600)" "$bin/cudaperf-train" eval-policy \
        --config data/rl/h200.json --model "$model" --out "$d" --set dataset="$dataset" --set seed="$seed" \
        --set evaluator="$evaluator" --set eval_path="$bin/cudaperf-eval" --set analyzer_path="$analyzer" \
        --set eval_args="$(eval_args_json)" --set eval_tasks="${RL_EVAL_TASKS:-48}" \
        --set eval_held_out_family_tasks="${RL_EVAL_HELD_OUT:-12}" "${ms[@]}" ${RL_SET:-} > "$d/eval.log" 2>&1
      rc=$?
      note "eval $label $mode rc=$rc in ${SECONDS} s"
      [ $rc -eq 0 ] || { failed=1; tail -3 "$d/eval.log" | tee -a "$summary"; }
      [ -f "$d/candidates.jsonl" ] && gzip -f "$d/candidates.jsonl" &&
        python3 scripts/eval-report.py "$d/candidates.jsonl.gz" 2>&1 | head -30 | tee -a "$summary"
      tar -czf "$out/eval-$label-$mode.tar.gz" -C "$work" "eval-$label-$mode"
    done
  done
  pack
  if [ $failed -eq 0 ]; then note "RESULT: ok"; else note "RESULT: FAILED (see above)"; fi
  exit $failed
fi

if [ "${RL_ABLATIONS:-0}" = parallel ]; then
  # The run and both ablations at once, each with its own evaluator (RL_EVAL_JOBS workers, default 5: three
  # evaluators on the host's 16 cores) and the same seed and training seconds: equal wall-clock budgets on a
  # shared GPU and CPU. Timings are taken while the other runs generate and evaluate (each result says so:
  # gpu_shared), which is the same for the three; compare them with each other, not with a quiet run.
  export RL_EVAL_JOBS=${RL_EVAL_JOBS:-5}
  note "== RL and ablations in parallel (${rl_seconds} s of training each, ${RL_EVAL_JOBS} evaluator workers each)"
  pids=()
  mkdir -p "$work/run"
  run_rl "$work/run" "$rl_seconds" --set reward_jobs="$RL_EVAL_JOBS" "${main_set[@]}" > "$work/run/train.log" 2>&1 &
  pids+=("run:$!")
  for spec in "${ablations[@]}"; do
    name=${spec%%:*}; set_kv=${spec#*:}
    mkdir -p "$work/ablation-$name"
    run_rl "$work/ablation-$name" "$rl_seconds" --set reward_jobs="$RL_EVAL_JOBS" --set "$set_kv" > "$work/ablation-$name/train.log" 2>&1 &
    pids+=("ablation-$name:$!")
  done
  SECONDS=0
  for p in "${pids[@]}"; do
    name=${p%%:*}
    wait "${p#*:}"
    rc=$?
    note "$name rc=$rc after ${SECONDS} s"
    report_rl "$name" "$rc" 8
  done
else
note "== RL (cudaperf-train rl, ${rl_seconds} s of training)"
mkdir -p "$work/run"
resume=()
if [ -n "${RL_RESUME_TAR:-}" ] && [ -f "$RL_RESUME_TAR" ]; then
  tar -xzf "$RL_RESUME_TAR" -C "$work/run" && resume=(--resume) && note "resuming from $RL_RESUME_TAR"
fi
SECONDS=0
run_rl "$work/run" "$rl_seconds" "${main_set[@]}" "${resume[@]}" > "$work/run/train.log" 2>&1
rc=$?
note "cudaperf-train rl rc=$rc in ${SECONDS} s"
report_rl run "$rc" 12
fi

if [ "${RL_ABLATIONS:-0}" = 1 ]; then
  abl_seconds=${RL_ABLATION_SECONDS:-$(( rl_seconds / 2 ))}
  for spec in "${ablations[@]}"; do
    name=${spec%%:*}; set_kv=${spec#*:}
    [ "$(left)" -lt $(( abl_seconds + 60 )) ] && { note "ablation $name: skipped ($(left) s left)"; continue; }
    note "== ablation $name ($set_kv, ${abl_seconds} s)"
    SECONDS=0
    mkdir -p "$work/ablation-$name"
    run_rl "$work/ablation-$name" "$abl_seconds" --set "$set_kv" > "$work/ablation-$name/train.log" 2>&1
    note "ablation $name rc=$? in ${SECONDS} s"
    grep -E "eval " "$work/ablation-$name/train.log" | tee -a "$summary"
  done
fi

note "== summary (held-out evaluation, greedy; correct / fast_1 / mean speedup of correct)"
python3 - "$work" <<'PY' | tee -a "$summary"
import glob, json, os, sys
work = sys.argv[1]
def row(v, key):
    x = v[key]
    f = lambda a: "n/a" if a is None else ("%.1f%%" % (100 * a))
    s = x.get("mean_speedup_correct")
    return "%s / %s / %s" % (f(x.get("correct")), f(x.get("fast_1")), "n/a" if s is None else "%.2fx" % s)
print("%-12s %-10s %-18s %-24s %-24s" % ("run", "eval", "set", "turn 1", "best of T"))
for run in ["run"] + sorted(os.path.basename(d) for d in glob.glob(os.path.join(work, "ablation-*"))):
    path = os.path.join(work, run, "eval.jsonl")
    if not os.path.exists(path):
        continue
    for line in open(path):
        e = json.loads(line)
        for name, v in e["sets"].items():
            print("%-12s %-10s %-18s %-24s %-24s" % (run, e["label"], "%s (%d)" % (name, v["tasks"]), row(v, "turn1"), row(v, "best_of_turns")))
log = os.path.join(work, "run", "rl-log.jsonl")
if os.path.exists(log):
    lines = [json.loads(l) for l in open(log) if l.strip()]
    if lines:
        last = lines[-1]
        print("steps %d; last step: reward %.3f, correct %.1f%%, %d candidates, %.0f tokens/s, %.1f s (generate %.1f, reward wait %.1f, update %.1f)" % (
            last["step"], last["reward_mean"] or 0, 100 * (last["correct_rate"] or 0), last["candidates"], last["tokens_per_second"],
            last["seconds"]["step"], last["seconds"]["generate"], last["seconds"]["reward_wait"], last["seconds"]["update"]))
PY

note "== pack"
pack
ls -l "$out" | tee -a "$summary"
if [ $failed -eq 0 ]; then note "RESULT: ok"; else note "RESULT: FAILED (see above)"; fi
exit $failed
