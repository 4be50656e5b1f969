#!/usr/bin/env bash
# bench/run.sh -- benchmarks of nscircuit against its anchors, same machine, same run
# (issue 4). Run by `make bench` from a build directory, or directly:
#     bash bench/run.sh [BUILD_DIR] [bridge|buck|chain|adaptive|stepcost|exact|cascade|meyer|steady|devices|small|pac|paired ...]
# Each benchmark prints both timings and the ratio; waveforms are compared too.
# Anchors missing from the machine are installed from Debian packages when root.
# Timings are wall-clock seconds, best of BENCH_RUNS (default 3) for the fast
# runs, one run for the slow anchors; "loop" is nscircuit's own time-stepping
# time (its summary line), "whole" the whole process (parse, step, write files).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
build=$(cd "${1:-$PWD}" && pwd)    # absolute: some benchmarks run from their work folder (small)
shift || true
what=${*:-bridge buck chain adaptive stepcost exact cascade meyer steady devices small pac paired}
runs=${BENCH_RUNS:-3}
nsc="$build/nscircuit"
[ -x "$nsc" ] || { echo "bench: $nsc not built (run make first)" >&2; exit 2; }
work=$(mktemp -d /tmp/nsc_bench_XXXXXX)
trap 'rm -rf "$work"' EXIT

need_pkg() { # need_pkg TEST PACKAGE...
    if ! eval "$1" >/dev/null 2>&1; then
        if [ "$(id -u)" = 0 ]; then
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${@:2}" >/dev/null 2>&1 \
                || { apt-get update -qq >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${@:2}" >/dev/null; }
        else
            echo "bench: missing ${*:2} (apt-get install ${*:2})" >&2; return 1
        fi
    fi
}

# BLAS single-threaded for every program: the anchors and nscircuit only call it on
# small matrices, and OpenBLAS's idle threads (when OpenBLAS is the system BLAS)
# otherwise spin on a core for the first 0.1 s of each process.
export OPENBLAS_NUM_THREADS=1

need_pkg "command -v bc" bc || exit 2
need_pkg "test -x /usr/bin/time" time || exit 2

# wall time of one run of a command, seconds
wall() { # wall cmd...
    local s e
    s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N)
    echo "$e - $s" | bc -l
}

# best wall time of N runs
best_of() { # best_of N cmd...
    local n=$1; shift
    local best="" t
    for _ in $(seq "$n"); do
        t=$(wall "$@")
        best=$(awk -v a="$best" -v b="$t" 'BEGIN { if (a == "" || b < a) print b; else print a }')
    done
    echo "$best"
}

# nscircuit's loop seconds from its summary line ("... simulated in ..., 1.234 s"), best of NSC_LOOP_RUNS (1);
# --threads 1: the time loop alone, no output thread formatting rows beside it
nsc_loop() { # nsc_loop args...
    local k
    for k in $(seq "${NSC_LOOP_RUNS:-1}"); do "$nsc" --threads 1 "$@" 2>&1 | sed -n 's/.* simulated in .*, \([0-9.]*\) s$/\1/p'; done \
        | awk '{ if (best == "" || $1 < best) best = $1 } END { print best }'
}

# peak resident memory (MB) of a command
peak_mb() { # peak_mb cmd...
    /usr/bin/time -f "%M" -o "$work/mem" "$@" >/dev/null 2>&1 || true
    awk '{ printf "%.1f", $1 / 1024 }' "$work/mem"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "inf" }'; }

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

# mean and peak-to-peak of column 2 of a table over t in [t0, t1]
mean_pp() { # mean_pp file t0 t1
    awk -v a="$2" -v b="$3" '/^[#A-Za-z]/ { next } $1 >= a && $1 <= b { s += $2; n++;
         if (n == 1 || $2 < lo) lo = $2; if (n == 1 || $2 > hi) hi = $2 }
         END { printf "%.6f %.6f", s / n, hi - lo }' "$1"
}

echo "== nscircuit benchmarks ($(date -u +%Y-%m-%d), $(nproc) cores, $(uname -m), $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo))"

