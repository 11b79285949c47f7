#!/usr/bin/env bash
# Run the test suite with the wall clock set to a chosen UTC instant, in a chosen time
# zone: a check that no test depends on the hour, the date or the zone.
#
#   scripts/test-at-any-hour.sh                         # 23:59:58 UTC, TZ=America/Adak
#   scripts/test-at-any-hour.sh "2026-12-31 23:59:58" Pacific/Kiritimati -x tests/test_recorder.py
#
# Every process (pytest's workers, each CLI run, each mock) starts at that instant and
# its clock runs on from there, so each crosses midnight UTC within seconds.
#
# It needs libfaketime built to fake the wall clock only. Debian's build (0.9.10) also
# intercepts sleeps and thread waits, which breaks Python 3.11 (time.sleep fails with
# EINVAL, threading.Event.wait never returns). Without LIBFAKETIME set, this script
# builds such a library once, from the libfaketime sources on PyPI, into .cache/.
set -euo pipefail
cd "$(dirname "$0")/.."

when_utc="${1:-2026-11-24 23:59:58}"
zone="${2:-America/Adak}"
shift $(( $# > 2 ? 2 : $# ))

lib="${LIBFAKETIME:-.cache/libfaketime-wallclock.so.1}"
if [ ! -f "$lib" ]; then
    work="$(mktemp -d)"
    trap 'rm -rf "$work"' EXIT
    python3 -m pip download -q --no-deps --no-binary :all: -d "$work" 'libfaketime==3.0.1'
    tar xzf "$work"/libfaketime-*.tar.gz -C "$work"
    src="$(echo "$work"/libfaketime-*/libfaketime/vendor/libfaketime/src)"
    # Keep only the wall-clock faking: no sleep, timer, pthread or internal-call hooks.
    sed -i -e 's/ -DFAKE_PTHREAD -DFAKE_STAT -DFAKE_UTIME -DFAKE_SLEEP -DFAKE_TIMERS -DFAKE_INTERNAL_CALLS/ -DFAKE_STAT/' \
           -e 's/-Wall -Wextra -Werror /-Wall -Wextra /' "$src/Makefile"
    make -s -C "$src" libfaketime.so.1 >/dev/null 2>&1
    mkdir -p "$(dirname "$lib")"
    cp "$src/libfaketime.so.1" "$lib"
fi

epoch="$(TZ=UTC date -d "$when_utc" +%s)"
local_time="$(TZ="$zone" date -d "@$epoch" '+%Y-%m-%d %H:%M:%S')"
echo "clock: $when_utc UTC ($local_time in $zone) at the start of every process" >&2
export TZ="$zone" FAKETIME="@$local_time" FAKETIME_DONT_FAKE_MONOTONIC=1
export LD_PRELOAD="$(realpath "$lib")${LD_PRELOAD:+:$LD_PRELOAD}"
exec .venv/bin/python -m pytest -n auto -p no:cacheprovider "$@"
