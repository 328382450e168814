#!/bin/sh
# One mutation test: a whole conformance run against the embedded reference (as instrumented in
# Stryker's sandbox). Exit 0 passes the mutant (it survives); any other code kills it. Each run
# writes its reports to a directory of its own, removed after: runs go on side by side.
dir=$(mktemp -d "${TMPDIR:-/tmp}/scr-mutation-XXXXXX")
node bin/scheduling-conformance.js --report-dir "$dir/reports" >"$dir/out.log" 2>&1
code=$?
rm -rf "$dir"
exit $code
