#!/usr/bin/env bash
# What tshark's Kafka dissector reads in a capture, one line per Kafka frame, for the comparison
# in kwire/tests/pcap.rs.
#
#   bash tests/pcap/tshark.sh [CAPTURE] > OUT.tsv
#       (CAPTURE defaults to tests/pcap/clients.pcapng; tests/pcap/clients.tshark.tsv is its output)
#
# Columns: frame number, TCP stream, direction (request or response), the client's port,
# request API key and version (from the request header, or for a response from the request
# tshark paired it with), correlation id, client id, topic names, error codes, and `known`: for a
# request, 1 when tshark knows its API key and version (no "Unknown API key" or "Unsupported ...
# version" note on it), else 0; `-` for a response (it follows its request). Values that occur
# more than once in a frame are joined with `|`.
#
# Installs tshark with apt when it is missing. The Kafka dissector is told the broker port 9092.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
capture="${1:-$here/clients.pcapng}"
if ! command -v tshark >/dev/null 2>&1; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tshark >/dev/null
fi
printf 'frame\tstream\tdirection\tclient_port\tapi_key\tapi_version\tcorrelation_id\tclient_id\ttopics\terrors\tknown\n'
tshark -r "$capture" -d tcp.port==9092,kafka -Y kafka -T fields -E separator='	' -E occurrence=a -E aggregator='|' \
  -e frame.number -e tcp.stream -e tcp.srcport -e tcp.dstport \
  -e kafka.request_key -e kafka.api_version -e kafka.response_key -e kafka.response.version \
  -e kafka.correlation_id -e kafka.client_id -e kafka.topic_name -e kafka.error -e _ws.expert.message 2>/dev/null |
awk -F'\t' -v OFS='\t' '{
  if ($4 == 9092) {
    known = ($13 ~ /Unknown [0-9]+ API key|Unsupported [A-Za-z]+ version/) ? 0 : 1
    print $1, $2, "request", $3, $5, $6, $9, $10, $11, $12, known
  } else {
    print $1, $2, "response", $4, $7, $8, $9, $10, $11, $12, "-"
  }
}'
