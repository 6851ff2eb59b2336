#!/usr/bin/env bash
# Runs the fleet service benchmark (about 10 minutes) and writes its section of
# benchmarks/FLEET-REPORT.md ("Fleet at N VMs"; the other sections stay).
#   benchmarks/run-fleet.sh                                   # 10,000 VMs, 180 s steady, 100 agents
#   benchmarks/run-fleet.sh --vms 2000 --steady-seconds 60 --agents 20   # quicker
#   benchmarks/run-fleet.sh --vms 30000 --steady-seconds 90 --agents 0   # no real agents
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
./mvnw -B -q -DskipTests -Dspotless.check.skip=true install -pl benchmarks -am
cp="$(./mvnw -B -q -pl benchmarks dependency:build-classpath -Dmdep.outputFile=/dev/stdout)"
exec java -Xmx2g -cp "benchmarks/target/classes:$cp" dev.sebridge.benchmarks.FleetBenchmark --repo "$here" --out benchmarks/FLEET-REPORT.md "$@"
