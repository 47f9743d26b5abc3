#!/usr/bin/env bash
# .ci/bare-metal.sh — kafka-wire on bare metal. Called by .ci/run as
# `bash .ci/bare-metal.sh` from the repository root (root, CI=true); runs alone too.
#
# Every check prints `PASS: ...` or `FAILED: ...`; the script goes on after a failure where it
# can, and exits 1 at the end if anything failed. What it checks:
#  1. install: Debian's rustc-web/cargo-web 1.96 + rust-web-src + lld-22 (bookworm-security) and
#     qemu-system-arm from bookworm-backports through private apt lists (/etc/apt untouched);
#     cargo-hack and defmt-print with `cargo install` (background) when missing. Idempotent.
#  2. host lane (in the background while the bare-metal lane builds, see BARE_METAL_JOBS):
#     - tests/nostd-link, a #![no_std] #![no_main] host binary linking kafka-wire with default
#       features off, must build and link, needing nothing from libc but mem* functions; with
#       one more dependency that uses std / alloc (its features with-std-dependency and
#       with-alloc-dependency: once_cell with "std" / "alloc" only) it must FAIL, with E0152
#       (duplicate `panic_impl`) / "no global memory allocator found";
#     - the thumbv6m-none-eabi firmware build (see 3);
#     - `cargo hack --feature-powerset --include-features alloc,std,arbitrary,defmt check -p
#       kafka-wire` on the host (every combination of the runtime features).
#  3. firmware: tests/firmware (cortex-m-rt + semihosting), release, `-Z build-std=core`, for
#     thumbv7em-none-eabihf (opt-level "s" and fat LTO: the measured build), run on mps2-an386
#     (Cortex-M4F), and thumbv6m-none-eabi, run on microbit (Cortex-M0) and lm3s6965evb
#     (Cortex-M3: ARMv6-M code runs unchanged on ARMv7-M; BARE_METAL_M3_TARGET=thumbv7m-none-eabi
#     builds for the M3 too). Each build must compile kafka-wire with no features and nothing from
#     the standard library but core (checked in cargo's JSON); each run must exit 0 and end in
#     PASS. Enforces the budgets below (.text, peak stack by stack painting, panic call sites).
#     The thumbv6m build leaves kafka-wire unoptimised before LTO (BARE_METAL_VARIANT_OPT), which
#     saves ~4 CPU-minutes: its code is optimised once, by LTO, but its stack use is about twice
#     the measured build's (BARE_METAL_FULL_OPT=1 builds it like the thumbv7em one).
#  3b. client: tests/firmware-client (kafka-wire-client's producer, small-code) on mps2-an386,
#     its UART connected by QEMU to a real Kafka 4.4.0 broker; 1,000 records read back by Kafka's
#     Java consumer; .text within its budget.
#  4. measure (thumbv7em): code size per message (probe builds), panic call sites on the parse
#     path (tests/firmware/scripts/panic_sites.py), and the full-dispatch build (hostile frames
#     through kafka_wire::frame::parse_request_frame: every request parser) run on mps2-an386.
#  5. defmt: the firmware logging through defmt over semihosting (kafka-wire's `defmt` feature,
#     build-std=core), run on mps2-an386 and decoded with defmt-print: its lines must equal the
#     hprintln firmware's (bar the stack line); the small-code producer logging through defmt on
#     both boards, its lines equal to the hprintln producer's and its .text within 40 KB.
#  6. alloc: the same with kafka-wire's `alloc` feature too and a heap, build-std=core,alloc: also
#     encodes into a Vec<u8>. With 3 and 5 this builds, on bare metal, every feature combination
#     that does not need std ({}, {defmt}, {alloc, defmt}; `std` and `arbitrary` left out), each
#     with the smallest build-std.
# Output in target/bare-metal/: logs/, elf/, report.md (every number measured), timings.txt.
# Environment: BARE_METAL_STEPS (default "install host firmware measure defmt alloc"),
# BARE_METAL_JOBS (2: the host lane runs beside the bare-metal lane, each mostly one
# single-threaded rustc; 1: one after the other), BARE_METAL_M3_TARGET, QEMU_TIMEOUT (60 s),
# BARE_METAL_NO_INSTALL=1 (no apt-get, no cargo install), BARE_METAL_VARIANT_OPT (kafka-wire's
# opt-level before LTO in the builds that are run rather than measured: thumbv6m, defmt, alloc;
# default 0), BARE_METAL_FULL_OPT=1 (build thumbv6m like thumbv7em).
set -Euo pipefail
export LC_ALL=C

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
OUT="$ROOT/target/bare-metal"
LOG="$OUT/logs"
ELF="$OUT/elf"
FW_DIR="$ROOT/tests/firmware"
CLIENT_FW_DIR="$ROOT/tests/firmware-client"
HOST_TARGET_DIR="$OUT/host"
rm -rf "$LOG" "$ELF"
mkdir -p "$LOG" "$ELF"
REPORT="$OUT/report.md"
TIMINGS="$OUT/timings.txt"
rm -f "$OUT"/report-*.md
: >"$TIMINGS"

STEPS="${BARE_METAL_STEPS:-install host firmware client measure defmt alloc}"
JOBS="${BARE_METAL_JOBS:-2}"
M3_TARGET="${BARE_METAL_M3_TARGET:-thumbv6m-none-eabi}"
QEMU_TIMEOUT="${QEMU_TIMEOUT:-60}"
VARIANT_OPT="${BARE_METAL_VARIANT_OPT:-0}"
APT_CACHE="${BARE_METAL_APT_CACHE:-/var/tmp/kafka-wire-bare-metal/apt}"

# ---------------------------------------------------------------------------- budgets
# A little above what tests/firmware/BUDGETS.md reports as measured; update both together.
declare -A TEXT_BUDGET=(        # bytes of .text of the release firmware (default features)
  [thumbv7em-none-eabihf]=100000  # opt-level "s" throughout
  [thumbv6m-none-eabi]=106000     # kafka-wire at opt-level 0 before LTO (BARE_METAL_VARIANT_OPT)
  [thumbv7m-none-eabi]=106000
)
declare -A STACK_BUDGET=(       # peak stack bytes, measured by stack painting, per board
  [mps2-an386]=4500               # thumbv7em, opt-level "s" throughout
  [microbit]=10000                # thumbv6m, kafka-wire at opt-level 0 before LTO: LLVM gets no
  [lm3s6965evb]=10000             #   lifetime markers from it, so stack slots are not shared
)
# The producer firmware (feature `producer`: ApiVersions, Metadata, InitProducerId, Produce),
# per target, opt-level "s": a ratchet above the measured size. The firmware target is 40 KB
# with small-code (tests/firmware/BUDGETS.md).
declare -A PRODUCER_TEXT_BUDGET=(
  [thumbv7em-none-eabihf]=64000
  [thumbv6m-none-eabi]=65000
)
# The same with kafka-wire's `small-code` (each struct's check and skip call its reader, its size
# its writer; the runtime's string, array and tag readers are called, not inlined; one array
# reader for every element type; fixed-width fields, varints and tag sections read and written by
# shared functions): a ratchet above the measured size, under the firmware target of 40 KB.
declare -A PRODUCER_SMALL_TEXT_BUDGET=(
  [thumbv7em-none-eabihf]=33500
  [thumbv6m-none-eabi]=33500
)
# The small-code producer with its four APIs pinned to the versions it sends (KAFKA_WIRE_PIN, the
# docs/FEATURES.md, "Pinning versions"): a ratchet above the measured size.
PRODUCER_PIN="api-api-versions=3,api-metadata=12,api-init-producer-id=4,api-produce=9"
declare -A PRODUCER_PINNED_TEXT_BUDGET=(
  [thumbv7em-none-eabihf]=30500
  [thumbv6m-none-eabi]=30500
)
# The small-code producer logging through defmt (no core::fmt linked: defmt formats on the
# host). The firmware target is 40 KB (40,960 B); a ratchet under it.
declare -A PRODUCER_DEFMT_TEXT_BUDGET=(
  [thumbv7em-none-eabihf]=30500
  [thumbv6m-none-eabi]=30500
)
# The client firmware (tests/firmware-client: kafka-wire-client's producer over the board's UART,
# small-code): a ratchet above the measured size. Its target is 40 KB, not yet met.
CLIENT_SMALL_TEXT_BUDGET=45000
# Call sites to core's panic helpers in the parse-path build (the 4 messages and the hostile
# frames, narrow path). A ratchet that only goes down: none today.
PANIC_SITES_BUDGET=0
# Call sites to panic helpers in kafka-wire's own code (codec, runtime, generated messages,
# client) in the builds that encode, hold owned values or run the client (`encoder_panics`).
PANIC_SITES_OURS_BUDGET=0
# The per-message target at every version, 8 KB, with small-code: what one probe message
# adds to a firmware that has the other three (the four together less the three without it), and
# the message alone, with the ~4.5 KB runtime the four share.
MESSAGE_SHARE_BUDGET=8192
# The same share with small-code and all four messages pinned to their probe's version
# (KAFKA_WIRE_PIN): the per-message target at one version fixed at compile time, 3 KB.
PINNED_MESSAGE_SHARE_BUDGET=3072

