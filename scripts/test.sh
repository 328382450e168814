#!/bin/sh
# npm test: the type check (strict) and the project's tests. The type check runs beside the tests,
# not before them: on a fresh clone it takes ~4 s of CPU (TypeScript 7, the native compiler; 5.9
# took ~22), which the tests leave free while they build dist/. Either failing fails npm test.
tsc --noEmit --incremental --tsBuildInfoFile node_modules/.cache/tsc/test.tsbuildinfo &
types=$!
# A background job of a non-interactive shell ignores Ctrl-C: it is stopped with the tests.
trap 'kill "$types" 2>/dev/null' INT TERM
vitest run --config test/vitest.config.ts "$@"
tests=$?
if ! wait "$types"; then
  echo "npm test: the type check failed (tsc --noEmit, above)" >&2
  exit 1
fi
exit "$tests"
