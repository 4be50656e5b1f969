#!/usr/bin/env bash
# bench/work_precision.sh -- the work-precision picture of issue 11: RMS error of
# v(a,b) (of its range) against whole-process run time, for the seed diode bridge
# (.tran 1u 5m UIC), each program against its own converged run:
#   nscircuit adaptive   .options nostepsizelimit reltol=1e-2 .. 1e-6 (default
#                        tolerances are the reltol=1e-3 point), and the default
#                        run (tmax = tstep = 1 us, as ngspice)
#   nscircuit fixed      --step 20u .. 200n
#   ngspice              default tolerances, then reltol=1e-4 .. 1e-6 (tight),
#                        ideal-like diodes IS=1e-14 N=0.01
# References: nscircuit --step 10n; ngspice reltol=1e-7 tmax=10n.
# Usage: bash bench/work_precision.sh [BUILD_DIR] [OUT_PREFIX]
# writes OUT_PREFIX.dat (default plots/work_precision) and OUT_PREFIX.png.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
build=${1:-$PWD}
prefix=${2:-$top/plots/work_precision}
nsc="$build/nscircuit"
[ -x "$nsc" ] || { echo "work_precision: $nsc not built" >&2; exit 2; }
if [ -x "$build/.libs/nscircuit" ] && head -c 2 "$nsc" | grep -q '#!'; then   # libtool's wrapper script:
    export LD_LIBRARY_PATH="$build/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"  # time the program, not
    nsc="$build/.libs/nscircuit"                                               # ~70 ms of shell
fi
command -v ngspice >/dev/null || { echo "work_precision: ngspice missing (apt-get install ngspice)" >&2; exit 2; }
command -v gnuplot >/dev/null || { echo "work_precision: gnuplot missing (apt-get install gnuplot-nox)" >&2; exit 2; }
export OPENBLAS_NUM_THREADS=1
work=$(mktemp -d /tmp/nsc_wp_XXXXXX)
trap 'rm -rf "$work"' EXIT
runs=${BENCH_RUNS:-3}

body='L1 a b 10m IC=0
C1 a b 1u IC=10
D1 a p DI
D2 b p DI
D3 0 a DI
D4 0 b DI
R1 p 0 1k'
nsc_net() { # nsc_net FILE OPTIONS-LINE
    printf 'diode bridge fed by an LC tank\n%s\n.model DI D(VF=0)\n.tran 1u 5m UIC\n.save v(a,b)\n%s\n.end\n' \
        "$body" "$2" > "$1"
}
ng_net() { # ng_net FILE OPTIONS-LINE TMAX
    printf 'diode bridge fed by an LC tank\n%s\n.model DI D(IS=1e-14 N=0.01)\n.tran 1u 5m 0 %s UIC\n%s\n.end\n' \
        "$body" "$3" "$2" > "$1"
}
# best whole-process wall time of $runs runs
best() {
    local b="" s e t
    for _ in $(seq "$runs"); do
        s=$(date +%s%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s%N)
        t=$(( (e - s) / 1000 ))
        if [ -z "$b" ] || [ "$t" -lt "$b" ]; then b=$t; fi
    done
    awk -v u="$b" 'BEGIN { printf "%.6f", u * 1e-6 }'
}
# RMS error (fraction of range) of v(a,b) in $1 against $2
rmserr() {
    "$nsc" compare "$1" "$2" --signals 'v(a,b)' --tol 100 2>/dev/null \
        | awk '$1 == "v(a,b)" { n = 0; for (i = 2; i <= NF; i++) if ($i == "%") { n++; if (n == 2) print $(i - 1) / 100 } }'
}
steps() { "$nsc" --stats -o "$work/s.dat" "$1" "${@:2}" 2>&1 | sed -n 's/.*steps: \([0-9]*\) accepted.*/\1/p' | head -n 1; }

nsc_net "$work/ref.cir" ""
"$nsc" --quiet --step 10n -o "$work/ref.dat" "$work/ref.cir"
ng_net "$work/ngref.cir" ".options reltol=1e-7" 10n
ngspice -b -r "$work/ngref.raw" "$work/ngref.cir" >/dev/null 2>&1

out="$prefix.dat"
{
    echo "# work-precision, diode bridge .tran 1u 5m UIC: series seconds rms_error_of_range steps setting"
    echo "# made by bench/work_precision.sh ($(date -u +%Y-%m-%d), $(nproc) cores, best of $runs whole runs)"
} > "$out"
for rt in 1e-2 1e-3 1e-4 1e-5 1e-6; do
    nsc_net "$work/a.cir" ".options nostepsizelimit reltol=$rt"
    t=$(best "$nsc" --quiet -o "$work/a.dat" "$work/a.cir")
    echo "nsc_adaptive $t $(rmserr "$work/a.dat" "$work/ref.dat") $(steps "$work/a.cir") reltol=$rt" >> "$out"
done
nsc_net "$work/d.cir" ""
t=$(best "$nsc" --quiet -o "$work/d.dat" "$work/d.cir")
echo "nsc_default $t $(rmserr "$work/d.dat" "$work/ref.dat") $(steps "$work/d.cir") tmax=tstep" >> "$out"
for h in 20u 10u 5u 2u 1u 500n 200n; do
    t=$(best "$nsc" --quiet --step "$h" -o "$work/f.dat" "$work/ref.cir")
    echo "nsc_fixed $t $(rmserr "$work/f.dat" "$work/ref.dat") $(steps "$work/ref.cir" --step "$h") h=$h" >> "$out"
done
for rt in 1e-3 1e-4 1e-5 1e-6; do
    ng_net "$work/n.cir" ".options reltol=$rt" 1u
    t=$(best ngspice -b -r "$work/n.raw" "$work/n.cir")
    echo "ngspice $t $(rmserr "$work/n.raw" "$work/ngref.raw") - reltol=$rt" >> "$out"
done
cat "$out"
gnuplot <<EOF
set terminal pngcairo size 900,600 noenhanced
set output '$prefix.png'
set logscale xy
set xlabel 'whole run (s)'
set ylabel 'RMS error of v(a,b), fraction of its range'
set title 'diode bridge, 5 ms: error against each program own converged run'
set key outside right
set grid
plot '$out' using (strcol(1) eq 'nsc_adaptive' ? \$2 : 1/0):3 with linespoints title 'nscircuit adaptive (reltol 1e-2..1e-6)', \
     '' using (strcol(1) eq 'nsc_default' ? \$2 : 1/0):3 with points pt 7 ps 2 title 'nscircuit default (tmax = tstep)', \
     '' using (strcol(1) eq 'nsc_fixed' ? \$2 : 1/0):3 with linespoints title 'nscircuit fixed step (20u..200n)', \
     '' using (strcol(1) eq 'ngspice' ? \$2 : 1/0):3 with linespoints title 'ngspice (default, reltol 1e-4..1e-6)'
EOF
echo "work_precision: wrote $out and $prefix.png"