# ---------------------------------------------------------------------------- helpers
PASSED=0
FAILURES=()
T0=$SECONDS
pass() { PASSED=$((PASSED + 1)); printf 'PASS: %s\n' "$*"; }
fail() { FAILURES+=("$*"); printf 'FAILED: %s\n' "$*"; }
note() { printf '    %s\n' "$*"; }
section() { printf '\n==> %s  [%ss]\n' "$*" "$((SECONDS - T0))"; }
report() { local part="$1"; shift; printf '%s\n' "$*" >>"$OUT/report-$part.md"; } # PART LINE
want() { [[ " $STEPS " == *" $1 "* ]]; }
show_log() { # FILE [LINES]: the end of a log, after a failure
  printf '    --- last lines of %s ---\n' "${1#"$ROOT"/}"
  tail -n "${2:-40}" "$1" | sed 's/^/    | /'
}
# timed NAME CMD...: runs CMD, appending "NAME wall-seconds cpu-seconds" to timings.txt.
timed() {
  local name="$1"; shift
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -f "$name %e %U %S" -a -o "$TIMINGS" "$@"
  else
    local t=$SECONDS rc=0
    "$@" || rc=$?
    echo "$name $((SECONDS - t)) ? ?" >>"$TIMINGS"
    return "$rc"
  fi
}
# logged NAME CMD...: output to logs/NAME.log; on failure shows its end.
logged() {
  local name="$1" rc=0; shift
  timed "$name" "$@" >"$LOG/$name.log" 2>&1 || rc=$?
  [ "$rc" = 0 ] || show_log "$LOG/$name.log"
  return "$rc"
}

SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"

# Debian's toolchain, called by absolute path; rustup's proxies and stray flags kept away.
DCARGO=/usr/bin/cargo
DENV=(env -u RUSTUP_TOOLCHAIN -u RUSTC_WRAPPER -u RUSTFLAGS -u CARGO_ENCODED_RUSTFLAGS
      -u CARGO_BUILD_TARGET -u CARGO_BUILD_RUSTC -u CARGO_BUILD_RUSTC_WRAPPER -u CARGO_TARGET_DIR
      -u CARGO_BUILD_TARGET_DIR
      PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
      RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc RUSTC_BOOTSTRAP=1 CARGO_TERM_COLOR=never)
# The host toolchain (rustup's stable on these machines): host checks and cargo install.
HOST_CARGO="$(command -v cargo || true)"
HOST_ENV=(env -u CARGO_TARGET_DIR -u CARGO_BUILD_TARGET -u RUSTFLAGS CARGO_TERM_COLOR=never)
CARGO_BIN="${CARGO_HOME:-$HOME/.cargo}/bin"

LLVM_SIZE=llvm-size-22
LLVM_OBJDUMP=llvm-objdump-22
LLVM_ADDR2LINE=llvm-addr2line-22

# kafka-wire's opt-level before LTO in the builds that are run rather than measured.
VARIANT_OPT_ARGS=()
for p in kafka-wire kafka-wire-rt kafka-wire-msgs-a kafka-wire-msgs-b; do
  VARIANT_OPT_ARGS+=(--config "profile.release.package.$p.opt-level=$VARIANT_OPT")
done
SECOND_OPT_ARGS=("${VARIANT_OPT_ARGS[@]}")
[ "${BARE_METAL_FULL_OPT:-0}" != 1 ] || SECOND_OPT_ARGS=()

pkg_ok() { [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = "install ok installed" ]; }

# ---------------------------------------------------------------------------- 1. install
tool_path() { # BINARY: prints the tool's path; false if missing
  if [ -x "$CARGO_BIN/$1" ]; then printf '%s\n' "$CARGO_BIN/$1"; return 0; fi
  command -v "$1" 2>/dev/null
}
# install_tool CRATE: `cargo install` unless present. --debug: these tools do little work, and a
# debug build takes half the CPU time of a release one.
install_tool() {
  tool_path "$1" >/dev/null && return 0
  [ "${BARE_METAL_NO_INSTALL:-0}" != 1 ] && [ -n "$HOST_CARGO" ] || return 1
  logged "install-$1" "${HOST_ENV[@]}" "$HOST_CARGO" install --locked --debug "$1"
}
DEFMT_PRINT_PID=""
start_defmt_print_install() {
  tool_path defmt-print >/dev/null && return 0
  note "cargo install defmt-print (background; logs/install-defmt-print.log)"
  install_tool defmt-print >/dev/null 2>&1 &
  DEFMT_PRINT_PID=$!
}

