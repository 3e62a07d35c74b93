#!/usr/bin/env bash
# One real-time run of the whole robot on a bus: 12 boards, the host, a recorder, then the time
# trigger, the nodes of a 12-joint robot of PERIOD (default 4ms; it divides the 100 ms status
# period) written by `servobus robot new` into the output directory.
#
#   ci/rt_run.sh INTERFACE CHANNEL DURATION_S [PERIOD]     e.g. socketcan vcan0 60 4ms
#
# `virtual` goes through `servobus remote-server` (separate processes cannot share a virtual
# channel).  After the tick ends the others get SIGINT and print their JSON reports; then
# `servobus analyze timing` reads the recorded log.  Each node runs under /usr/bin/time -v
# (CPU seconds, context switches).  Environment: PYTHON (default python3), RT_OUT (directory
# for the log and reports, default a fresh temporary one), RT_STARTUP (seconds the nodes get
# to start before the first tick, default 10), RT_SETTLE (seconds after the last tick, 1).
set -euo pipefail
set -m  # each node in its own process group: SIGINT reaches python, not only /usr/bin/time

if [ $# -lt 3 ]; then
    echo "usage: $0 INTERFACE CHANNEL DURATION_S [PERIOD]" >&2
    exit 2
fi
IFACE=$1 CHANNEL=$2 DURATION=$3 PERIOD=${4:-4ms}
PY=${PYTHON:-python3}
OUT=${RT_OUT:-$(mktemp -d /tmp/rt_run.XXXXXX)}
mkdir -p "$OUT"
PIDS=()

stop() {  # SIGINT to one node's process group, then wait for it
    kill -INT -- "-$1" 2>/dev/null || true
    wait "$1" 2>/dev/null || true
}
cleanup() {
    for pid in "${PIDS[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || true; done
}
trap cleanup EXIT

if [ "$IFACE" = virtual ]; then
    "$PY" -m servobus remote-server --port 0 --interface virtual --channel "$CHANNEL" \
        > "$OUT/server.out" 2> "$OUT/server.err" &
    SERVER=$!
    PIDS+=("$SERVER")
    for _ in $(seq 300); do
        grep -q "ws://" "$OUT/server.out" 2>/dev/null && break
        sleep 0.1
    done
    URL=$(grep -o "ws://[^ ]*/" "$OUT/server.out") || { cat "$OUT/server.err" >&2; exit 1; }
    IFACE=remote CHANNEL=$URL
fi
BUS=(--interface "$IFACE" --channel "$CHANNEL")
"$PY" -m servobus robot new rt --joints 12 --period "$PERIOD" --out "$OUT" > /dev/null
ROBOT=(--robot "$OUT/rt.toml")

node() {  # node NAME servobus-args...: run in the background, report to $OUT/NAME.json
    local name=$1 timer=()
    shift
    [ -x /usr/bin/time ] && timer=(/usr/bin/time -v -o "$OUT/$name.time")
    "${timer[@]}" "$PY" -m servobus "$@" "${BUS[@]}" --json \
        > "$OUT/$name.json" 2> "$OUT/$name.err" &
    PIDS+=("$!")
    eval "${name}_PID=$!"
}

node record log record --out "$OUT/bus.log"
node boards node board "${ROBOT[@]}"
node host node host "${ROBOT[@]}"
sleep "${RT_STARTUP:-10}"
echo "rt_run: $IFACE $CHANNEL, ${DURATION} s at $PERIOD, output in $OUT" >&2
node tick node time-trigger "${ROBOT[@]}" --duration "$DURATION"
wait "$tick_PID" || true
sleep "${RT_SETTLE:-1}"
stop "$boards_PID"
stop "$host_PID"
stop "$record_PID"
[ "${SERVER:-}" ] && stop "$SERVER"
trap - EXIT

for name in tick boards host record; do
    echo "== $name"
    cat "$OUT/$name.json"
    grep -v "^$" "$OUT/$name.err" | grep -v "KeyboardInterrupt" >&2 || true
    if [ -f "$OUT/$name.time" ]; then
        grep -E "Elapsed|User time|System time|Percent of CPU|context switches" \
            "$OUT/$name.time" | sed 's/^\s*/  /'
    fi
done
echo "== analyze timing"
"$PY" -m servobus analyze timing --log "$OUT/bus.log" --period "$PERIOD" --json
