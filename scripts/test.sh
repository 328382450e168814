#!/bin/sh
# npm test: the type check (strict) and the project's tests. The type check runs beside the tests,
# not before them: on a fresh clone it takes ~15 s of one core, which the tests leave free while
# they build dist/ and while their last files finish. Either failing fails npm test.
tsc --noEmit --incremental --tsBuildInfoFile node_modules/.cache/tsc/test.tsbuildinfo &
types=$!
vitest run --config test/vitest.config.ts "$@"
tests=$?
if ! wait "$types"; then
  echo "npm test: the type check failed (tsc --noEmit, above)" >&2
  exit 1
fi
exit "$tests"
