#!/bin/sh
# A Timeout is no proof of a kill: on a busy machine a slow run of a harmless mutant times out too.
# Re-runs alone, with a generous limit, every mutant of FILE that the last Stryker run left as
# Timeout, in that run's sandbox (kept with --cleanTempDir false), and says what each really does:
# survives (exit 0), is killed (the run failed, only slowly) or hangs (still running at the limit).
#   sh scripts/mutation/timeouts.sh .stryker-tmp/sandbox-XXXX reference/routes/auth.ts [seconds]
sandbox=${1:?the sandbox of the Stryker run}
file=${2:?the file that run mutated}
limit=${3:-120}
root=$(pwd)
node -e '
  const [report, file] = process.argv.slice(1);
  for (const m of JSON.parse(require("fs").readFileSync(report, "utf8")).files[file]?.mutants ?? [])
    if (m.status === "Timeout") console.log(m.id, `${file}:${m.location.start.line}`, m.mutatorName);
' "${MUTATION_REPORT:-reports/mutation/mutation.json}" "$file" | while read -r id at mutator; do
  started=$(date +%s)
  (cd "$sandbox" && __STRYKER_ACTIVE_MUTANT__=$id timeout "$limit" sh "$root/scripts/mutation/one-run.sh")
  code=$?
  case $code in
    0) outcome=survives ;;
    124) outcome=hangs ;;
    *) outcome="killed (exit $code)" ;;
  esac
  echo "$id $at $mutator: $outcome after $(($(date +%s) - started)) s"
done