# ---- 1. diode bridge, h = 1 us, 500 000 steps, vs the Siconos 4.4 kernel ----
bridge() {
    local steps=500000
    need_pkg "test -f /usr/include/siconos/kernel/SiconosKernel.hpp" libsiconos-kernel-dev || return 0
    need_pkg "command -v g++" g++ || return 0
    g++ -O2 -std=c++17 -I/usr/include/siconos -I/usr/include/siconos/kernel -I/usr/include/siconos/numerics \
        "$here/siconos_bridge.cpp" -o "$work/siconos_bridge" -lsiconos_kernel -lsiconos_numerics
    # same LCS, theta, h; nscircuit writes every step (tstep = h) like the Siconos driver
    local sic nsc_l nsc_w nsc_b sic_w err args=(--tstop 0.5 --save 'v(a,b),i(l1),i(r1)' "$top/netlists/rectifier.cir")
    # interleaved rounds (this machine's speed drifts): each round runs every program
    # once; each figure is its best round
    local k t
    for k in $(seq "$runs"); do
        t=$(date +%s.%N)
        "$work/siconos_bridge" $steps 1e-6 0.5 "$work/sic.dat" > "$work/sic.out"
        echo "sic_w $(echo "$(date +%s.%N) - $t" | bc -l)"
        awk '/loop_seconds/ { print "sic", $2 }' "$work/sic.out"
        echo "nsc_l $(nsc_loop -o "$work/nsc.dat" "${args[@]}")"
        echo "nsc_w $(wall "$nsc" --quiet -o "$work/nsc.dat" "${args[@]}")"
        echo "nsc_b $(wall "$nsc" --quiet --format rawbin -o "$work/nsc.raw" "${args[@]}")"
    done > "$work/bridge.times"
    best() { awk -v k="$1" '$1 == k { if (b == "" || $2 < b) b = $2 } END { print b }' "$work/bridge.times"; }
    sic=$(best sic); sic_w=$(best sic_w); nsc_l=$(best nsc_l); nsc_w=$(best nsc_w); nsc_b=$(best nsc_b)
    err=$(compare_tables "$work/nsc.dat" "$work/sic.dat")
    echo "bridge: $steps steps, h = 1 us, theta = 0.5, every step written; best of $runs interleaved rounds"
    echo "bridge:   Siconos 4.4 kernel: loop $sic s, whole run $sic_w s (ASCII table, %.12e)"
    echo "bridge:   nscircuit:          loop $nsc_l s, whole run $nsc_w s (.dat, %.12e), $nsc_b s (binary raw)"
    echo "bridge:   speed-up $(ratio "$sic" "$nsc_l")x (loops), $(ratio "$sic_w" "$nsc_w")x (whole runs, ASCII both), $(ratio "$sic_w" "$nsc_b")x (whole runs, nscircuit binary raw)"
    echo "bridge:   max waveform difference $err of range"
}

# ---- 2. buck with its PWM loop, 200 us at h = 50 ps, vs ngspice on the level-3 twin ----
buck() {
    need_pkg "command -v ngspice" ngspice || return 0
    local args=(--step 50p -o "$work/buck.dat" "$top/netlists/buck.cir") nsc_l nsc_w
    nsc_l=$(nsc_loop "${args[@]}")
    nsc_w=$(best_of "$runs" "$nsc" --quiet "${args[@]}")
    read -r nm npp <<<"$(mean_pp "$work/buck.dat" 195e-6 200e-6)"
    echo "buck: 200 us, nscircuit h = 50 ps (4 000 000 steps); ngspice 39 on bench/buck_level3.cir"
    echo "buck:   nscircuit: loop $nsc_l s, whole run $nsc_w s; v(out) over 195-200 us: mean $nm V, ripple $npp V"
    # the same at h = 1 ns (200 000 steps): the accuracy of the comparison below at a twentieth of the steps
    local c_l c_w cm cpp
    c_l=$(nsc_loop --step 1n -o "$work/buck1n.dat" "$top/netlists/buck.cir")
    c_w=$(best_of "$runs" "$nsc" --quiet --step 1n -o "$work/buck1n.dat" "$top/netlists/buck.cir")
    read -r cm cpp <<<"$(mean_pp "$work/buck1n.dat" 195e-6 200e-6)"
    echo "buck:   nscircuit at h = 1 ns: loop $c_l s, whole run $c_w s; v(out) mean $cm V, ripple $cpp V"
    local tmax label cir ng_w
    for tmax in 50p 10n; do
        cir="$work/buck_ng_$tmax.cir"
        sed -e "s/^\\.tran 10n 200u 0 [^ ]* UIC/.tran 10n 200u 0 $tmax UIC/" -e '/^\.end$/d' "$here/buck_level3.cir" > "$cir"
        printf '.control\nrun\nwrdata %s v(out)\n.endc\n.end\n' "$work/ng_buck_$tmax.txt" >> "$cir"
        ng_w=$(wall ngspice -b "$cir")
        read -r gm gpp <<<"$(mean_pp "$work/ng_buck_$tmax.txt" 195e-6 200e-6)"
        [ "$tmax" = 50p ] && label="TMAX = 50 ps (nscircuit's step)" || label="TMAX = 10 ns (its own step control)"
        echo "buck:   ngspice, $label: whole run $ng_w s; v(out) mean $gm V, ripple $gpp V"
        awk -v a="$ng_w" -v b="$nsc_w" -v nm="$nm" -v gm="$gm" -v np="$npp" -v gp="$gpp" -v l="$tmax" 'BEGIN {
            printf "buck:   nscircuit (50 ps) vs ngspice TMAX = %s: speed-up %.1fx (whole runs); v(out) %+.4f %%, ripple %+.1f %%\n",
                   l, a / b, 100 * (nm - gm) / gm, 100 * (np - gp) / gp }'
        if [ "$tmax" = 10n ]; then
            awk -v a="$ng_w" -v b="$c_w" -v nm="$cm" -v gm="$gm" -v np="$cpp" -v gp="$gpp" 'BEGIN {
                printf "buck:   nscircuit (1 ns) vs ngspice TMAX = 10n: speed-up %.1fx (whole runs); v(out) %+.4f %%, ripple %+.1f %%\n",
                       a / b, 100 * (nm - gm) / gm, 100 * (np - gp) / gp }'
        fi
    done
}

