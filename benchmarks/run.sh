#!/usr/bin/env bash
# Runs the benchmarks (about 15 minutes) and writes benchmarks/REPORT.md.
#   benchmarks/run.sh                      # full run: 200 changes x 2 intervals, 1,000 approvals, 5 min footprint
#   benchmarks/run.sh --changes 20 --approvals 20 --footprint-seconds 30 --start-runs 2   # quicker
# Needs Linux (/proc) and Python 3 with `requests` for the reference loop (installed from Debian's
# python3-requests when missing and run as root); pass --no-reference to skip the reference loop.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
if [[ " $* " != *" --no-reference "* ]] && ! /usr/bin/python3 -c 'import requests' 2>/dev/null; then
  echo "installing python3-requests for the reference loop..." >&2
  (apt-get update -qq && apt-get install -y -qq python3-requests) >/dev/null
fi
echo "building the agent and the benchmarks (a minute or two)..." >&2
./mvnw -B -q -DskipTests -Dspotless.check.skip=true install -pl benchmarks -am
cp="$(./mvnw -B -q -pl benchmarks dependency:build-classpath -Dmdep.outputFile=/dev/stdout)"
exec java -Xmx512m -cp "benchmarks/target/classes:$cp" dev.sebridge.benchmarks.Benchmarks --repo "$here" --out benchmarks/REPORT.md "$@"
