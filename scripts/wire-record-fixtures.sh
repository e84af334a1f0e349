#!/bin/sh
# Record fio<->fio wire traffic for tests/fixtures/wire (see its README.md).
# Usage: scripts/wire-record-fixtures.sh TAG FIO_BINARY [SCENARIO...]
#   TAG: name of the fixture directory (tests/fixtures/wire/fio-TAG)
#   SCENARIO: two-json two-normal timed group bwlog (default: all)
# Starts FIO_BINARY --server on a loopback port, puts scripts/wire-record.py in
# front of it and runs the same binary as client through the proxy.
# With WIRE_SERVER_FIO=OTHER_BINARY the server is OTHER_BINARY instead; the
# scenario "mismatch" (two.fio, json) then writes a summary of the run to
# tests/fixtures/wire/mismatch-TAG.txt instead of a fixture directory.
set -u
TAG=$1; FIO=$(readlink -f "$2"); shift 2
[ $# -gt 0 ] || set -- two-json two-normal timed group bwlog
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WIRE=$ROOT/tests/fixtures/wire
REC=$ROOT/scripts/wire-record.py
SPORT=${WIRE_SERVER_PORT:-28765}
PPORT=${WIRE_PROXY_PORT:-28766}
SCRATCH=/tmp/rfio-wire-scratch   # named in jobs/timed.fio

SFIO=$(readlink -f "${WIRE_SERVER_FIO:-$FIO}")
SRVDIR=$(mktemp -d)
(cd "$SRVDIR" && exec "$SFIO" --server=ip:127.0.0.1,$SPORT) >"$SRVDIR/server.log" 2>&1 &
SPID=$!
i=0
# wait until the port is in LISTEN state (fio's log line is buffered)
until ss -Hltn "sport = :$SPORT" | grep -q .; do
  i=$((i+1)); [ $i -gt 100 ] && { echo "server did not start"; kill -INT $SPID; exit 1; }
  sleep 0.1
done

run() { # SCENARIO JOBFILE CLIENT-ARGS...
  scen=$1; job=$2; shift 2
  out=$WIRE/fio-$TAG/$scen
  rm -rf "$out"; mkdir -p "$out"
  clidir=$(mktemp -d)
  cp "$WIRE/jobs/$job" "$clidir/"
  python3 "$REC" --listen 127.0.0.1,$PPORT --connect 127.0.0.1,$SPORT \
      --out "$out" --timeout 30 >"$clidir/rec.log" 2>&1 &
  rpid=$!
  until grep -q listening "$clidir/rec.log" 2>/dev/null; do sleep 0.05; done
  (cd "$clidir" && "$FIO" --client=127.0.0.1,$PPORT "$@" "$job") \
      >"$out/client.stdout" 2>"$out/client.stderr"
  echo $? >"$out/client.status"
  wait $rpid; echo "recorder exit $?" >>"$clidir/rec.log"
  grep -v '^listening' "$clidir/rec.log" | grep -v '^recorder exit 0$' >&2
  [ -s "$out/client.stderr" ] || rm -f "$out/client.stderr"
  # files the client wrote in its working directory (IOLOG logs)
  for f in "$clidir"/*; do
    case "$(basename "$f")" in "$job"|rec.log) ;; *) mkdir -p "$out/client-files"; cp "$f" "$out/client-files/";; esac
  done
  rm -rf "$clidir"
  echo "fio-$TAG/$scen: status $(cat "$out/client.status"), $(($(wc -l <"$out/trace.tsv")-1)) messages"
}

for s in "$@"; do
  case $s in
    two-json)   run two-json two.fio --output-format=json ;;
    two-normal) run two-normal two.fio --output-format=normal ;;
    timed)      rm -rf $SCRATCH; mkdir -p $SCRATCH
                run timed timed.fio --output-format=normal
                rm -rf $SCRATCH ;;
    group)      run group group.fio --output-format=json ;;
    bwlog)      run bwlog bwlog.fio --output-format=json ;;
    mismatch)   WIRE=$(mktemp -d); mkdir -p "$WIRE/jobs"
                cp "$ROOT/tests/fixtures/wire/jobs/two.fio" "$WIRE/jobs/"
                run mismatch two.fio --output-format=json
                sleep 1   # let the server write its stderr
                d=$WIRE/fio-$TAG/mismatch
                {
                  echo "# $("$FIO" --version) client -> wire-record.py -> $("$SFIO" --version) server"
                  echo "# client: fio --client=127.0.0.1,PROXYPORT --output-format=json two.fio"
                  echo "## client exit status"; cat "$d/client.status"
                  echo "## client stdout"; cat "$d/client.stdout"
                  echo "## client stderr"; cat "$d/client.stderr" 2>/dev/null
                  echo "## server stdout+stderr (fio --server=ip:127.0.0.1,PORT)"; cat "$SRVDIR/server.log"
                  echo "## trace.tsv"; cat "$d/trace.tsv"
                  echo "## frames.tsv"; cat "$d/frames.tsv"
                  for f in "$d"/*-s2c-*.bin; do
                    [ -e "$f" ] || continue
                    echo "## $(basename "$f") (hex)"; od -An -tx1 -v "$f"
                  done
                } > "$ROOT/tests/fixtures/wire/mismatch-$TAG.txt"
                rm -rf "$WIRE"; WIRE=$ROOT/tests/fixtures/wire ;;
    *) echo "unknown scenario $s" >&2 ;;
  esac
done

kill -INT $SPID; wait $SPID
echo "server exit $?"
rm -rf "$SRVDIR"