# ---- 3. CMOS inverter chains, 100 and 1000 stages, 40 ns at 1 ps, vs ngspice level 1 ----
chain() {
    need_pkg "command -v ngspice" ngspice || return 0
    local N cir nsc_l nsc_w ng_w mem mem1 l100="" w100="" 
    echo "chain: netlists/inverter_chain.sh N, 40 ns at h = 1 ps (40 000 steps); ngspice 39 on the same netlist"
    echo "chain: (LEVEL=1, TMAX = 1 ps; -r writes every node like nscircuit's .save)"
    for N in 100 1000; do
        cir="$work/chain$N.cir"
        sh "$top/netlists/inverter_chain.sh" "$N" | sed 's/^\.tran 5p 20n 0 1p/.tran 5p 40n 0 1p/' > "$cir"
        nsc_l=$(nsc_loop --step 1p -o "$work/chain$N.dat" "$cir")
        nsc_w=$(best_of 1 "$nsc" --quiet --step 1p -o "$work/chain$N.dat" "$cir")
        mem=$(peak_mb "$nsc" --quiet --step 1p -o "$work/chain$N.dat" "$cir")
        mem1=$(peak_mb "$nsc" --quiet --step 1p --save "v(n$N)" -o "$work/chain${N}_1.dat" "$cir")
        ng_w=$(wall ngspice -b -r "$work/chain$N.raw" "$cir")     # batch mode runs .tran when it writes a raw file
        rm -f "$work/chain$N.raw"
        echo "chain $N: nscircuit loop $nsc_l s, whole run $nsc_w s (peak memory $mem MB; $mem1 MB saving one node) | ngspice $ng_w s | speed-up $(ratio "$ng_w" "$nsc_w")x (whole runs)"
        if [ "$N" = 100 ]; then l100=$nsc_l; w100=$nsc_w; fi
        if [ "$N" = 1000 ] && [ -n "$l100" ]; then
            echo "chain: 1000 vs 100 stages: loop $(ratio "$nsc_l" "$l100")x, whole run $(ratio "$nsc_w" "$w100")x (goal <= 11x)"
        fi
    done
}

# ---- 4. adaptive steps: the buck over 1 ms with .tran 10n 1m (no TMAX) vs ngspice's default run ----
adaptive() {
    need_pkg "command -v ngspice" ngspice || return 0
    local cir="$work/buck1m.cir" ref="$work/buck1m_50p.dat" ad="$work/buck1m.dat" ng="$work/buck1m_ng.cir"
    sed -e 's/^\.tran 10n 200u 0 50p UIC/.options stepping=adaptive\n.tran 10n 1m UIC/' "$top/netlists/buck.cir" > "$cir"
    sed -e 's/^\.tran 10n 200u 0 [^ ]* UIC/.tran 10n 1m UIC/' -e '/^\.end$/d' "$here/buck_level3.cir" > "$ng"
    printf '.control\nrun\nwrdata %s v(out)\n.endc\n.end\n' "$work/buck1m_ng.txt" >> "$ng"
    local stats ad_w ng_w fx_w
    stats=$("$nsc" --stats --save 'v(out),i(l1)' -o "$ad" "$cir" 2>&1 | sed -n 1p)   # (head: SIGPIPE under pipefail)
    ad_w=$(best_of "$runs" "$nsc" --quiet --save 'v(out),i(l1)' -o "$ad" "$cir")
    fx_w=$(best_of 1 "$nsc" --quiet --step 50p --save 'v(out),i(l1)' -o "$ref" "$cir")
    ng_w=$(wall ngspice -b "$ng")
    echo "adaptive: buck 1 ms, .tran 10n 1m UIC: ${stats#*: *: }"
    echo "adaptive:   nscircuit adaptive whole run $ad_w s | fixed 50 ps (20 000 000 steps) $fx_w s | ngspice default run $ng_w s"
    echo "adaptive:   speed-up vs ngspice $(ratio "$ng_w" "$ad_w")x, vs the 50 ps run $(ratio "$fx_w" "$ad_w")x (whole runs)"
    "$nsc" compare "$ad" "$ref" --signals 'v(out),i(l1)' --tol 1e-3 | sed -n 's/^\(v(out)\|i(l1)\) /adaptive:   vs 50 ps: &/p'
    # the cost of a step (issue 24 goal: an adaptive step <= 2x a fixed step of the same circuit):
    # loops (--threads 1) over their steps, the fixed one at 50 ps over the first 100 us
    local ad_l ad_n fx_l
    ad_l=$(nsc_loop --save 'v(out)' -o "$work/ad_l.dat" "$cir")
    ad_n=$("$nsc" --threads 1 --save 'v(out)' -o "$work/ad_l.dat" "$cir" 2>&1 | sed -n 's/.* simulated in \([0-9]*\) steps.*/\1/p')
    fx_l=$(nsc_loop --step 50p --tstop 100u --save 'v(out)' -o "$work/fx_l.dat" "$cir")
    awk -v al="$ad_l" -v an="$ad_n" -v fl="$fx_l" 'BEGIN { a = al / an * 1e6; f = fl / 2e6 * 1e6;
        printf "adaptive:   a step: adaptive %.3f us (%d steps in %.3f s), fixed %.3f us (2e6 steps in %.3f s): %.1fx (goal <= 2x)\n",
               a, an, al, f, fl, a / f }'
}