install_debian_toolchain() {
  local pkgs=(rustc-web cargo-web rust-web-src rust-web-llvm lld-22) missing=() p
  for p in "${pkgs[@]}"; do pkg_ok "$p" || missing+=("$p"); done
  if [ ${#missing[@]} -gt 0 ]; then
    [ "${BARE_METAL_NO_INSTALL:-0}" != 1 ] || { fail "install: missing Debian packages ${missing[*]}"; return 1; }
    note "apt-get install ${missing[*]}"
    logged apt-update $SUDO apt-get -o DPkg::Lock::Timeout=600 update \
      || { fail "install: apt-get update"; return 1; }
    # rust-web-llvm ships /usr/bin/rust-lld -> lld-22 without depending on lld-22: name it.
    logged apt-rust $SUDO env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 \
        install -y --no-install-recommends --no-remove "${pkgs[@]}" \
      || { fail "install: apt-get install ${pkgs[*]}"; return 1; }
  fi
  local b
  for b in /usr/bin/rustc /usr/bin/cargo /usr/bin/rustdoc /usr/bin/rust-lld "$LLVM_SIZE" "$LLVM_OBJDUMP" "$LLVM_ADDR2LINE"; do
    command -v "$b" >/dev/null 2>&1 || { fail "install: $b missing"; return 1; }
  done
  /usr/bin/rust-lld -flavor gnu --version >/dev/null 2>&1 || { fail "install: /usr/bin/rust-lld is broken (lld-22?)"; return 1; }
  local src; src="$(/usr/bin/rustc --print sysroot)/lib/rustlib/src/rust/library"
  [ -d "$src/core" ] && [ -f "$src/Cargo.lock" ] || { fail "install: no library source at $src (rust-web-src)"; return 1; }
  [ "$(dpkg-query -W -f='${Version}' rust-web-src)" = "$(dpkg-query -W -f='${Version}' rustc-web)" ] \
    || { fail "install: rust-web-src and rustc-web versions differ (core must come from the same release)"; return 1; }
  pass "Debian toolchain: $(/usr/bin/rustc --version), $(/usr/bin/cargo --version | cut -d' ' -f1-2), library source $src"
}

install_qemu() {
  if ! command -v qemu-system-arm >/dev/null 2>&1; then
    [ "${BARE_METAL_NO_INSTALL:-0}" != 1 ] || { fail "install: qemu-system-arm missing"; return 1; }
    # bookworm's own qemu-system-arm (7.2) would make apt remove a newer qemu-utils if one is
    # installed; take 10.x from bookworm-backports through private lists, /etc/apt untouched.
    $SUDO mkdir -p "$APT_CACHE/lists/partial" "$APT_CACHE/archives/partial"
    printf '%s\n' \
      "deb http://deb.debian.org/debian bookworm main" \
      "deb http://deb.debian.org/debian bookworm-updates main" \
      "deb http://deb.debian.org/debian-security bookworm-security main" \
      "deb http://deb.debian.org/debian bookworm-backports main" | $SUDO tee "$APT_CACHE/sources.list" >/dev/null
    local o=(-o "Dir::Etc::sourcelist=$APT_CACHE/sources.list" -o "Dir::Etc::sourceparts=-"
             -o "Dir::State::lists=$APT_CACHE/lists" -o "Dir::Cache::archives=$APT_CACHE/archives"
             -o "APT::Sandbox::User=root" -o DPkg::Lock::Timeout=600)
    note "apt-get install qemu-system-arm (bookworm-backports)"
    if logged apt-qemu-update $SUDO apt-get "${o[@]}" update \
       && logged apt-qemu $SUDO env DEBIAN_FRONTEND=noninteractive apt-get "${o[@]}" install -y \
            --no-install-recommends --no-remove -t bookworm-backports qemu-system-arm; then
      :
    else
      note "backports failed; trying bookworm's qemu-system-arm (refuses to remove anything)"
      logged apt-qemu-bookworm $SUDO env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 \
          install -y --no-install-recommends --no-remove qemu-system-arm \
        || { fail "install: qemu-system-arm"; return 1; }
    fi
    $SUDO rm -f "$APT_CACHE/archives/"*.deb
  fi
  local m
  for m in mps2-an386 microbit lm3s6965evb; do
    qemu-system-arm -machine help | grep -q "^$m " || { fail "install: qemu-system-arm has no machine $m"; return 1; }
  done
  pass "QEMU: $(qemu-system-arm --version | head -n1)"
}

# ---------------------------------------------------------------------------- firmware helpers
# fw_build NAME TARGET BUILD_STD [cargo args...]: builds tests/firmware (release) into
# target/bare-metal/fw-TARGET and copies the ELF to elf/NAME.elf; cargo's JSON in logs/fw-NAME.json.
fw_build() {
  local name="$1" target="$2" std="$3"; shift 3
  local t=$SECONDS rc=0
  timed "fw-$name" "${DENV[@]}" "$DCARGO" build --release --manifest-path "$FW_DIR/Cargo.toml" \
      --target "$target" -Z build-std="$std" --target-dir "$OUT/fw-$target" \
      --message-format=json-render-diagnostics "$@" >"$LOG/fw-$name.json" 2>"$LOG/fw-$name.log" || rc=$?
  if [ "$rc" != 0 ]; then show_log "$LOG/fw-$name.log"; return 1; fi
  local exe
  exe="$(python3 - "$LOG/fw-$name.json" <<'PY'
import json, sys
exe = ""
for line in open(sys.argv[1]):
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("reason") == "compiler-artifact" and m.get("executable"):
        exe = m["executable"]
print(exe)
PY
)"
  [ -n "$exe" ] && [ -f "$exe" ] || { note "no ELF in cargo's output for $name"; return 1; }
  cp "$exe" "$ELF/$name.elf"
  note "built $name ($target, build-std=$std${*:+, $*}) in $((SECONDS - t))s"
}

# fw_crates NAME: "<kafka-wire's features>|<standard-library crates compiled for the target>"
fw_crates() {
  python3 - "$LOG/fw-$1.json" <<'PY'
import json, sys
feats, lib = None, set()
for line in open(sys.argv[1]):
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("reason") != "compiler-artifact" or "custom-build" in m["target"]["kind"]:
        continue
    pid, name = m.get("package_id", ""), m["target"]["name"]
    if name == "kafka_wire":
        feats = ",".join(sorted(m.get("features", [])))
    if "/rustlib/src/rust/library/" in pid or "/usr/src/rustc-" in pid:
        lib.add(name)
print(f"{feats if feats is not None else '?'}|{' '.join(sorted(lib))}")
PY
}

section_size() { "$LLVM_SIZE" -A "$1" | awk -v s="$2" '$1 == s { print $2 }'; }
text_size() { section_size "$1" .text; }

boards_of() { # TARGET -> "machine:cpu ..."
  case "$1" in
    thumbv7em-none-eabihf) echo "mps2-an386:cortex-m4" ;;
    thumbv6m-none-eabi)
      if [ "$M3_TARGET" = thumbv6m-none-eabi ]; then echo "microbit:cortex-m0 lm3s6965evb:cortex-m3"; else echo "microbit:cortex-m0"; fi ;;
    thumbv7m-none-eabi) echo "lm3s6965evb:cortex-m3" ;;
  esac
}

# qemu_run NAME ELF MACHINE CPU: semihosting stdout to logs/qemu-NAME.out; QEMU's exit status
qemu_run() {
  timeout "$QEMU_TIMEOUT" qemu-system-arm -machine "$3" -cpu "$4" -nographic -monitor none \
    -serial none -semihosting-config enable=on,target=native -kernel "$2" \
    >"$LOG/qemu-$1.out" 2>"$LOG/qemu-$1.err"
}

# check_output LABEL OUTPUT-FILE STATUS: requires status 0 and a last line PASS; sets STACK_PEAK.
STACK_PEAK=""
check_output() {
  local label="$1" out="$2" rc="$3"
  STACK_PEAK="$(sed -n 's/^stack peak: \([0-9]*\) bytes.*/\1/p' "$out" | tail -n1)"
  if [ "$rc" = 124 ]; then
    fail "$label: QEMU timed out after ${QEMU_TIMEOUT}s"; show_log "$out" 20; return 1
  elif [ "$rc" != 0 ]; then
    fail "$label: exit status $rc"; show_log "$out" 30; return 1
  elif [ "$(tail -n1 "$out")" != PASS ]; then
    fail "$label: exit 0 but no final PASS line"; show_log "$out" 30; return 1
  fi
  pass "$label: exit 0, $(grep '^checks passed' "$out" | tail -n1), stack peak ${STACK_PEAK:-?} bytes"
}
# check_run NAME ELF MACHINE CPU: runs under QEMU and checks the output.
check_run() {
  local rc=0
  qemu_run "$1" "$2" "$3" "$4" || rc=$?
  [ "$rc" = 0 ] || cat "$LOG/qemu-$1.err" >>"$LOG/qemu-$1.out"
  check_output "$1 on $3 ($4)" "$LOG/qemu-$1.out" "$rc"
}

