#!/usr/bin/env bash
# Clean build times of a crate that depends only on the codec, one after another on this
# machine, without incremental compilation: kafka-wire under several feature sets beside
# kafka-protocol 0.18 (`client`, `broker`). Each build gets a fresh target folder; the
# dependencies' sources are fetched first, so downloads are not timed.
#
#   bash benches/buildtime.sh [--out FILE]     # a Markdown table
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=/dev/stdout
[ "${1:-}" = "--out" ] && out=$2
work=$(mktemp -d /tmp/kw-buildtime.XXXXXX)
trap 'rm -rf "$work"' EXIT
export CARGO_INCREMENTAL=0

# name | dependency line | profile
cases=(
  "kafka-protocol 0.18 (client, broker)|kafka-protocol = { version = \"0.18\", default-features = false, features = [\"client\", \"broker\"] }"
  "kafka-wire, all (default): views|kafka-wire = { path = \"$root/core\" }"
  "kafka-wire, all + alloc: views and owned|kafka-wire = { path = \"$root/core\", features = [\"alloc\"] }"
  "kafka-wire, producer: views|kafka-wire = { path = \"$root/core\", default-features = false, features = [\"producer\"] }"
  "kafka-wire, producer + alloc|kafka-wire = { path = \"$root/core\", default-features = false, features = [\"producer\", \"alloc\"] }"
  "kafka-wire, consumer: views|kafka-wire = { path = \"$root/core\", default-features = false, features = [\"consumer\"] }"
  "kafka-wire, no API (runtime only)|kafka-wire = { path = \"$root/core\", default-features = false }"
)
{
  echo "| crate and features | release (s) | debug (s) |"
  echo "|---|---|---|"
} > "$work/table.md"
i=0
for c in "${cases[@]}"; do
  name=${c%%|*}
  dep=${c#*|}
  d="$work/c$i"
  i=$((i + 1))
  mkdir -p "$d/src"
  printf '[package]\nname = "probe"\nversion = "0.0.0"\nedition = "2021"\npublish = false\n\n[workspace]\n\n[dependencies]\n%s\n' "$dep" > "$d/Cargo.toml"
  echo 'fn main() {}' > "$d/src/main.rs"
  (cd "$d" && cargo fetch -q)
  times=()
  for prof in release dev; do
    rm -rf "$d/target"
    s=$(date +%s.%N)
    (cd "$d" && cargo build -q --profile "$prof" --ignore-rust-version)
    e=$(date +%s.%N)
    times+=("$(python3 -c "print(f'{$e - $s:.1f}')")")
  done
  echo "| $name | ${times[0]} | ${times[1]} |" | tee -a "$work/table.md" >&2
done
cat "$work/table.md" > "$out"
