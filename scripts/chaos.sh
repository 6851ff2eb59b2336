#!/usr/bin/env bash
# Seeded chaos runs against the ground-truth checker (ChaosTest / ChaosRun).
#   scripts/chaos.sh N            N random seeds
#   scripts/chaos.sh -s 7,42      these seeds (a failing seed replays the same schedule)
# Env: CHAOS_SECONDS (chaos phase per run, default 30), CHAOS_PARALLEL (seeds run side by side,
# each with its own broker, default 3).
# Prints one line per seed and a summary; exits 1 if any seed found a problem.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "-s" ]; then
  prop="-Dsebridge.chaos.seeds=${2:?seeds}"
else
  prop="-Dsebridge.chaos.random=${1:-5}"
fi
./mvnw -B -q -ntp install -DskipTests -Dspotless.check.skip=true -pl bridge-app -am
rm -f bridge-app/target/chaos-summary.txt
set +e
./mvnw -B -ntp -o -pl bridge-app test -Dtest=ChaosTest "$prop" \
  -Dsebridge.chaos.seconds="${CHAOS_SECONDS:-30}" \
  -Dsebridge.chaos.parallel="${CHAOS_PARALLEL:-3}" > bridge-app/target/chaos.log 2>&1
rc=$?
set -e
cat bridge-app/target/chaos-summary.txt 2>/dev/null || true
ok=$(grep -c ': OK ' bridge-app/target/chaos-summary.txt 2>/dev/null || true)
all=$(wc -l < bridge-app/target/chaos-summary.txt 2>/dev/null || echo 0)
echo "chaos: $ok of $all seeds passed (log: bridge-app/target/chaos.log)"
[ "$rc" -eq 0 ] && [ "$ok" -eq "$all" ] && [ "$all" -gt 0 ]