# build_main_firmware TARGET [cargo args]: the default firmware, and what its build proves.
build_main_firmware() {
  local t="$1"; shift
  if ! fw_build "$t" "$t" core "$@"; then
    fail "firmware: tests/firmware does not build for $t with build-std=core"
    return 1
  fi
  local crates feats libs
  crates="$(fw_crates "$t")"; feats="${crates%%|*}"; libs="${crates#*|}"
  # The firmware turns on the message features it uses (docs/FEATURES.md); no runtime feature.
  local runtime
  runtime="$(tr ',' '\n' <<<"$feats" | grep -xE 'alloc|std|arbitrary|defmt|default' | paste -sd, - || true)"
  if [ "$runtime" = "" ] && [ "$libs" = "compiler_builtins core" ]; then
    pass "kafka-wire builds for $t with no runtime feature (messages: [$feats]), and nothing of the standard library but core (+ compiler_builtins)"
  else
    fail "kafka-wire for $t: features [$feats], standard-library crates [$libs] (want no runtime feature, and core + compiler_builtins)"
  fi
}

# run_main_firmware TARGET: runs it on the target's boards and enforces the budgets.
run_main_firmware() {
  local t="$1" elf="$ELF/$1.elf" text board machine cpu
  [ -f "$elf" ] || return 0
  text="$(text_size "$elf")"
  if [ "$text" -le "${TEXT_BUDGET[$t]}" ]; then
    pass "budget: .text of the $t firmware is $text bytes (budget ${TEXT_BUDGET[$t]})"
  else
    fail "budget: .text of the $t firmware is $text bytes, over its budget of ${TEXT_BUDGET[$t]}"
  fi
  for board in $(boards_of "$t"); do
    machine="${board%%:*}"; cpu="${board#*:}"
    if ! check_run "firmware-$t-$machine" "$elf" "$machine" "$cpu"; then
      report 2-firmware "| $t | $machine ($cpu) | $text | $(section_size "$elf" .rodata) | $(section_size "$elf" .bss) | FAILED |"
      continue
    fi
    if [ -n "$STACK_PEAK" ] && [ "$STACK_PEAK" -le "${STACK_BUDGET[$machine]}" ]; then
      pass "budget: peak stack on $machine is $STACK_PEAK bytes (budget ${STACK_BUDGET[$machine]})"
    else
      fail "budget: peak stack on $machine is ${STACK_PEAK:-unknown} bytes, over its budget of ${STACK_BUDGET[$machine]}"
    fi
    report 2-firmware "| $t | $machine ($cpu) | $text | $(section_size "$elf" .rodata) | $(section_size "$elf" .bss) | $STACK_PEAK |"
  done
}

# ---------------------------------------------------------------------------- client firmware
# tests/firmware-client (small-code) on mps2-an386, its UART connected by QEMU to a real Kafka
# 4.4.0 broker (tests/broker/start.sh, the class path the real-broker stage wrote): it produces
# 1,000 records over the serial link, and Kafka's Java consumer reads them back in order.
client_firmware() {
  local t=$SECONDS elf="$ELF/client-small.elf" text count=1000
  if ! timed "fw-client" "${DENV[@]}" "$DCARGO" build --release --manifest-path "$CLIENT_FW_DIR/Cargo.toml" \
      --target thumbv7em-none-eabihf -Z build-std=core --target-dir "$OUT/fw-client" --features small-code \
      >"$LOG/fw-client.log" 2>&1; then
    fail "client firmware: build"; show_log "$LOG/fw-client.log"; return 1
  fi
  cp "$OUT/fw-client/thumbv7em-none-eabihf/release/kafka-wire-firmware-client" "$elf"
  text=$(text_size "$elf")
  note "built client-small (thumbv7em-none-eabihf, build-std=core, small-code) in $((SECONDS - t))s"
  if [ "$text" -le "$CLIENT_SMALL_TEXT_BUDGET" ]; then
    pass "budget: client firmware (kafka-wire-client producer, small-code) .text $text bytes (budget $CLIENT_SMALL_TEXT_BUDGET; the client's target of 40 KB is not met)"
  else
    fail "budget: client firmware .text $text bytes over $CLIENT_SMALL_TEXT_BUDGET"
  fi
  report 3-measure ""
  report 3-measure "Client firmware (kafka-wire-client producer over the UART, small-code, thumbv7em): .text $text bytes"
  local cp_file="$ROOT/tests/broker/target/classpath.txt" work port rc
  if [ ! -f "$cp_file" ] || ! command -v java >/dev/null 2>&1; then
    fail "client firmware against a broker: no Kafka class path ($cp_file, written by .ci/broker.sh) or no java"
    return 1
  fi
  work=$(mktemp -d)
  if ! bash "$ROOT/tests/broker/start.sh" "$work" "$cp_file" >"$LOG/client-broker.out" 2>&1; then
    fail "client firmware against a broker: the broker did not start"; show_log "$LOG/client-broker.out"; rm -rf "$work"; return 1
  fi
  port=$(cat "$work/port")
  if ! java -cp "$(cat "$cp_file")" "$ROOT/tests/client/ClientCheck.java" create "127.0.0.1:$port" firmware 1 \
      >"$LOG/client-create.log" 2>&1; then
    fail "client firmware against a broker: creating the topic"; show_log "$LOG/client-create.log"
  else
    rc=0
    timeout "$QEMU_TIMEOUT" qemu-system-arm -machine mps2-an386 -cpu cortex-m4 -nographic -monitor none \
      -semihosting-config "enable=on,target=native,arg=firmware,arg=$port,arg=firmware,arg=$count" \
      -serial "tcp:127.0.0.1:$port" -kernel "$elf" >"$LOG/qemu-client.out" 2>"$LOG/qemu-client.err" || rc=$?
    if [ "$rc" = 0 ] && grep -q "^firmware producer: $count of $count records delivered, 0 failed" "$LOG/qemu-client.out"; then
      pass "client firmware on mps2-an386, its UART the connection to a real broker: $(head -n1 "$LOG/qemu-client.out"); $(tail -n1 "$LOG/qemu-client.out")"
      if java -cp "$(cat "$cp_file")" "$ROOT/tests/client/ClientCheck.java" consume "127.0.0.1:$port" firmware "$count" \
          2>"$LOG/client-consume.err" | python3 -c '
import base64, json, sys
n = int(sys.argv[1])
rs = [json.loads(l) for l in sys.stdin if l.strip()]
got = [(base64.b64decode(r["key"]).decode(), base64.b64decode(r["value"]).decode()) for r in rs]
want = [(f"fw-{i % 4}", f"firmware record {i}") for i in range(n)]
sys.exit(0 if got == want else 1)' "$count"; then
        pass "client firmware: Kafka's Java consumer reads the $count records back, keys and values in order"
      else
        fail "client firmware: Kafka's Java consumer did not read back the $count records in order"
      fi
    else
      fail "client firmware against a broker: exit status $rc"; show_log "$LOG/qemu-client.out" 20; show_log "$LOG/qemu-client.err" 10
    fi
  fi
  kill "$(cat "$work/broker.pid")" 2>/dev/null
  sleep 1
  rm -rf "$work"
}

# ---------------------------------------------------------------------------- 2. host lane
host_link() {
  [ -n "$HOST_CARGO" ] || { fail "host-link: no cargo on PATH for the host checks"; return 1; }
  local bin="$HOST_TARGET_DIR/debug/kafka-wire-nostd-link"
  if logged host-link "${HOST_ENV[@]}" "$HOST_CARGO" build --manifest-path "$ROOT/tests/nostd-link/Cargo.toml" \
       --target-dir "$HOST_TARGET_DIR"; then
    # All the C library may provide is the mem* functions that core's code calls.
    local nm=nm undef
    command -v nm >/dev/null 2>&1 || nm=llvm-nm-22
    undef="$("$nm" -u "$bin" | awk '{print $2}' | grep -vE '^(memcpy|memmove|memset|memcmp|bcmp)(@.*)?$' || true)"
    if [ -z "$undef" ]; then
      pass "host-link: a #![no_std] #![no_main] binary links kafka-wire (default features off) with no std and no allocator"
    else
      fail "host-link: the binary needs more than libc's mem* functions: $(echo $undef)"
    fi
  else
    fail "host-link: tests/nostd-link does not build: kafka-wire (default features off) or a dependency needs std or an allocator"
  fi
  # The check must be able to fail: the same crate with one more dependency in the graph that
  # uses std, or alloc (tests/nostd-link's features; kafka-wire's build above is reused).
  negative_link std 'E0152.*panic_impl|panic_impl.*E0152' "E0152, duplicate lang item panic_impl"
  negative_link alloc 'no global memory allocator found' '"no global memory allocator found"'
}

