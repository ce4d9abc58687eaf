#!/usr/bin/env bash
# Build the synthetic datasets (once) and run the resumable training pipeline.
# Usage: nohup bash companion/training/background.sh [DATA] [RUNS] > RUNS/background.log 2>&1 &
# Re-running it after an interruption skips finished datasets and stages and
# resumes the unfinished stage from its last.pt.
set -euo pipefail
DATA=${1:-/work/data}
RUNS=${2:-/work/train-runs}
PY=${PYTHON:-python}
mkdir -p "$DATA" "$RUNS"
build() {  # family n_train n_val
  if [ ! -f "$DATA/$1/BUILT" ]; then
    rm -rf "$DATA/$1"
    nice -n 10 $PY -m companion dataset build --family "$1" --n "$2" --n-val "$3" --out "$DATA/$1" --workers 2
    touch "$DATA/$1/BUILT"
  fi
}
build french "${N_FRENCH:-2400}" "${N_FRENCH_VAL:-300}"
build spanish "${N_SPANISH:-700}" "${N_SPANISH_VAL:-150}"
$PY -c "from companion.synth.build import write_combined_yaml as w; print(w('$DATA'))"


exec nice -n 5 $PY -m companion.training.train pipeline --data "$DATA" --runs "$RUNS" --resume \
  --det-epochs "${DET_EPOCHS:-30}" --cls-epochs "${CLS_EPOCHS:-20}" ${TRAIN_ARGS:-}
