#!/bin/sh
# npm test: the type check (strict) and the project's tests. The type check runs beside the tests,
# not before them, on TypeScript 7's native compiler (typescript-native: ~4 CPU-s on a fresh clone,
# against ~22 for 5.9, which stays `typescript` for the tools that use its JavaScript API: Stryker,
# the coverage table's source sites, the layers test). Either failing fails npm test.
node node_modules/typescript-native/bin/tsc --noEmit --incremental --tsBuildInfoFile node_modules/.cache/tsc/test.tsbuildinfo &
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