negative_link() { # KIND PATTERN DESCRIPTION
  local log="$LOG/host-link-with-$1.log"
  if timed "host-link-with-$1" "${HOST_ENV[@]}" "$HOST_CARGO" build --manifest-path "$ROOT/tests/nostd-link/Cargo.toml" \
       --features "with-$1-dependency" --target-dir "$HOST_TARGET_DIR" >"$log" 2>&1; then
    fail "host-link: negative test: with a dependency that uses $1 (feature with-$1-dependency) the check still builds: it cannot fail"
  elif tr '\n' ' ' <"$log" | grep -qE "$2"; then
    pass "host-link: negative test: one more dependency that uses $1 (once_cell with \"$1\"; feature with-$1-dependency) makes the check fail with $3"
  else
    fail "host-link: negative test: with a dependency that uses $1 the build fails, but not with $3"; show_log "$log"
  fi
}

host_powerset() {
  local hack
  install_tool cargo-hack >/dev/null 2>&1 || true
  if ! hack="$(tool_path cargo-hack)"; then
    fail "powerset: cargo-hack is not installed (cargo install --locked cargo-hack)"
    [ ! -f "$LOG/install-cargo-hack.log" ] || show_log "$LOG/install-cargo-hack.log" 20
    return 1
  fi
  # Every combination of the runtime features, with no message feature: the message features
  # are additive `cfg`s that .ci/features.sh covers (no API, each group, all).
  local runtime=alloc,std,arbitrary,defmt t=$SECONDS
  if logged powerset-host "${HOST_ENV[@]}" PATH="$(dirname "$HOST_CARGO"):$PATH" "$hack" hack --feature-powerset \
       --include-features "$runtime" check -p kafka-wire --manifest-path "$ROOT/Cargo.toml" \
       --target-dir "$HOST_TARGET_DIR"; then
    local n; n="$(grep -c '^info: running' "$LOG/powerset-host.log" || true)"
    pass "powerset: cargo hack --feature-powerset --include-features $runtime check -p kafka-wire on the host: $n feature combinations in $((SECONDS - t))s"
  else
    fail "powerset: cargo hack --feature-powerset check -p kafka-wire failed on the host"
  fi
}

# The `bytes` feature on a core without atomic compare-and-swap (thumbv6m): through the
# `bytes-portable-atomic` feature, with portable-atomic told that the target has one core.
bytes_no_cas() {
  local t=thumbv6m-none-eabi
  if logged bytes-thumbv6m "${DENV[@]}" RUSTFLAGS="--cfg portable_atomic_unsafe_assume_single_core" \
       "$DCARGO" check -p kafka-wire --manifest-path "$ROOT/Cargo.toml" --target "$t" -Z build-std=core,alloc \
       --target-dir "$OUT/bytes-$t" --no-default-features --features bytes-portable-atomic,producer; then
    pass "bytes: kafka-wire type-checks for $t (no compare-and-swap) with features bytes-portable-atomic,producer and build-std=core,alloc"
  else
    fail "bytes: kafka-wire does not build for $t with the bytes-portable-atomic feature"
  fi
  rm -rf "$OUT/bytes-$t"
}

host_lane() {
  if want host; then host_link; fi
  if want firmware && [ "$INSTALL_OK" = 1 ]; then
    local t
    for t in "${SECOND_TARGETS[@]}"; do build_main_firmware "$t" "${SECOND_OPT_ARGS[@]}"; done
    bytes_no_cas
  fi
  if want host; then host_powerset; fi
}