# The cost of a step (issue 24 item 1: an adaptive step <= 2x a fixed step of
# the same circuit), in instructions (callgrind, --threads 1: deterministic and
# robust under load, unlike this shared machine's timings): of the buck
# (netlists/buck.cir) and the seed bridge (netlists/rectifier.cir), fixed,
# adaptive and exact stepping, each the difference of two runs of different
# lengths over the difference of their accepted steps (the parse, the set-up,
# the start-up and the files' headers cancel; rejected steps and located
# events are part of the variable steppers' cost). The variable steps have the
# same ceiling in both runs (TMAX 200 ns on the buck, 100 us on the bridge:
# span/50 would change with the length); one signal saved.
ir_steps() { # ir_steps args... -> "instructions accepted-steps"
    local out
    out=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$nsc" --threads 1 --stats "$@" 2>&1)
    echo "$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' <<<"$out") $(sed -n 's/.* simulated in \([0-9]*\) steps.*/\1/p' <<<"$out")"
}
# per_step label run1-args -- run2-args: instructions per step between the two runs
per_step() {
    local a=() b=() x=0
    for w in "${@:2}"; do
        if [ "$w" = -- ]; then x=1; elif [ $x = 0 ]; then a+=("$w"); else b+=("$w"); fi
    done
    local i1 s1 i2 s2
    read -r i1 s1 <<<"$(ir_steps "${a[@]}")"
    read -r i2 s2 <<<"$(ir_steps "${b[@]}")"
    awk -v l="$1" -v i1="$i1" -v s1="$s1" -v i2="$i2" -v s2="$s2" 'BEGIN {
        if (s2 > s1 && i2 > i1) printf "%s %.0f %d\n", l, (i2 - i1) / (s2 - s1), s2 - s1; else printf "%s 0 0\n", l }'
}
stepcost() {
    need_pkg "command -v valgrind" valgrind || return 0
    local d="$work/sc" c k
    mkdir -p "$d"
    for k in adaptive exact; do
        for c in 20u 40u; do
            sed -e "s/^\.tran 10n 200u 0 50p UIC/.options stepping=$k\n.tran 10n $c 0 200n UIC/" "$top/netlists/buck.cir" > "$d/buck_${k}_$c.cir"
        done
        for c in 5m 10m; do
            sed -e "s/stepping=fixed/stepping=$k/" -e "s/^\.tran .*/.tran 1u $c 0 100u UIC/" "$top/netlists/rectifier.cir" > "$d/bridge_${k}_$c.cir"
        done
    done
    {
        per_step buck_fixed --step 50p --tstop 2u --save 'v(out)' -o "$d/o.dat" "$top/netlists/buck.cir" \
            -- --step 50p --tstop 4u --save 'v(out)' -o "$d/o.dat" "$top/netlists/buck.cir"
        per_step bridge_fixed --tstop 5m --save 'v(a,b)' -o "$d/o.dat" "$top/netlists/rectifier.cir" \
            -- --tstop 10m --save 'v(a,b)' -o "$d/o.dat" "$top/netlists/rectifier.cir"
        for k in adaptive exact; do
            per_step "buck_$k" --save 'v(out)' -o "$d/o.dat" "$d/buck_${k}_20u.cir" -- --save 'v(out)' -o "$d/o.dat" "$d/buck_${k}_40u.cir"
            per_step "bridge_$k" --save 'v(a,b)' -o "$d/o.dat" "$d/bridge_${k}_5m.cir" -- --save 'v(a,b)' -o "$d/o.dat" "$d/bridge_${k}_10m.cir"
        done
    } > "$d/cost"
    echo "stepcost: instructions per accepted step (callgrind, --threads 1; two lengths, their difference)"
    for c in buck bridge; do
        awk -v c="$c" '$1 == c "_fixed" { f = $2; fs = $3 } $1 == c "_adaptive" { a = $2; as = $3 } $1 == c "_exact" { e = $2; es = $3 }
            END { printf "stepcost:   %-6s fixed %.0f (%d steps), adaptive %.0f (%d steps): %.1fx, exact %.0f (%d steps): %.1fx (goal: adaptive <= 2x)\n",
                  c, f, fs, a, as, (f > 0 ? a / f : 0), e, es, (f > 0 ? e / f : 0) }' "$d/cost"
    done
}

