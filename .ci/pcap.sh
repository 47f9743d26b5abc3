#!/usr/bin/env bash
# `kwire pcap` against Debian's tshark on the committed capture (tests/pcap/clients.pcapng):
# runs tshark's Kafka dissector (tests/pcap/tshark.sh), checks that its output equals the
# committed tests/pcap/clients.tshark.tsv, and runs kwire/tests/pcap.rs with the fresh
# output (KWIRE_TSHARK_TSV): for every frame whose API key and version tshark knows, the same
# key, version, correlation id, client id, topic names and error codes.
#
#   bash .ci/pcap.sh
#
# Installs tshark with apt when missing. Prints PASS:/FAILED: lines and ends with
# `conformance: N passed, M failed`; exits non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
passed=0; failed=0
pass() { echo "PASS: $*"; passed=$((passed + 1)); }
fail() { echo "FAILED: $*"; failed=$((failed + 1)); }

if ! command -v tshark >/dev/null 2>&1; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tshark >/dev/null 2>&1
fi
if ! command -v tshark >/dev/null 2>&1; then
  fail "tshark is missing and could not be installed"
else
  echo "$(tshark --version 2>/dev/null | head -n 1) ($(( $(date +%s) - start ))s to have it)"
  fresh=$(mktemp)
  if bash tests/pcap/tshark.sh tests/pcap/clients.pcapng > "$fresh"; then
    if diff -u tests/pcap/clients.tshark.tsv "$fresh" > "$fresh.diff"; then
      pass "tshark's reading of tests/pcap/clients.pcapng equals tests/pcap/clients.tshark.tsv ($(( $(wc -l < "$fresh") - 1 )) frames)"
    else
      fail "tshark's reading differs from tests/pcap/clients.tshark.tsv:"; head -n 40 "$fresh.diff"
    fi
    log=$(mktemp)
    if KWIRE_TSHARK_TSV="$fresh" cargo test -q -p kwire --test pcap -- --nocapture --exact tshark_agrees_on_every_frame_it_knows >"$log" 2>&1; then
      pass "kwire pcap agrees with tshark: $(grep -E '^compared with' "$log" | sed 's/^compared with [^:]*: //')"
      grep -E '^(tshark does not know|[0-9]+ client ids)' "$log"
    else
      fail "kwire pcap against fresh tshark output:"; tail -n 40 "$log"
    fi
    rm -f "$log"
  else
    fail "tests/pcap/tshark.sh"
  fi
  rm -f "$fresh" "$fresh.diff"
fi
echo "pcap.sh: $(( $(date +%s) - start ))s"
echo "conformance: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