# ---------------------------------------------------------------------------- 4. measure
measure() {
  local t=thumbv7em-none-eabihf m text fixed small
  report 3-measure "## Code size per message ($t)"
  report 3-measure ""
  report 3-measure "Probe builds: each message is built on the stack, encoded and parsed at a version the"
  report 3-measure "compiler cannot see (so every version's code stays), nothing checked or printed; with"
  report 3-measure "\`probe-fixed\`, at one version given as a constant (what one version fixed at compile time costs);"
  report 3-measure "with kafka-wire's \`small-code\`, at every version (each struct's check and skip call its reader, its size its writer);"
  report 3-measure "pinned, built with \`KAFKA_WIRE_PIN\` fixing the message to the probe's version (the codec reads the"
  report 3-measure "version from a constant). \"Added\": the four together less the other three, the message's share beyond the runtime."
  report 3-measure "\"Program's part\": what building the message on the stack adds to the probe program alone (\`probe-build\`: built and"
  report 3-measure "handed to \`black_box\`, neither encoded nor parsed; the four together less the other three), and the last column is"
  report 3-measure "the pinned small-code share less it: the codec's parse and encode of the message."
  report 3-measure ""
  local ok=1 line="" base base_ro all=""
  if fw_build probe-none "$t" core --no-default-features --features probe \
     && fw_build probe-all "$t" core --no-default-features --features probe,apr,brr,pcr,dmr; then
    base="$(text_size "$ELF/probe-none.elf")"; base_ro="$(section_size "$ELF/probe-none.elf" .rodata)"
    all="$(( $(text_size "$ELF/probe-all.elf") - base ))"
    report 3-measure "| message | .text alone | .rodata alone | .text, one constant version | .text, small-code | .text, pinned | .text, pinned + small-code | pin | added to the other three | added, small-code | added, pinned + small-code | program's part | added, pinned + small-code, less the program's part |"
    report 3-measure "|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|"
    # Each message with the version its probe uses pinned by KAFKA_WIRE_PIN (docs/FEATURES.md,
    # "Pinning versions"): the generated code then reads the version from a constant.
    # The last columns are what the message adds to a firmware that has the other three: the
    # four together less the three without it, so the runtime they share is not counted (plain,
    # small-code, and small-code with all four pinned).
    local pin pinned pinsmall others marginal msmall mpin prog allpin="" allsmall allpinsmall
    allpin="api-alter-partition=3,api-broker-registration=4,PartitionChangeRecord=2,api-describe-mirrors=0"
    fw_build probe-all-small "$t" core --no-default-features --features probe,small-code,apr,brr,pcr,dmr || ok=0
    KAFKA_WIRE_PIN="$allpin" fw_build probe-all-pinsmall "$t" core --no-default-features --features probe,small-code,apr,brr,pcr,dmr || ok=0
    KAFKA_WIRE_PIN="$allpin" fw_build probe-all-build "$t" core --no-default-features --features probe-build,small-code,apr,brr,pcr,dmr || ok=0
    for m in apr:AlterPartitionRequest:api-alter-partition=3 brr:BrokerRegistrationRequest:api-broker-registration=4 \
             pcr:PartitionChangeRecord:PartitionChangeRecord=2 dmr:DescribeMirrorsResponse:api-describe-mirrors=0; do
      pin="${m##*:}"; m="${m%:*}"
      others="$(printf '%s\n' apr brr pcr dmr | grep -vx "${m%%:*}" | paste -sd, -)"
      if fw_build "probe-${m%%:*}" "$t" core --no-default-features --features "probe,${m%%:*}" \
         && fw_build "probe-fixed-${m%%:*}" "$t" core --no-default-features --features "probe-fixed,${m%%:*}" \
         && fw_build "probe-small-${m%%:*}" "$t" core --no-default-features --features "probe,small-code,${m%%:*}" \
         && KAFKA_WIRE_PIN="$pin" fw_build "probe-pinned-${m%%:*}" "$t" core --no-default-features --features "probe,${m%%:*}" \
         && KAFKA_WIRE_PIN="$pin" fw_build "probe-pinsmall-${m%%:*}" "$t" core --no-default-features --features "probe,small-code,${m%%:*}" \
         && fw_build "probe-not-${m%%:*}" "$t" core --no-default-features --features "probe,$others" \
         && fw_build "probe-notsmall-${m%%:*}" "$t" core --no-default-features --features "probe,small-code,$others" \
         && KAFKA_WIRE_PIN="$allpin" fw_build "probe-notpin-${m%%:*}" "$t" core --no-default-features --features "probe,small-code,$others" \
         && KAFKA_WIRE_PIN="$allpin" fw_build "probe-notbuild-${m%%:*}" "$t" core --no-default-features --features "probe-build,small-code,$others"; then
        text="$(( $(text_size "$ELF/probe-${m%%:*}.elf") - base ))"
        fixed="$(( $(text_size "$ELF/probe-fixed-${m%%:*}.elf") - base ))"
        small="$(( $(text_size "$ELF/probe-small-${m%%:*}.elf") - base ))"
        pinned="$(( $(text_size "$ELF/probe-pinned-${m%%:*}.elf") - base ))"
        pinsmall="$(( $(text_size "$ELF/probe-pinsmall-${m%%:*}.elf") - base ))"
        marginal="$(( $(text_size "$ELF/probe-all.elf") - $(text_size "$ELF/probe-not-${m%%:*}.elf") ))"
        msmall="$(( $(text_size "$ELF/probe-all-small.elf") - $(text_size "$ELF/probe-notsmall-${m%%:*}.elf") ))"
        mpin="$(( $(text_size "$ELF/probe-all-pinsmall.elf") - $(text_size "$ELF/probe-notpin-${m%%:*}.elf") ))"
        prog="$(( $(text_size "$ELF/probe-all-build.elf") - $(text_size "$ELF/probe-notbuild-${m%%:*}.elf") ))"
        report 3-measure "| ${m#*:} | $text | $(( $(section_size "$ELF/probe-${m%%:*}.elf" .rodata) - base_ro )) | $fixed | $small | $pinned | $pinsmall | \`$pin\` | $marginal | $msmall | $mpin | $prog | $(( mpin - prog )) |"
        if [ "$small" -le "$MESSAGE_SHARE_BUDGET" ]; then
          pass "budget: ${m#*:} alone takes $small bytes of .text with small-code (budget $MESSAGE_SHARE_BUDGET)"
        else
          fail "budget: ${m#*:} alone takes $small bytes of .text with small-code, over its budget of $MESSAGE_SHARE_BUDGET"
        fi
        if [ "$msmall" -le "$MESSAGE_SHARE_BUDGET" ]; then
          pass "budget: ${m#*:} adds $msmall bytes of .text with small-code to a firmware with the other three (budget $MESSAGE_SHARE_BUDGET)"
        else
          fail "budget: ${m#*:} adds $msmall bytes of .text with small-code to a firmware with the other three, over its budget of $MESSAGE_SHARE_BUDGET"
        fi
        if [ "$mpin" -le "$PINNED_MESSAGE_SHARE_BUDGET" ]; then
          pass "budget: ${m#*:} adds $mpin bytes of .text with small-code, pinned, to a firmware with the other three (budget $PINNED_MESSAGE_SHARE_BUDGET)"
        else
          fail "budget: ${m#*:} adds $mpin bytes of .text with small-code, pinned, to a firmware with the other three, over its budget of $PINNED_MESSAGE_SHARE_BUDGET"
        fi
        line+=" ${m#*:} $text (one version $fixed, small-code $small, pinned $pinned, pinned small-code $pinsmall; added to the other three $marginal, small-code $msmall, pinned small-code $mpin, of which the program's part $prog),"
      else
        ok=0
      fi
    done
    allsmall="$(( $(text_size "$ELF/probe-all-small.elf") - base ))"
    allpinsmall="$(( $(text_size "$ELF/probe-all-pinsmall.elf") - base ))"
    report 3-measure "| all four together | $all | $(( $(section_size "$ELF/probe-all.elf" .rodata) - base_ro )) | | $allsmall | | $allpinsmall | | | | | | |"
    report 3-measure ""
    report 3-measure "(.text bytes over the skeleton, which is $base bytes: cortex-m-rt, stack measurement, exit.)"
    if [ "$ok" = 1 ]; then
      pass "code size (.text over the skeleton) per message alone:${line%,}; all four together $all (small-code $allsmall, pinned small-code $allpinsmall)"
    else
      fail "measure: a probe build failed"
    fi
  else
    fail "measure: the probe builds do not build"
  fi
  report 3-measure ""

  report 3-measure "## Panic call sites on the parse path ($t)"
  report 3-measure ""
  if fw_build parse-path "$t" core --no-default-features --features parse-path,apr,brr,pcr,dmr,hostile; then
    panic_report parse-path "the 4 messages parsed and every field read, the hostile frames (narrow path)" budget
  else
    fail "measure: the parse-path build failed"
  fi

  # Every request parser: hostile frames through parse_request_frame, run on the M4F board.
  if fw_build full-dispatch "$t" core --no-default-features --features hostile,full-dispatch; then
    if check_run full-dispatch "$ELF/full-dispatch.elf" mps2-an386 cortex-m4; then
      if grep -q 'unknown API key or record type 32767' "$LOG/qemu-full-dispatch.out"; then
        pass "full-dispatch: kafka_wire::frame::parse_request_frame(bytes, Mode::Strict) rejects every hostile frame with the expected typed error"
      else
        fail "full-dispatch: no UnknownApiKey error in the output"
      fi
    fi
    panic_report full-dispatch "parse_request_frame with every request parser, and the firmware's printing"
    report 3-measure ""
    report 3-measure "## Full dispatch ($t, mps2-an386)"
    report 3-measure ""
    report 3-measure "Hostile frames only, through kafka_wire::frame::parse_request_frame: .text $(text_size "$ELF/full-dispatch.elf") bytes, .rodata $(section_size "$ELF/full-dispatch.elf" .rodata) bytes, stack peak ${STACK_PEAK:-?} bytes."
  else
    fail "full-dispatch: the build failed"
  fi
  report 3-measure ""
  producer_firmware
}

# producer_board TARGET: the MACHINE:CPU the producer firmware runs on for TARGET.
producer_board() {
  case "$1" in thumbv7em-none-eabihf) echo mps2-an386:cortex-m4 ;; *) echo microbit:cortex-m0 ;; esac
}

