#!/usr/bin/env bash
# Times the rollouts task's tick in the fleet's topology at 100,000 VMs (a policy pass over 5,000
# open events, a 10,000-VM rollout in 100 groups) in three JVMs, one after the other, and writes
# the "Tick at scale" section of benchmarks/FLEET-REPORT.md (the verdicts on their ticks pooled);
# then what the campaign index holds of a day of events ("The campaign index's heap") and how fast
# the views read from JSON ("Reading views"). About five minutes.
#   benchmarks/run-fleet-tick.sh [--jvms 3] [--vms 100000] [--history 100000] [--open 5000]
#                                [--rollout 10000] [--groups 100]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
./mvnw -B -q -DskipTests -Dspotless.check.skip=true install -pl benchmarks -am
cp="$(./mvnw -B -q -pl benchmarks dependency:build-classpath -Dmdep.outputFile=/dev/stdout)"
java -cp "benchmarks/target/classes:$cp" dev.sebridge.benchmarks.FleetTickRuns --report benchmarks/FLEET-REPORT.md "$@"
java -Xmx1g -cp "benchmarks/target/classes:$cp" dev.sebridge.benchmarks.CampaignIndexFootprint --report benchmarks/FLEET-REPORT.md
exec java -Xmx1g -cp "benchmarks/target/classes:$cp" dev.sebridge.benchmarks.ViewReadBenchmark --report benchmarks/FLEET-REPORT.md
