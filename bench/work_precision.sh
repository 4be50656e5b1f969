#!/usr/bin/env bash
# bench/work_precision.sh -- the work-precision picture of issue 11: RMS error
# (fraction of the signal's range) against whole-process run time, each program
# against its own converged run.
#   bridge  the seed diode bridge, .tran 1u 5m UIC, signal v(a,b):
#           nscircuit adaptive .options nostepsizelimit reltol=1e-2..1e-6 and the
#           default run (tmax = tstep = 1 us); fixed --step 20u..200n; ngspice
#           (ideal-like diodes IS=1e-14 N=0.01) default and reltol 1e-4..1e-6;
#           references: nscircuit --step 10n, ngspice reltol=1e-7 tmax=10n
#   buck    netlists/buck.cir over 1 ms, .tran 10n 1m UIC, signal i(l1):
#           nscircuit adaptive default (reltol 1e-3, 1e-4, 1e-5) and with
#           nostepsizelimit; fixed --step 2n..100p; ngspice bench/buck_level3.cir
#           with its own step control (tmax 10n) at reltol 7.5e-4 (the card's),
#           1e-4, 1e-5; references: nscircuit --step 50p, ngspice reltol 1e-6
#           tmax 1n
#   cascade the 15-inverter CMOS cascade of bench/run.sh's `cascade` (level 1,
#           a 4 us clock with 10 ns edges, .tran 20n 30u), signal v(n15):
#           references nscircuit --step 5p, ngspice reltol=1e-6 tmax=1n
#   all     nscircuit's default transient (the exact one since session 14) at
#           reltol 1e-2..1e-5 (RELTOL sets its rows' density; its error is the
#           flow's and the events'), the adaptive theta-scheme
#           (stepping=adaptive), fixed steps; ngspice's default run (no
#           options) and tightened ones
# Usage: bash bench/work_precision.sh [BUILD_DIR] [OUT_PREFIX] [bridge|buck|cascade]
# writes OUT_PREFIX.dat (default plots/work_precision_CASE) and OUT_PREFIX.png.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
build=${1:-$PWD}
case=${3:-bridge}
prefix=${2:-$top/plots/work_precision_$case}
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
if [ "$case" = bridge ]; then
    sig='v(a,b)'
    nsc_net() { # nsc_net FILE OPTIONS
        printf 'diode bridge fed by an LC tank\n%s\n.model DI D(VF=0)\n.tran 1u 5m UIC\n.save v(a,b)\n.options %s\n.end\n' \
            "$body" "$2" > "$1"
    }
    ng_net() { # ng_net FILE OPTIONS TMAX
        printf 'diode bridge fed by an LC tank\n%s\n.model DI D(IS=1e-14 N=0.01)\n.tran 1u 5m 0 %s UIC\n.options %s\n.end\n' \
            "$body" "$3" "$2" > "$1"
    }
    ad_opts=("reltol=1e-2" "reltol=1e-3" "reltol=1e-4" "reltol=1e-5" "reltol=1e-6")
    fixed=(20u 10u 5u 2u 1u 500n 200n)
    href=10n
    ng_opts=("reltol=1e-3" "reltol=1e-4" "reltol=1e-5" "reltol=1e-6")
    ng_tmax=1u ng_ref="reltol=1e-7" ng_reftmax=10n
    ng_default() { printf 'diode bridge fed by an LC tank\n%s\n.model DI D(IS=1e-14 N=0.01)\n.tran 1u 5m UIC\n.end\n' "$body" > "$1"; }
elif [ "$case" = buck ]; then
    sig='i(l1)'
    nsc_net() {
        sed -e "s/^\.tran .*/.tran 10n 1m UIC\n.options $2/" -e 's/^\.save .*/.save v(out) i(l1)/' \
            "$top/netlists/buck.cir" > "$1"
    }
    ng_net() {
        sed -e "s/^\.tran .*/.tran 10n 1m 0 $3 UIC/" -e "s/^\.options .*/.options method=trap itl4=100 $2/" \
            "$here/buck_level3.cir" > "$1"
    }
    ad_opts=("reltol=1e-3" "reltol=1e-4" "reltol=1e-5")
    fixed=(2n 1n 500p 200p 100p)
    href=50p
    ng_opts=("reltol=7.5e-4" "reltol=1e-4" "reltol=1e-5")
    ng_tmax=10n ng_ref="reltol=1e-6" ng_reftmax=1n
    ng_default() { sed -e 's/^\.tran .*/.tran 10n 1m UIC/' "$here/buck_level3.cir" > "$1"; }
elif [ "$case" = cascade ]; then
    sig='v(n15)'
    casc() { sh "$top/netlists/inverter_chain.sh" 15 | sed -e 's/^VIN .*/VIN n0 0 PULSE(0 {vdd} 1u 10n 10n 2u 4u)/' "$@"; }
    nsc_net() { casc -e "s/^\.tran .*/.tran 20n 30u\n.save v(n15)\n.options $2/" > "$1"; }
    ng_net() { casc -e "s/^\.tran .*/.tran 20n 30u 0 $3\n.options $2/" > "$1"; }
    ad_opts=("reltol=1e-3" "reltol=1e-4")
    fixed=(100p 50p 20p)
    href=5p
    ng_opts=("reltol=1e-4" "reltol=1e-5")
    ng_tmax=20n ng_ref="reltol=1e-6" ng_reftmax=1n
    ng_default() { casc -e 's/^\.tran .*/.tran 20n 30u/' > "$1"; }
    ref_tran='.tran 0.1n 30u'      # the references' rows every 0.1 ns: a 20 ns grid would ramp the ~1 ns edges