# The producer firmware on an M4F and an M0 board: encodes the four requests of a producer
# (a record batch built on the stack), parses canned broker answers, checks them.
producer_firmware() {
  local t elf text board feats name budget
  report 3-measure "## Producer firmware (ApiVersions v3, Metadata v12, InitProducerId v4, Produce v9)"
  report 3-measure ""
  report 3-measure "| target | board | kafka-wire features | .text | .rodata | stack peak |"
  report 3-measure "|---|---|---|---:|---:|---:|"
  for t in thumbv7em-none-eabihf thumbv6m-none-eabi; do
    board="$(producer_board "$t")"
    # The third build pins the four APIs to the versions it sends (KAFKA_WIRE_PIN).
    for feats in producer producer,small-code "producer,small-code pinned"; do
      local pin=""
      name="producer-$t"; budget="${PRODUCER_TEXT_BUDGET[$t]}"
      if [ "$feats" = producer,small-code ]; then name="producer-small-$t"; budget="${PRODUCER_SMALL_TEXT_BUDGET[$t]}"; fi
      if [ "${feats#* }" = pinned ]; then
        name="producer-pinned-$t"; budget="${PRODUCER_PINNED_TEXT_BUDGET[$t]}"; feats="${feats% *}"; pin="$PRODUCER_PIN"
      fi
      if ! KAFKA_WIRE_PIN="$pin" fw_build "$name" "$t" core --no-default-features --features "$feats"; then
        fail "producer: the firmware does not build for $t with features $feats${pin:+, KAFKA_WIRE_PIN=$pin}"; continue
      fi
      elf="$ELF/$name.elf"; text="$(text_size "$elf")"
      if check_run "$name" "$elf" "${board%%:*}" "${board#*:}"; then
        report 3-measure "| $t | ${board%%:*} (${board#*:}) | $feats${pin:+, \`KAFKA_WIRE_PIN=$pin\`} | $text | $(section_size "$elf" .rodata) | $STACK_PEAK |"
      else
        report 3-measure "| $t | ${board%%:*} (${board#*:}) | $feats${pin:+, \`KAFKA_WIRE_PIN=$pin\`} | $text | $(section_size "$elf" .rodata) | FAILED |"
      fi
      if [ "$text" -le "$budget" ]; then
        pass "budget: .text of the producer firmware ($feats${pin:+, pinned}) for $t is $text bytes (budget $budget; firmware target: 40960)"
      else
        fail "budget: .text of the producer firmware ($feats${pin:+, pinned}) for $t is $text bytes, over its budget of $budget"
      fi
    done
  done
  report 3-measure ""
}

# panic_report NAME WHAT [budget]
panic_report() {
  local name="$1" what="$2" summary sites ours
  if ! python3 "$FW_DIR/scripts/panic_sites.py" "$ELF/$name.elf" --root "$ROOT" --objdump "$LLVM_OBJDUMP" \
       --addr2line "$LLVM_ADDR2LINE" --json "$OUT/$name-panics.json" --list >"$LOG/$name-panics.txt" 2>&1; then
    fail "measure: panic_sites.py failed on $name"; show_log "$LOG/$name-panics.txt" 20; return 1
  fi
  summary="$(head -n1 "$LOG/$name-panics.txt")"
  sites="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["call_sites"])' "$OUT/$name-panics.json")"
  report 3-measure "- $what (.text $(text_size "$ELF/$name.elf") bytes): $summary. List: logs/$name-panics.txt"
  if [ "${3:-}" = budget ]; then
    if [ "$sites" -le "$PANIC_SITES_BUDGET" ]; then
      pass "panic call sites on the parse path: $sites (budget $PANIC_SITES_BUDGET; $summary)"
    else
      fail "panic call sites on the parse path: $sites, over the budget of $PANIC_SITES_BUDGET ($summary; see logs/$name-panics.txt)"
    fi
  elif [ "${3:-}" = ours ]; then
    # Sites in kafka-wire's own code (codec, runtime, generated messages, client); the
    # formatting and semihosting code of the firmware itself is not counted.
    ours="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["call_sites_by_origin"].get("kafka-wire", 0))' "$OUT/$name-panics.json")"
    if [ "$ours" -le "$PANIC_SITES_OURS_BUDGET" ]; then
      pass "panic call sites in kafka-wire's code, $what: $ours (budget $PANIC_SITES_OURS_BUDGET; $summary)"
    else
      fail "panic call sites in kafka-wire's code, $what: $ours, over the budget of $PANIC_SITES_OURS_BUDGET ($summary; see logs/$name-panics.txt)"
    fi
  else
    pass "panic call sites, $what: $sites ($summary)"
  fi
}

# The encoders, the owned values and the client: panic call sites in kafka-wire's own code, in
# builds made by the earlier steps.
encoder_panics() {
  report 3-measure ""
  report 3-measure "## Panic call sites in kafka-wire's code: encoders, owned values, the client"
  report 3-measure ""
  local name what
  for name in producer-thumbv7em-none-eabihf producer-small-thumbv7em-none-eabihf alloc client-small; do
    [ -f "$ELF/$name.elf" ] || continue
    case "$name" in
      producer-small-*) what="the producer firmware with small-code (four requests encoded, their answers parsed)" ;;
      producer-*) what="the producer firmware (four requests encoded, their answers parsed)" ;;
      alloc) what="the alloc firmware (owned values decoded and encoded, a dynamic value encoded)" ;;
      client-small) what="the client firmware (kafka-wire-client's producer and driver, small-code)" ;;
    esac
    panic_report "$name" "$what" ours
  done
}

# ---------------------------------------------------------------------------- 5./6. defmt, alloc
# defmt_run NAME STD FEATURES: builds, runs on mps2-an386, decodes, compares with the hprintln run
defmt_run() {
  local name="$1" std="$2" features="$3" t=thumbv7em-none-eabihf
  if ! fw_build "$name" "$t" "$std" --features "$features" "${VARIANT_OPT_ARGS[@]}"; then
    fail "$name: the firmware does not build with features $features (build-std=$std)"
    return 1
  fi
  local crates want_libs="compiler_builtins core"
  [ "$std" = core ] || want_libs="alloc compiler_builtins core"
  crates="$(fw_crates "$name")"
  if [ "${crates#*|}" = "$want_libs" ]; then
    pass "kafka-wire builds for $t with features [${crates%%|*}] and build-std=$std (standard-library crates: ${crates#*|})"
  else
    fail "$name: standard-library crates compiled: ${crates#*|} (want $want_libs)"
  fi
  QEMU_RC=0
  qemu_run "$name" "$ELF/$name.elf" mps2-an386 cortex-m4 || QEMU_RC=$?
  if [ -n "$DEFMT_PRINT_PID" ]; then wait "$DEFMT_PRINT_PID" 2>/dev/null || true; DEFMT_PRINT_PID=""; fi
  local printer
  if ! printer="$(tool_path defmt-print)"; then
    fail "$name: defmt-print is not installed (cargo install --locked defmt-print)"
    [ ! -f "$LOG/install-defmt-print.log" ] || show_log "$LOG/install-defmt-print.log" 20
    return 1
  fi
  if ! "$printer" -e "$ELF/$name.elf" --log-format '{s}' <"$LOG/qemu-$name.out" >"$LOG/$name.txt" 2>"$LOG/$name-print.err"; then
    fail "$name: defmt-print could not decode the output"; show_log "$LOG/$name-print.err" 20; return 1
  fi
  check_output "$name on mps2-an386 (cortex-m4), decoded by defmt-print" "$LOG/$name.txt" "$QEMU_RC" || return 1
  # The decoded lines must be the hprintln firmware's, but for the stack line (and, with alloc,
  # the Vec<u8> line and its one more check).
  local ref="$LOG/qemu-firmware-$t-mps2-an386.out" skip='^(stack peak)'
  [ "$std" = core ] || skip='^(stack peak|alloc:|checks passed)'
  [ -f "$ref" ] || { note "no hprintln output of the $t firmware to compare with"; return 0; }
  if diff <(grep -vE "$skip" "$ref") <(grep -vE "$skip" "$LOG/$name.txt") >"$LOG/$name.diff"; then
    pass "$name: the output decoded by defmt-print equals the hprintln firmware's, line for line (views, errors and ApiKey through defmt::Format)"
  else
    fail "$name: the decoded output differs from the hprintln firmware's"; show_log "$LOG/$name.diff" 30
  fi
}

