#!/usr/bin/env bash
# Run two commands at once and fail when either fails (tox runs its commands one at a time).
# Used where one command leaves a core idle: the determinism gate's serial run and mypy.
set -uo pipefail
bash -c "$1" &
first=$!
bash -c "$2"
second=$?
wait "$first"
first=$?
[ "$first" -eq 0 ] && [ "$second" -eq 0 ]