else
    echo "work_precision: unknown case '$case' (bridge, buck, cascade)" >&2; exit 2
fi
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
# RMS error (fraction of range) of $sig in $1 against $2
rmserr() {
    "$nsc" compare "$1" "$2" --signals "$sig" --tol 100 2>/dev/null \
        | awk -v s="$sig" '$1 == s { n = 0; for (i = 2; i <= NF; i++) if ($i == "%") { n++; if (n == 2) print $(i - 1) / 100 } }'
}
steps() { "$nsc" --stats -o "$work/s.dat" "$1" "${@:2}" 2>&1 | sed -n 's/.*steps: \([0-9]*\) accepted.*/\1/p' | head -n 1; }

nsc_net "$work/ref.cir" "reltol=1e-3"
if [ -n "${ref_tran:-}" ]; then sed -i "s/^\.tran .*/$ref_tran/" "$work/ref.cir"; fi   # (and the fixed runs)
"$nsc" --quiet --step "$href" -o "$work/ref.dat" "$work/ref.cir"
ng_net "$work/ngref.cir" "$ng_ref" "$ng_reftmax"
ngspice -b -r "$work/ngref.raw" "$work/ngref.cir" >/dev/null 2>&1

out="$prefix.dat"
{
    echo "# work-precision, $case ($sig): series seconds rms_error_of_range steps setting"
    echo "# made by bench/work_precision.sh ($(date -u +%Y-%m-%d), $(nproc) cores, best of $runs whole runs)"
} > "$out"
for o in "${ad_opts[@]}"; do
    nsc_net "$work/a.cir" "stepping=adaptive $o"
    t=$(best "$nsc" --quiet -o "$work/a.dat" "$work/a.cir")
    echo "nsc_adaptive $t $(rmserr "$work/a.dat" "$work/ref.dat") $(steps "$work/a.cir") ${o// /,}" >> "$out"
done
for o in "reltol=1e-2" "reltol=1e-3" "reltol=1e-4" "reltol=1e-5"; do
    nsc_net "$work/x.cir" "$o"
    t=$(best "$nsc" --quiet -o "$work/x.dat" "$work/x.cir")
    echo "nsc_default $t $(rmserr "$work/x.dat" "$work/ref.dat") $(steps "$work/x.cir") ${o// /,}" >> "$out"
done
for h in "${fixed[@]}"; do
    t=$(best "$nsc" --quiet --step "$h" -o "$work/f.dat" "$work/ref.cir")
    echo "nsc_fixed $t $(rmserr "$work/f.dat" "$work/ref.dat") $(steps "$work/ref.cir" --step "$h") h=$h" >> "$out"
done
for o in "${ng_opts[@]}"; do
    ng_net "$work/n.cir" "$o" "$ng_tmax"
    t=$(best ngspice -b -r "$work/n.raw" "$work/n.cir")
    echo "ngspice $t $(rmserr "$work/n.raw" "$work/ngref.raw") - $o,tmax=$ng_tmax" >> "$out"
done
ng_default "$work/n.cir"
t=$(best ngspice -b -r "$work/n.raw" "$work/n.cir")
echo "ngspice_default $t $(rmserr "$work/n.raw" "$work/ngref.raw") - no_options" >> "$out"
cat "$out"
gnuplot <<EOF
set terminal pngcairo size 1000,600 noenhanced
set output '$prefix.png'
set logscale xy
set xlabel 'whole run (s)'
set ylabel 'RMS error of $sig, fraction of its range'
set title '$case: error against each program own converged run (bench/work_precision.sh)'
set key outside right
set grid
plot '$out' using (strcol(1) eq 'nsc_adaptive' ? \$2 : 1/0):3 with linespoints title 'nscircuit adaptive', \
     '' using (strcol(1) eq 'nsc_adaptive' ? \$2 : 1/0):3:(strcol(5)) with labels font ',7' offset 0,1 notitle, \
     '' using (strcol(1) eq 'nsc_default' ? \$2 : 1/0):3 with linespoints title 'nscircuit default (exact)', \
     '' using (strcol(1) eq 'nsc_default' ? \$2 : 1/0):3:(strcol(5)) with labels font ',7' offset 0,-1 notitle, \
     '' using (strcol(1) eq 'nsc_fixed' ? \$2 : 1/0):3 with linespoints title 'nscircuit fixed step', \
     '' using (strcol(1) eq 'nsc_fixed' ? \$2 : 1/0):3:(strcol(5)) with labels font ',7' offset 0,-1 notitle, \
     '' using (strcol(1) eq 'ngspice' ? \$2 : 1/0):3 with linespoints title 'ngspice (own step control)', \
     '' using (strcol(1) eq 'ngspice' ? \$2 : 1/0):3:(strcol(5)) with labels font ',7' offset 0,1 notitle, \
     '' using (strcol(1) eq 'ngspice_default' ? \$2 : 1/0):3 with points pt 7 ps 2 title 'ngspice default run'
EOF
echo "work_precision: wrote $out and $prefix.png"