# The small-code producer logging through defmt, on both boards: its decoded lines must be the
# hprintln small-code producer's (but for the stack line), and its .text within the budget.
producer_defmt() {
  local t board name elf text printer rc ref
  if [ -n "$DEFMT_PRINT_PID" ]; then wait "$DEFMT_PRINT_PID" 2>/dev/null || true; DEFMT_PRINT_PID=""; fi
  if ! printer="$(tool_path defmt-print)"; then
    fail "producer-defmt: defmt-print is not installed (cargo install --locked defmt-print)"; return 1
  fi
  report 3-measure "## Producer firmware logging through defmt (kafka-wire features producer, small-code, defmt)"
  report 3-measure ""
  report 3-measure "| target | board | .text | .rodata | stack peak |"
  report 3-measure "|---|---|---:|---:|---:|"
  for t in thumbv7em-none-eabihf thumbv6m-none-eabi; do
    board="$(producer_board "$t")"
    name="producer-defmt-$t"
    if ! fw_build "$name" "$t" core --no-default-features --features producer,small-code,defmt; then
      fail "producer-defmt: the firmware does not build for $t"; continue
    fi
    elf="$ELF/$name.elf"; text="$(text_size "$elf")"
    rc=0; qemu_run "$name" "$elf" "${board%%:*}" "${board#*:}" || rc=$?
    if ! "$printer" -e "$elf" --log-format '{s}' <"$LOG/qemu-$name.out" >"$LOG/$name.txt" 2>"$LOG/$name-print.err"; then
      fail "$name: defmt-print could not decode the output"; show_log "$LOG/$name-print.err" 20; continue
    fi
    if check_output "$name on ${board%%:*} (${board#*:}), decoded by defmt-print" "$LOG/$name.txt" "$rc"; then
      report 3-measure "| $t | ${board%%:*} (${board#*:}) | $text | $(section_size "$elf" .rodata) | $STACK_PEAK |"
    else
      report 3-measure "| $t | ${board%%:*} (${board#*:}) | $text | $(section_size "$elf" .rodata) | FAILED |"
    fi
    ref="$LOG/qemu-producer-small-$t.out"
    if [ ! -f "$ref" ]; then
      note "no hprintln output of the small-code producer for $t to compare with"
    elif diff <(grep -v '^stack peak' "$ref") <(grep -v '^stack peak' "$LOG/$name.txt") >"$LOG/$name.diff"; then
      pass "$name: the output decoded by defmt-print equals the hprintln producer's, line for line"
    else
      fail "$name: the decoded output differs from the hprintln producer's"; show_log "$LOG/$name.diff" 30
    fi
    if [ "$text" -le "${PRODUCER_DEFMT_TEXT_BUDGET[$t]}" ]; then
      pass "budget: .text of the producer firmware logging through defmt for $t is $text bytes (budget ${PRODUCER_DEFMT_TEXT_BUDGET[$t]}; firmware target: 40960)"
    else
      fail "budget: .text of the producer firmware logging through defmt for $t is $text bytes, over its budget of ${PRODUCER_DEFMT_TEXT_BUDGET[$t]}"
    fi
  done
  report 3-measure ""
}

# ---------------------------------------------------------------------------- main
# All in one function, called on the last line: bash has then read the whole file before
# anything runs, so editing the script while it runs cannot derail it.
main() {
  section "bare metal: steps [$STEPS], $JOBS job(s)"
  report 1-head "# kafka-wire bare-metal report ($(date -u +%Y-%m-%dT%H:%MZ), $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?'))"
  report 1-head ""
  INSTALL_OK=1
  if want install; then
    section "install"
    want defmt || want alloc && start_defmt_print_install
    install_debian_toolchain || INSTALL_OK=0
    install_qemu || INSTALL_OK=0
  else
    command -v qemu-system-arm >/dev/null 2>&1 && [ -x /usr/bin/cargo ] || INSTALL_OK=0
  fi
  report 1-head "Toolchain: $(/usr/bin/rustc --version 2>/dev/null || echo none); $(qemu-system-arm --version 2>/dev/null | head -n1 || echo 'no QEMU')"
  report 1-head ""

  FIRST_TARGET=thumbv7em-none-eabihf
  SECOND_TARGETS=(thumbv6m-none-eabi)
  [ "$M3_TARGET" = thumbv6m-none-eabi ] || SECOND_TARGETS+=("$M3_TARGET")

  # The host lane (host link check, the second target's firmware build, the host powerset) runs
  # in the background with its output kept, then replayed here, so that its lines stay together.
  HOST_LANE_PID=""
  if [ "$JOBS" -ge 2 ]; then
    section "host lane started in the background (host link check, ${SECOND_TARGETS[*]} build, powerset)"
    host_lane >"$OUT/host-lane.out" 2>&1 &
    HOST_LANE_PID=$!
  else
    section "host lane"
    host_lane
  fi

  if [ "$INSTALL_OK" = 1 ]; then
    if want firmware; then
      section "firmware $FIRST_TARGET"
      build_main_firmware "$FIRST_TARGET" && run_main_firmware "$FIRST_TARGET"
    fi
    if want client; then section "client firmware"; client_firmware; fi
    if want measure; then section "measure"; measure; fi
    if want defmt; then section "defmt"; defmt_run defmt core defmt; producer_defmt; fi
    if want alloc; then section "alloc"; defmt_run alloc core,alloc alloc,defmt; fi
    if want measure; then section "panic call sites in kafka-wire's code"; encoder_panics; fi
  else
    fail "bare-metal builds skipped: the toolchain or QEMU could not be installed"
  fi

  if [ -n "$HOST_LANE_PID" ]; then
    section "host lane (waiting for it)"
    wait "$HOST_LANE_PID" || true
    while IFS= read -r line; do
      case "$line" in
        PASS:*) PASSED=$((PASSED + 1)) ;;
        FAILED:*) FAILURES+=("${line#FAILED: }") ;;
      esac
      printf '%s\n' "$line"
    done <"$OUT/host-lane.out"
  fi
  if [ "$INSTALL_OK" = 1 ] && want firmware; then
    section "firmware ${SECOND_TARGETS[*]}"
    for t in "${SECOND_TARGETS[@]}"; do run_main_firmware "$t"; done
    # The firmware table is written as the runs happen; keep the report's sections in order.
  fi
  if [ -n "$DEFMT_PRINT_PID" ]; then wait "$DEFMT_PRINT_PID" 2>/dev/null || true; fi

  section "done"
  {
    cat "$OUT/report-1-head.md"
    if [ -f "$OUT/report-2-firmware.md" ]; then
      printf '## Firmware (release, default features, -Z build-std=core)\n\n'
      printf '| target | board | .text | .rodata | .bss | stack peak |\n|---|---|---:|---:|---:|---:|\n'
      cat "$OUT/report-2-firmware.md"; echo
    fi
    [ ! -f "$OUT/report-3-measure.md" ] || cat "$OUT/report-3-measure.md"
  } >"$REPORT"
  report 9 ""
  report 9 "Total time: $((SECONDS - T0)) s (steps: $STEPS; jobs: $JOBS). Per command (wall s, user s, sys s): timings.txt"
  cat "$OUT/report-9.md" >>"$REPORT"
  note "report: ${REPORT#"$ROOT"/}; logs: ${LOG#"$ROOT"/}/; timings: ${TIMINGS#"$ROOT"/}"
  if [ ${#FAILURES[@]} -eq 0 ]; then
    printf 'bare-metal: all %d checks PASS in %ds\n' "$PASSED" "$((SECONDS - T0))"
    exit 0
  fi
  printf 'bare-metal: FAILED: %d of %d checks failed (%ds):\n' "${#FAILURES[@]}" "$((PASSED + ${#FAILURES[@]}))" "$((SECONDS - T0))"
  printf '  - %s\n' "${FAILURES[@]}"
  exit 1
}

main "$@"
