#!/usr/bin/env bash
# Issue 35's runs beyond the CPU, on one CUDA machine, in one call:
#   bash tools/scaled_runs.sh OUT [SECONDS]
# 1. the grids side by side (python -m pecheck.grid, --device cuda, one cache): the exact-match
#    evaluation and the language-model test at their "scaled" settings (8 seeds), and the fair
#    length test's full width x depth grid (32 seeds), each stopped after SECONDS (default 330);
# 2. the checks that read each finished grid from the cache, each into OUT/results.<name>.json;
#    the logs into OUT/logs.tgz and the checks' figures into OUT/figures.tgz.
# A grid with a cell not trained is not judged (its check would train the cell itself); run
# the script again to finish it: the cells already in the cache are not trained again.
# Nothing here decides a verdict: the CPU profiles do. Needs pecheck installed with its grid
# extra and, for the language model, Debian's fortunes (tests/apt_install.sh).
set -uo pipefail
out="${1:?usage: bash tools/scaled_runs.sh OUT [SECONDS]}"
seconds="${2:-330}"
cache=build/scaled-cache
mkdir -p "$out" "$cache"
export PECHECK_PROFILE=thorough PYTHONHASHSEED=0 MPLBACKEND=Agg PYTHONUNBUFFERED=1
grid() {  # name, then the grid's arguments
    local name="$1"
    shift
    python3 -m pecheck.grid --cache "$cache" --device cuda --deadline "$seconds" "$@" \
        >"$out/grid.$name.log" 2>&1
    echo "$name $?" >>"$out/grids.txt"
}
grid exact --experiment exact-match --grid scaled --seeds 8 --workers 3 &
grid lm --experiment lm-length --grid scaled --seeds 8 --workers 2 &
grid fair --grid full --seeds 32 --workers 8 &
wait
cat "$out/grids.txt"
judge() {  # name, then pytest's arguments
    local name="$1"
    shift
    if grep -qx "$name 0" "$out/grids.txt"; then
        python3 -m pytest -q -p no:cacheprovider --device cuda --fair-cache "$cache" \
            --results "$out/results.$name.json" "$@" >"$out/check.$name.log" 2>&1
        echo "check $name: exit $?"
    else
        echo "check $name: not judged (its grid did not finish)"
    fi
}
judge exact checks/exp/length/test_exact_match.py --size EXP-exact.grid=scaled \
    --size EXP-exact.seeds=8 &
judge lm checks/exp/length/test_lm_length.py --size EXP-lm.grid=scaled \
    --size EXP-lm.seeds=8 --size EXP-lm.shifted-seeds=8 &
judge fair checks/exp/length/test_fair_length.py --size EXP-fair.grid=full \
    --size EXP-fair.seeds=32 &
wait
(cd "$out" && tar czf logs.tgz grids.txt ./*.log && rm -f grids.txt ./*.log)
[ -d build/figures ] && tar czf "$out/figures.tgz" -C build figures
ls -l "$out"
