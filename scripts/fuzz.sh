#!/usr/bin/env bash
# Fuzzing campaigns (Jazzer) for the code that reads outside input.
#   scripts/fuzz.sh [seconds per target] [target...]
# Targets: imdsDocument command configuration (default: all). A crash stops the campaign of that
# target and leaves its input under
#   bridge-core/src/test/resources/dev/sebridge/fuzz/ParsersFuzzTestInputs/<target>/crash-*
# Fix the bug, give the file a name that says what it was, and commit it: `./mvnw verify` replays
# every file there (regression mode). The growing corpus lives in bridge-core/.cifuzz-corpus/.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-300}"
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(imdsDocument command configuration)

./mvnw -B -q -ntp install -DskipTests -Dspotless.check.skip=true -pl bridge-core -am
status=0
for t in "${targets[@]}"; do
  echo "== fuzzing $t for ${seconds}s"
  if JAZZER_FUZZ=1 ./mvnw -B -ntp -o -pl bridge-core test -Dtest="ParsersFuzzTest#$t" \
      -Djazzer.max_duration="${seconds}s" -Dsurefire.failIfNoSpecifiedTests=false \
      | grep -E 'INITED|DONE|Done [0-9]+ runs|FuzzTestFinding|crash-|Tests run: [0-9]+, F.*in dev'; then
    :
  fi
  if ls bridge-core/src/test/resources/dev/sebridge/fuzz/ParsersFuzzTestInputs/"$t"/crash-* >/dev/null 2>&1; then
    echo "!! $t: crash input(s) written, see above"
    status=1
  fi
done
exit $status
