#!/usr/bin/env bash
# Clean build times of a crate that depends only on the codec, one after another on this
# machine, without incremental compilation: kafka-wire under several feature sets beside
# kafka-protocol 0.18 (`client`, `broker`). Each build gets a fresh target folder; the
# dependencies' sources are fetched first, so downloads are not timed.
#
# kafka-wire's generated code is compiled in the crate that uses it, so most cases build a
# program with an empty `main`: what a crate pays to depend on the codec. Two cases build
# programs that use messages: one that reaches every message through the catalog (views,
# owned values, visitor), and one that parses and encodes the producer's four requests and
# responses with every feature on.
#
#   bash benches/buildtime.sh [--out FILE]     # a Markdown table
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=/dev/stdout
[ "${1:-}" = "--out" ] && out=$2
work=$(mktemp -d /tmp/kw-buildtime.XXXXXX)
trap 'rm -rf "$work"' EXIT
export CARGO_INCREMENTAL=0

# name | dependency line | program (empty: `fn main() {}`)
every_message='fn main() {
    // The catalog holds every message'"'"'s transcoders and visitor: all of them are compiled.
    for e in kafka_wire::catalog::ALL {
        std::hint::black_box(e);
    }
}'
producer_program='use kafka_wire::messages::*;
use kafka_wire::Message;
fn main() {
    let b: &[u8] = std::hint::black_box(&[0u8; 64]);
    let v = std::hint::black_box(3i16);
    let mut out = [0u8; 256];
    macro_rules! both {
        ($($m:ident),*) => {$(
            if let Ok(m) = $m::parse(b, v) {
                let _ = std::hint::black_box(m.encode_to_slice(&mut out, v));
            }
        )*};
    }
    both!(ApiVersionsRequest, ApiVersionsResponse, MetadataRequest, MetadataResponse,
          InitProducerIdRequest, InitProducerIdResponse, ProduceRequest, ProduceResponse);
}'
cases=(
  "kafka-protocol 0.18 (client, broker)|kafka-protocol = { version = \"0.18\", default-features = false, features = [\"client\", \"broker\"] }"
  "kafka-wire, all (default): views|kafka-wire = { path = \"$root/core\" }"
  "kafka-wire, all + alloc: views and owned|kafka-wire = { path = \"$root/core\", features = [\"alloc\"] }"
  "kafka-wire, all + alloc, a program that reaches every message|kafka-wire = { path = \"$root/core\", features = [\"alloc\"] }|$every_message"
  "kafka-wire, all, a program that parses and encodes the producer's 8 messages|kafka-wire = { path = \"$root/core\" }|$producer_program"
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
  rest=${c#*|}
  dep=${rest%%|*}
  program='fn main() {}'
  [ "$rest" != "$dep" ] && program=${rest#*|}
  d="$work/c$i"
  i=$((i + 1))
  mkdir -p "$d/src"
  printf '[package]\nname = "probe"\nversion = "0.0.0"\nedition = "2021"\npublish = false\n\n[workspace]\n\n[dependencies]\n%s\n' "$dep" > "$d/Cargo.toml"
  printf '%s\n' "$program" > "$d/src/main.rs"
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