# The exact transient (.options stepping=exact, stepper_exact.c): the same 1 ms
# buck against ngspice's default run and the 50 ps fixed-step reference (issue
# 24 goal: >= 30x at <= 1e-3 of range), and the seed bridge (<= 1000 steps at
# <= 1e-3, against 10 ns fixed steps).
exact() {
    need_pkg "command -v ngspice" ngspice || return 0
    local cir="$work/bx.cir" ref="$work/bx_50p.dat" ex="$work/bx.dat" ng="$work/bx_ng.cir"
    sed -e 's/^\.tran 10n 200u 0 50p UIC/.options stepping=exact\n.tran 10n 1m UIC/' "$top/netlists/buck.cir" > "$cir"
    sed -e 's/^\.tran 10n 200u 0 [^ ]* UIC/.tran 10n 1m UIC/' -e '/^\.end$/d' "$here/buck_level3.cir" > "$ng"
    printf '.control\nrun\n.endc\n.end\n' >> "$ng"
    local stats ex_w ng_w
    stats=$("$nsc" --stats --save 'v(out),i(l1)' -o "$ex" "$cir" 2>&1 | awk '/steps: / && !d { print; d = 1 }')
    ex_w=$(best_of "$runs" "$nsc" --quiet --save 'v(out),i(l1)' -o "$ex" "$cir")
    best_of 1 "$nsc" --quiet --step 50p --save 'v(out),i(l1)' -o "$ref" "$cir" >/dev/null
    ng_w=$(best_of "$runs" ngspice -b "$ng")
    echo "exact: buck 1 ms, .tran 10n 1m UIC, .options stepping=exact: ${stats#*: *: }"
    echo "exact:   nscircuit $ex_w s | ngspice default run $ng_w s | speed-up $(ratio "$ng_w" "$ex_w")x (whole runs; goal >= 30x)"
    "$nsc" compare "$ref" "$ex" --signals 'v(out),i(l1)' --tol 1e-3 | sed -n 's/^\(v(out)\|i(l1)\) /exact:   vs 50 ps: &/p'
    # the band variant (issue 24's table): the comparator a +-0.15 V E TABLE ramp, ~70 modes a period
    local bd="$work/bd.cir"
    sed -e 's/(0,0) (0,{vin})/(-0.15,0) (0.15,{vin})/' "$cir" > "$bd"
    stats=$("$nsc" --stats --save 'v(out),i(l1)' -o "$work/bd.dat" "$bd" 2>&1 | awk '/steps: / && !d { print; d = 1 }')
    ex_w=$(best_of "$runs" "$nsc" --quiet --save 'v(out),i(l1)' -o "$work/bd.dat" "$bd")
    best_of 1 "$nsc" --quiet --step 50p --save 'v(out),i(l1)' -o "$work/bd_50p.dat" "$bd" >/dev/null
    echo "exact: the band variant (E TABLE (-0.15,0) (0.15,vin)): ${stats#*: *: }"
    echo "exact:   nscircuit $ex_w s | ngspice default run $ng_w s | speed-up $(ratio "$ng_w" "$ex_w")x (whole runs; goal >= 30x)"
    "$nsc" compare "$work/bd_50p.dat" "$work/bd.dat" --signals 'v(out),i(l1)' --tol 1e-3 | sed -n 's/^\(v(out)\|i(l1)\) /exact:   vs 50 ps: &/p'
    local br="$work/br.cir"
    printf 'seed bridge\n.options stepping=exact\nL1 a b 10m IC=0\nC1 a b 1u IC=10\nD1 a p DI\nD2 b p DI\nD3 0 a DI\nD4 0 b DI\nR1 p 0 1k\n.model DI D(VF=0)\n.tran 1u 5m UIC\n.end\n' > "$br"
    stats=$("$nsc" --stats --save 'v(a,b),i(l1)' -o "$work/br.dat" "$br" 2>&1 | awk '/steps: / && !d { print; d = 1 }')
    "$nsc" --quiet --step 10n --save 'v(a,b),i(l1)' -o "$work/br_ref.dat" "$br"
    echo "exact: seed bridge .tran 1u 5m: ${stats#*: *: } (goal <= 1000 steps at <= 1e-3)"
    "$nsc" compare "$work/br_ref.dat" "$work/br.dat" --tol 1e-3 | sed -n 's/^\(v(a,b)\|i(l1)\) /exact:   vs 10 ns: &/p'
}

# The periodic steady state (issue 14): --steady against the transient long
# enough to settle (the anchor), and the 16-point buck inductor sweep with
# --steady against the same sweep of transients; ripples compared point by point.
# The 15-inverter CMOS cascade at default settings (issue 24 goal: >= 3x ngspice,
# v(out) within 10 % of range): netlists/inverter_chain.sh 15 (600 pairs), its
# input a 4 us clock with 10 ns edges, .tran 20n 30u, no options, in both programs.
cascade() {
    need_pkg "command -v ngspice" ngspice || return 0
    local cir="$work/casc.cir" ng="$work/casc_ng.cir" st nsc_w ng_w
    sh "$top/netlists/inverter_chain.sh" 15 \
        | sed -e 's/^VIN .*/VIN n0 0 PULSE(0 {vdd} 1u 10n 10n 2u 4u)/' -e 's/^\.tran .*/.tran 20n 30u/' > "$cir"
    { sed '/^\.end$/d' "$cir"; printf '.control\nrun\nwrdata %s v(n15) v(n8)\n.endc\n.end\n' "$work/casc_ng.txt"; } > "$ng"
    st=$("$nsc" --stats --save 'v(n15),v(n8)' -o "$work/casc.dat" "$cir" 2>&1 | sed -n 1p)
    nsc_w=$(best_of "$runs" "$nsc" --quiet --save 'v(n15),v(n8)' -o "$work/casc.dat" "$cir")
    ng_w=$(best_of "$runs" ngspice -b "$ng")
    echo "cascade: 15 inverters (600 pairs; 300 before the MOS fit followed the gate drives), .tran 20n 30u: ${st#*: *: }"
    echo "cascade:   nscircuit $nsc_w s | ngspice $ng_w s | speed-up $(ratio "$ng_w" "$nsc_w")x (whole runs; goal >= 3x)"
    "$nsc" compare "$work/casc.dat" "$work/casc_ng.txt" --signals 'v(n15),v(n8)' --tol 0.1 | sed -n 's/^\(v(n15)\|v(n8)\) /cascade:   vs ngspice: &/p'
    # with .options chgtol: the MOS segments' kinks taken inside the steps (stepper_adapt.c kink_ratio),
    # the pairs held at the theta point after the hand-over (stepper.c kink_opts)
    sed 's/^\.tran /.options chgtol=1e-14\n.tran /' "$cir" > "$work/casc_q.cir"
    st=$("$nsc" --stats --save 'v(n15),v(n8)' -o "$work/casc_q.dat" "$work/casc_q.cir" 2>&1 | sed -n 1p)
    nsc_w=$(best_of "$runs" "$nsc" --quiet --save 'v(n15),v(n8)' -o "$work/casc_q.dat" "$work/casc_q.cir")
    echo "cascade: .options chgtol=1e-14: ${st#*: *: }"
    echo "cascade:   nscircuit $nsc_w s | ngspice $ng_w s | speed-up $(ratio "$ng_w" "$nsc_w")x (whole runs)"
    "$nsc" compare "$work/casc_q.dat" "$work/casc.dat" --signals 'v(n15),v(n8)' --tol 0.1 | sed -n 's/^\(v(n15)\|v(n8)\) /cascade:   vs the default: &/p'
}

