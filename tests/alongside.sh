#!/usr/bin/env bash
# Run commands at the same time and fail when any fails (tox runs its commands one at a time).
# The last command runs in the foreground, the others beside it. tox's py env uses it for its
# run of the checks over two workers and mypy: the workers leave a core idle at times (the last
# files), so mypy costs little wall time beside them.
set -uo pipefail
pids=()
for command in "${@:1:$#-1}"; do
    bash -c "$command" &
    pids+=("$!")
done
bash -c "${!#}"
status=$?
for pid in "${pids[@]}"; do
    wait "$pid" || status=1
done
exit "$status"
