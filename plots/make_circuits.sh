#!/bin/sh
# make_circuits.sh [nscircuit] -- regenerates the circuit pictures plots/<name>.png:
# runs nscircuit on netlists/<name>.cir (and ngspice on the same netlist or its
# twin in netlists/spice/, when installed, for the dashed overlays), then
# gnuplot plots/src/<name>.gp. Usage, from the top of a built clone:
#     sh plots/make_circuits.sh ./nscircuit
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
nsc=${1:-$top/nscircuit}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ngspice NETLIST OUT VECTORS...: the netlist without .save/.print/.control, a
# .control block writing VECTORS to OUT (one time column)
ng() {
    f=$1; out=$2; shift 2
    if ! command -v ngspice > /dev/null 2>&1; then : > "$out"; return; fi
    awk 'BEGIN { skip = 0 }
         { l = tolower($0) }
         l ~ /^\.control/ { skip = 1 }
         skip == 0 && l !~ /^\.(save|print|end)/ || l ~ /^\.ends/ { print }
         l ~ /^\.endc/ { skip = 0 }' "$f" > "$tmp/ng.cir"
    printf '.control\nset wr_singlescale\nrun\nwrdata %s %s\n.endc\n.end\n' "$out" "$*" >> "$tmp/ng.cir"
    (cd "$tmp" && ngspice -b ng.cir > ng.log 2>&1) || true
}

run() {   # run NAME SAVE [options]: nscircuit on netlists/NAME.cir into $tmp/NAME.dat
    name=$1; save=$2; shift 2
    "$nsc" --quiet "$@" --save "$save" -o "$tmp/$name.dat" "$top/netlists/$name.cir" 2> /dev/null
}

plot() {
    gnuplot -e "dir='$tmp'; out='$top/plots/$1.png'" "$top/plots/src/$1.gp"
    echo "wrote plots/$1.png"
}

run rectifier_capfilter 'v(a,b),v(p),i(l1),i(r1)'
ng "$top/netlists/spice/rectifier_capfilter.cir" "$tmp/rectifier_capfilter.ng" 'v(p)'
plot rectifier_capfilter

run prc 'v(in),v(a),i(lr),i(lf),v(out,n)'
ng "$top/netlists/spice/prc.cir" "$tmp/prc.ng" 'v(out,n)'
plot prc

# the buck's 4e6 steps of 50 ps written on its 10 ns print grid (.options interp:
# 20 001 rows; gnuplot took minutes over the 4e6 rows of every step)
sed 's/^\.end$/.options interp\n.end/' "$top/netlists/buck.cir" > "$tmp/buck.cir"
"$nsc" --quiet --save 'v(out),v(ref),i(l1),v(ramp),v(ea),v(g),v(sw)' -o "$tmp/buck.dat" "$tmp/buck.cir" 2> /dev/null
ng "$top/netlists/spice/buck.cir" "$tmp/buck.ng" 'v(out)'
plot buck

run inverter_chain 'v(n0),v(n1),v(n2),v(n3),v(n10)'
ng "$top/netlists/inverter_chain.cir" "$tmp/inverter_chain.ng" 'v(n10)'
plot inverter_chain

for c in boost cuk flyback; do
    case $c in
        boost) run boost 'v(out),i(l1),v(sw),i(d1)'; ng "$top/netlists/boost.cir" "$tmp/boost.ng" 'v(out) i(l1)' ;;
        cuk) run cuk 'v(out),i(l1),i(l2),v(a),v(b)'; ng "$top/netlists/cuk.cir" "$tmp/cuk.ng" 'v(out) i(l1)' ;;
        flyback) run flyback 'v(out),v(d),v(s),i(lp),i(ls)'; ng "$top/netlists/flyback.cir" "$tmp/flyback.ng" 'v(out) i(lp)' ;;
    esac
    plot $c
done