# Meyer's gate charge on the smooth-element Newton iteration (issue 27 item 1,
# issue 24's cascade goal "once the device-fidelity issue adds gate charge"):
# tests/data/meyer/chain.cir (15 level-1 inverters with TOX, 7.5 ns) and the
# cascade above with TOX={tox} on its cards, in both programs (same netlists),
# with the Newton iterations a step from --stats and the delays against
# ngspice's. Instructions: valgrind --tool=callgrind on the same commands.
meyer() {
    need_pkg "command -v ngspice" ngspice || return 0
    local ch="$top/tests/data/meyer/chain.cir" cir="$work/casc_tox.cir" ng="$work/casc_tox_ng.cir" st nsc_w ng_w
    st=$("$nsc" --stats --threads 1 -o "$work/mch.dat" "$ch" 2>&1)
    nsc_w=$(best_of "$runs" "$nsc" --quiet --threads 1 -o "$work/mch.dat" "$ch")
    ng_w=$(best_of "$runs" ngspice -b "$ch")
    echo "meyer: chain.cir: $(echo "$st" | grep 'simulated in' | sed 's/^[^:]*: [^:]*: //')"
    echo "meyer:   $(echo "$st" | grep 'Newton' | sed 's/^nscircuit: //')"
    echo "meyer:   tpd $(echo "$st" | sed -n 's/^tpd = //p') s, tpd2 $(echo "$st" | sed -n 's/^tpd2 = //p') s; ngspice: $(ngspice -b "$ch" 2>/dev/null | awk '/^tpd/ {printf "%s %s ", $1, $3}')"
    echo "meyer:   nscircuit $nsc_w s | ngspice $ng_w s | speed-up $(ratio "$ng_w" "$nsc_w")x (whole runs)"
    sh "$top/netlists/inverter_chain.sh" 15 | sed -e 's/^VIN .*/VIN n0 0 PULSE(0 {vdd} 1u 10n 10n 2u 4u)/' \
        -e 's/^\.tran .*/.tran 20n 30u/' -e 's/^\(\.model [NP]M [NP]MOS(LEVEL=1\)/\1 TOX={tox}/' > "$cir"
    { sed '/^\.end$/d' "$cir"; printf '.control\nrun\nwrdata %s v(n15) v(n8)\n.endc\n.end\n' "$work/casc_tox_ng.txt"; } > "$ng"
    st=$("$nsc" --stats --threads 1 --save 'v(n15),v(n8)' -o "$work/ctox.dat" "$cir" 2>&1)
    nsc_w=$(best_of "$runs" "$nsc" --quiet --threads 1 --save 'v(n15),v(n8)' -o "$work/ctox.dat" "$cir")
    ng_w=$(best_of "$runs" ngspice -b "$ng")
    echo "meyer: cascade with TOX: $(echo "$st" | grep 'simulated in' | sed 's/^[^:]*: [^:]*: //')"
    echo "meyer:   $(echo "$st" | grep 'Newton' | sed 's/^nscircuit: //')"
    echo "meyer:   nscircuit $nsc_w s | ngspice $ng_w s | speed-up $(ratio "$ng_w" "$nsc_w")x (whole runs; issue 24 goal >= 3x)"
    "$nsc" compare "$work/ctox.dat" "$work/casc_tox_ng.txt" --signals 'v(n15),v(n8)' --tol 0.03 | sed -n 's/^\(v(n15)\|v(n8)\) /meyer:   vs ngspice: &/p'
}

steady() {
    local n net tr_w st_w
    for net in cuk:100m flyback:50m boost:30m; do
        n=${net%%:*}
        st_w=$(best_of "$runs" "$nsc" --quiet --steady -o "$work/${n}_st.dat" "$top/netlists/$n.cir")
        tr_w=$(best_of 1 "$nsc" --quiet --tstop "${net#*:}" -o "$work/${n}_tr.dat" "$top/netlists/$n.cir")
        echo "steady: $n: --steady $st_w s, transient to ${net#*:} $tr_w s: $(ratio "$tr_w" "$st_w")x"
    done
    local sw="$top/netlists/buck_sweep.cir"
    st_w=$(best_of "$runs" "$nsc" sweep "$sw" --steady --param lval=5u:20u:16 -j 2 --quiet --no-plot -o "$work/bsw_st")
    tr_w=$(best_of 1 "$nsc" sweep "$sw" --param lval=5u:20u:16 -j 2 --quiet --no-plot -o "$work/bsw_tr")
    echo "steady: buck_sweep 16 points -j 2: --steady $st_w s, transients (200 us, fixed 50 ps) $tr_w s: $(ratio "$tr_w" "$st_w")x"
    paste <(grep -v '^#' "$work/bsw_st.sweep.dat") <(grep -v '^#' "$work/bsw_tr.sweep.dat") | awk '
        { d = ($2 - $13) / $13; if (d < 0) d = -d; if (d > w) w = d }
        END { printf "steady:   ripple, steady vs transient, worst of 16 points: %.2e relative\n", w }'
}

