#!/bin/bash
# usage (from the repository root): tools/keras_io_examples/run_all.sh OUTDIR ENGINE PROGRAM.py ...
# ENGINE is jax or torch (lamina) or keras (Keras 3 on JAX). Runs each program with
# tools/keras_io_examples/run_one.py in its own process, one after the other (PROG_TIMEOUT
# seconds each, default 300), one log per program in OUTDIR, and prints each RESULT line.
out=$1; engine=$2; shift 2
here=$(cd "$(dirname "$0")" && pwd)
python=${PYTHON:-python}
flavour=lamina; [ "$engine" = keras ] && flavour=keras
mkdir -p "$out"
for p in "$@"; do
  n=$(basename "$p" .py)
  LAMINA_BACKEND=$engine PYTHONPATH=${LAMINA_SRC:-src} PYTHONUNBUFFERED=1 \
    timeout "${PROG_TIMEOUT:-300}" "$python" "$here/run_one.py" "$p" $flavour > "$out/$n.log" 2>&1
  grep -o "RESULT .*" "$out/$n.log" || echo "RESULT {\"program\": \"$n.py\", \"status\": \"timeout/crash\"}"
done
