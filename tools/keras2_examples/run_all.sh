#!/bin/bash
# usage (from the repository root): tools/keras2_examples/run_all.sh OUTDIR BACKEND PROGRAM.py ...
# Runs each program with tools/keras2_examples/run_one.py on lamina (engine BACKEND), one
# log per program in OUTDIR, and prints each program's RESULT line (PROG_TIMEOUT seconds
# each, default 600).
out=$1; be=$2; shift 2
here=$(cd "$(dirname "$0")" && pwd)
python=${PYTHON:-python}
mkdir -p "$out"
for p in "$@"; do
  n=$(basename "$p" .py)
  LAMINA_BACKEND=$be PYTHONPATH=src${EXTRA_PYTHONPATH:+:$EXTRA_PYTHONPATH} PYTHONUNBUFFERED=1 \
    timeout "${PROG_TIMEOUT:-600}" "$python" "$here/run_one.py" "$p" lamina > "$out/$n.log" 2>&1
  grep -o "RESULT .*" "$out/$n.log" || echo "RESULT {\"program\": \"$n.py\", \"status\": \"timeout/crash\"}"
done