# The device models of issue 13 against ngspice on the same cards (tests/data:
# each X.cir and its twin X_ng.cir, which adds only the .control block writing
# X_ng.txt): whole processes, best of $runs, in a copy of the tree (the twins
# write into their directory; models_buck includes ../../../models).
devices() {
    need_pkg "command -v ngspice" ngspice || return 0
    local t="$work/tree" c d b ng_w ns_w
    mkdir -p "$t/tests/data" && cp -r "$top/models" "$t/"
    local sig
    for c in "models_buck/buck v(out),i(l1),v(ctl)" "bsrc/pwm_buck v(out),i(l1),v(ctl)" \
             "vdmos/buck_vdmos v(out),i(l1)" "diode_tt/recovery v(d),i(v1)"; do
        sig=${c#* }; c=${c%% *}; d=${c%/*}; b=${c#*/}
        cp -r "$top/tests/data/$d" "$t/tests/data/"
        ng_w=$(cd "$t/tests/data/$d" && best_of "$runs" ngspice -b "${b}_ng.cir")
        ns_w=$(cd "$t/tests/data/$d" && best_of "$runs" "$nsc" --quiet -o ours.dat "$b.cir")
        echo "devices: $c: ngspice $ng_w s, nscircuit $ns_w s: $(ratio "$ng_w" "$ns_w")x (whole runs)"
        (cd "$t/tests/data/$d" && "$nsc" compare ours.dat "${b}_ng.txt" --signals "$sig" --tol 0.03 2>&1 || true) \
            | sed -n 's/^\(PASS\|FAIL\)/devices:   &/p'
    done
}

# .dc and .ac at the operating point (issue 29) against ngspice's: a ladder of
# 100 sections (1 kOhm in series, a diode and 10 kOhm to ground at each node),
# .dc of its source over 401 points (-10..10 V) and .ac of 50 points; whole
# processes, best of $runs. nscircuit's diodes are PWL (VF=0.7 RON=10),
# ngspice's the Shockley card of the same knee (IS=1e-14): not the same
# curve, the same work (every point an operating point).
small() {
    need_pkg "command -v ngspice" ngspice || return 0
    local d="$work/small" k
    mkdir -p "$d"
    {
        echo "diode ladder"; echo "V1 n0 0 DC 5 AC 1"
        for k in $(seq 1 100); do
            echo "R$k n$((k - 1)) n$k 1k"; echo "D$k n$k 0 DX"; echo "RG$k n$k 0 10k"
        done
    } > "$d/body.cir"
    { cat "$d/body.cir"; echo ".model DX D(VF=0.7 RON=10)"; echo ".dc V1 -10 10 0.05"; echo ".end"; } > "$d/dc.cir"
    { cat "$d/body.cir"; echo ".model DX D(IS=1e-14)"; echo ".dc V1 -10 10 0.05"; echo ".end"; } > "$d/dc_ng.cir"
    { cat "$d/body.cir"; echo ".model DX D(VF=0.7 RON=10)"; echo ".ac dec 10 1 100k"; echo ".end"; } > "$d/ac.cir"
    { cat "$d/body.cir"; echo ".model DX D(IS=1e-14)"; echo ".ac dec 10 1 100k"; echo ".end"; } > "$d/ac_ng.cir"
    local ng ns
    for k in dc ac; do
        ng=$(cd "$d" && best_of "$runs" ngspice -b -r "${k}_ng.raw" "${k}_ng.cir")
        ns=$(cd "$d" && best_of "$runs" "$nsc" --quiet --format raw -o "$k.raw" "$k.cir")
        echo "small: .$k of a 100-section diode ladder: ngspice $ng s, nscircuit $ns s: $(ratio "$ng" "$ns")x (whole runs)"
    done
}

# Periodic AC (issue 29): a 50-point Bode plot, whole process including the
# steady state, against the transient FRA of the same points run by nscircuit
# itself (bench/pac_fra.sh, FRA_PM=0: one transient per frequency, 3 ms to
# settle and >= 1 ms of whole modulation periods, as a bench user runs it).
# The open-loop buck of tests/data/pac/buck_open.cir at .ac dec 19 100 45k
# (51 points), and buck_loop.cir's loop gain (50 points, no FRA: timing only).
pac() {
    command -v python3 >/dev/null || { echo "pac: needs python3" >&2; return 0; }
    local d="$work/pac" pw lw fw
    mkdir -p "$d"
    sed 's/^\.ac dec 10 100 45k$/.ac dec 19 100 45k/' "$top/tests/data/pac/buck_open.cir" > "$d/buck50.cir"
    pw=$(best_of "$runs" "$nsc" --quiet -o "$d/b.dat" "$d/buck50.cir")
    lw=$(best_of "$runs" "$nsc" --quiet -o "$d/l.dat" "$top/netlists/buck_loop.cir")
    local fl
    fl=$(grep -v '^#' "$d/b.ac.dat" | awk '{ printf "%s%.17g", (NR > 1 ? " " : ""), $1 }')
    env FRA_PM=0 FRA_NOPAC=1 FRA_FREQS="$fl" FRA_OUT="$d/fra.txt" sh "$here/pac_fra.sh" "$build" "$d/buck50.cir" > "$d/fra.log"
    fw=$(sed -n 's/.*of which the transients (whole nscircuit processes) \([0-9.]*\) s$/\1/p' "$d/fra.log")
    echo "pac: open-loop buck, $(grep -vc '^#' "$d/b.ac.dat") points: periodic AC $pw s (whole run), transient FRA $fw s (its nscircuit runs): $(ratio "$fw" "$pw")x (goals <= 1 s, >= 50x)"
    paste <(grep -v '^#' "$d/b.ac.dat") "$d/fra.txt" | awk '
        { d = $2 - $(NF - 1); if (d < 0) d = -d; if (d > wd) wd = d; p = $3 - $NF; p -= 360 * int(p / 360); if (p > 180) p -= 360;
          if (p < -180) p += 360; if (p < 0) p = -p; if (p > wp) wp = p }
        END { printf "pac:   periodic AC vs FRA (one run each), worst of the points: %.1e dB, %.1e deg\n", wd, wp }'
    echo "pac: buck_loop.cir loop gain, 50 points: periodic AC $lw s (whole run, 600 kHz steady state from the reference ramp)"
}

# This build against a previous one (issue 24: a regression shows the day it
# lands): BENCH_BASE (a git revision of the source tree, default HEAD~1) is
# built in a temporary directory, then both binaries run the same cases in
# interleaved rounds (BENCH_RUNS of them; this machine's speed drifts, so each
# figure is its best round): the fixed-step cases of `chain`, `buck` and
# `bridge` -- the 1000-stage chain at 1 ps (40 ns), the buck at 50 ps (200 us),
# the seed bridge at 1 us over 0.5 s (500 000 steps, every step written, as
# `bridge` runs it) -- and the adaptive buck (.tran 10n 1m). Whole processes,
# one signal saved (the output is not what is compared; the bridge writes its
# three columns); "ratio" is this build's time over the base's, REGRESSION
# above 1.15.
paired() {
    local rev=${BENCH_BASE:-HEAD~1} base="$work/base" k c b
    if ! git -C "$top" rev-parse -q --verify "$rev^{commit}" >/dev/null 2>&1; then
        echo "paired: no git revision '$rev' in $top (BENCH_BASE=<rev>)" >&2; return 0
    fi
    mkdir -p "$base" && git -C "$top" archive "$rev" | tar -x -C "$base"
    if ! (cd "$base" && autoreconf -fi && ./configure -q --disable-shared && make -j2 nscircuit) \
        > "$work/base_build.log" 2>&1; then
        echo "paired: building $rev failed:" >&2; tail -5 "$work/base_build.log" >&2; return 0
    fi
    sh "$top/netlists/inverter_chain.sh" 1000 | sed 's/^\.tran 5p 20n 0 1p/.tran 5p 40n 0 1p/' > "$work/pchain.cir"
    sed -e 's/^\.tran 10n 200u 0 50p UIC/.tran 10n 1m UIC/' "$top/netlists/buck.cir" > "$work/pbuck1m.cir"
    local cases=("chain1000_1ps|--step 1p --save v(n1000) $work/pchain.cir"
                 "buck_50ps|--step 50p --save v(out) $top/netlists/buck.cir"
                 "bridge_1us|--tstop 0.5 --save v(a,b),i(l1),i(r1) $top/netlists/rectifier.cir"
                 "buck_default_1ms|--save v(out) $work/pbuck1m.cir")
    for k in $(seq "$runs"); do
        for c in "${cases[@]}"; do
            for b in base this; do
                local bin=$nsc
                [ $b = base ] && bin="$base/nscircuit"
                # shellcheck disable=SC2086
                echo "${c%%|*} $b $(wall "$bin" --quiet -o "$work/paired.dat" ${c#*|})"
            done
        done
    done > "$work/paired.times"
    echo "paired: this build ($(git -C "$top" describe --always --dirty 2>/dev/null)) vs $rev" \
         "($(git -C "$top" rev-parse --short "$rev")), whole runs, best of $runs interleaved rounds"
    for c in "${cases[@]}"; do
        awk -v c="${c%%|*}" '$1 == c { if (!($2 in b) || $3 < b[$2]) b[$2] = $3 }
            END { r = b["this"] / b["base"]; printf "paired:   %-18s base %.3f s, this %.3f s, ratio %.2f%s\n",
                  c, b["base"], b["this"], r, (r > 1.15 ? "  REGRESSION" : "") }' "$work/paired.times"
    done
}

# KLU against dense LAPACK LU on small systems (issue 24: is a dense path worth it?).
lu() {
    need_pkg "command -v gcc" gcc || return 0
    gcc -O2 -I/usr/include/suitesparse "$here/klu_vs_lapack.c" -o "$work/klu_vs_lapack" -lklu -llapack -lblas \
        || { echo "lu: klu_vs_lapack.c did not build" >&2; return 0; }
    "$work/klu_vs_lapack" | sed 's/^/lu: /'
}

for b in $what; do
    case $b in
    bridge|buck|chain|adaptive|stepcost|exact|cascade|meyer|steady|devices|small|pac|paired|lu) "$b" ;;
    *) echo "bench: unknown benchmark '$b' (bridge, buck, chain, adaptive, stepcost, exact, cascade, meyer, steady, devices, small, pac, paired, lu)" >&2; exit 2 ;;
    esac
done
