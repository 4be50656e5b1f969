#!/usr/bin/env bash
# bench/run.sh -- benchmarks of nscircuit against its anchors, same machine, same run
# (issue 4). Run by `make bench` from a build directory, or directly:
#     bash bench/run.sh [BUILD_DIR]
# Each benchmark prints both timings and the ratio; waveforms are compared too.
# Anchors missing from the machine are installed from Debian packages when root.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
build=${1:-$PWD}
nsc="$build/nscircuit"
[ -x "$nsc" ] || { echo "bench: $nsc not built (run make first)" >&2; exit 2; }
work=$(mktemp -d /tmp/nsc_bench_XXXXXX)
trap 'rm -rf "$work"' EXIT

need_pkg() { # need_pkg TEST PACKAGE...
    if ! eval "$1" >/dev/null 2>&1; then
        if [ "$(id -u)" = 0 ]; then
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${@:2}" >/dev/null
        else
            echo "bench: missing ${*:2} (apt-get install ${*:2})" >&2; return 1
        fi
    fi
}

# wall time of a command, seconds (best of N runs)
best_of() { # best_of N cmd...
    local n=$1; shift
    local best=""
    for _ in $(seq "$n"); do
        local s e
        s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N)
        best=$(awk -v a="$best" -v b="$(echo "$e - $s" | bc -l)" 'BEGIN { if (a == "" || b < a) print b; else print a }')
    done
    echo "$best"
}

# max |a - b| / range(b) over columns 2.. of two tables with equal time rows, from
# t > 0 (at t = 0 Siconos starts from lambda = 0, nscircuit from the consistent solution)
compare_tables() { # compare_tables ours ref
    awk '/^#/ { next } $1 == 0 { next }
         FNR == NR { for (i = 2; i <= NF; i++) a[FNR, i] = $i; n = NF; next }
         { for (i = 2; i <= NF; i++) { d = a[FNR, i] - $i; if (d < 0) d = -d; if (d > m[i]) m[i] = d;
             if (!(i in lo) || $i < lo[i]) lo[i] = $i; if (!(i in hi) || $i > hi[i]) hi[i] = $i } }
         END { worst = 0; for (i = 2; i <= n; i++) { r = m[i] / (hi[i] - lo[i]); if (r > worst) worst = r }
               printf "%.2e", worst }' "$1" "$2"
}

echo "== nscircuit benchmarks ($(date -u +%Y-%m-%d), $(nproc) cores, $(uname -m))"

# ---- 1. diode bridge, h = 1 us, 500 000 steps, vs the Siconos 4.4 kernel ----
bridge() {
    local steps=500000
    need_pkg "test -f /usr/include/siconos/kernel/SiconosKernel.hpp" libsiconos-kernel-dev || return 0
    need_pkg "command -v g++" g++ || return 0
    need_pkg "command -v bc" bc || return 0
    g++ -O2 -std=c++17 -I/usr/include/siconos -I/usr/include/siconos/kernel -I/usr/include/siconos/numerics \
        "$here/siconos_bridge.cpp" -o "$work/siconos_bridge" -lsiconos_kernel -lsiconos_numerics
    # same LCS, theta, h; nscircuit writes every step (tstep = h) like the Siconos driver
    local sic nsc_loop
    sic=$("$work/siconos_bridge" $steps 1e-6 0.5 "$work/sic.dat" | awk '/loop_seconds/ { print $2 }')
    nsc_loop=$("$nsc" --tstop 0.5 --save 'v(a,b),i(l1),i(r1)' -o "$work/nsc.dat" "$top/netlists/rectifier.cir" 2>&1 \
               | sed -n 's/.*pivots), \([0-9.]*\) s$/\1/p')
    local nsc_wall
    nsc_wall=$(best_of 3 "$nsc" --quiet --tstop 0.5 --save 'v(a,b),i(l1),i(r1)' -o "$work/nsc.dat" "$top/netlists/rectifier.cir")
    local err
    err=$(compare_tables "$work/nsc.dat" "$work/sic.dat")
    echo "bridge: $steps steps  siconos loop ${sic} s | nscircuit loop ${nsc_loop} s, whole run (parse+step+write) ${nsc_wall} s"
    awk -v s="$sic" -v l="$nsc_loop" -v w="$nsc_wall" -v e="$err" 'BEGIN {
        printf "bridge: speed-up %.0fx (loops), %.0fx (whole run vs loop); max waveform difference %s of range\n", s / l, s / w, e }'
}

bridge
