#!/usr/bin/env bash
# Times a rollout tick (a 10,000-VM rollout in 100 groups by default) and writes the "Rollout tick"
# section of benchmarks/FLEET-REPORT.md. About a minute.
#   benchmarks/run-rollout-tick.sh [--vms 10000] [--groups 100] [--max 10%]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
./mvnw -B -q -DskipTests -Dspotless.check.skip=true install -pl benchmarks -am
cp="$(./mvnw -B -q -pl benchmarks dependency:build-classpath -Dmdep.outputFile=/dev/stdout)"
exec java -Xmx1g -cp "benchmarks/target/classes:$cp" dev.sebridge.benchmarks.RolloutTickBenchmark --report benchmarks/FLEET-REPORT.md "$@"
