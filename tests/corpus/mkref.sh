#!/bin/sh
# mkref.sh -- make the ngspice references of the corpus (tests/corpus/README.md).
#
#   cd tests/corpus && sh mkref.sh [NETLIST...]      (default: every `match` line of MANIFEST)
#
# For each `match` entry DIR/NAME.cir of MANIFEST, writes DIR/NAME_ng.txt with
# ngspice 39 in batch mode, from inside DIR (relative .include paths resolve):
#   - DIR/NAME_ng.cir exists (a twin translated from a dialect ngspice does not
#     read, or that needs a column renamed): `ngspice -b NAME_ng.cir`; the twin's
#     own .control block writes NAME_ng.txt;
#   - NAME.cir has its own .control block (ngspice idiom): `ngspice -b NAME.cir`,
#     which writes NAME_ng.txt itself;
#   - otherwise the netlist runs unchanged: the wrapper .NAME_twin.cir is NAME.cir
#     without its .end line, plus
#         .control / set wr_singlescale / set wr_vecnames / run /
#         wrdata NAME_ng.txt SIGNALS / quit / .endc / .end
#     SIGNALS being the manifest's signal list (commas -> spaces); the wrapper is
#     removed afterwards.
# Then, when DIR/NAME_ng.sed exists, it is applied to NAME_ng.txt (sed -i -f): it
# renames columns ngspice cannot name as nscircuit does (a `let` vector for an
# Xyce {expression} or P(x) column).
# ngspice's console output goes to DIR/.NAME_ng.log (removed when it succeeds).
set -eu
cd "$(dirname "$0")"
command -v ngspice >/dev/null || { echo "mkref.sh: ngspice not found" >&2; exit 1; }
grep -v '^[[:space:]]*#' MANIFEST | while read -r net outcome tol signals rest; do
    [ -n "$net" ] && { [ "$outcome" = match ] || [ "$outcome" = xfail ]; } || continue
    if [ $# -gt 0 ]; then
        want=0
        for a in "$@"; do [ "$a" = "$net" ] && want=1; done
        [ $want = 1 ] || continue
    fi
    dir=$(dirname "$net"); name=$(basename "$net" .cir)
    (
        cd "$dir"
        rm -f "${name}_ng.txt"
        if [ -f "${name}_ng.cir" ]; then
            ngspice -b "${name}_ng.cir" >".${name}_ng.log" 2>&1 || true
        elif grep -qi '^[[:space:]]*\.control' "$name.cir"; then
            ngspice -b "$name.cir" >".${name}_ng.log" 2>&1 || true
        else
            twin=".${name}_twin.cir"
            grep -vi '^[[:space:]]*\.end[[:space:]]*$' "$name.cir" >"$twin"
            printf '.control\nset wr_singlescale\nset wr_vecnames\nrun\nwrdata %s_ng.txt %s\nquit\n.endc\n.end\n' \
                "$name" "$(echo "$signals" | tr ',' ' ')" >>"$twin"
            ngspice -b "$twin" >".${name}_ng.log" 2>&1 || true
            rm -f "$twin"
        fi
        if [ -s "${name}_ng.txt" ] && [ -f "${name}_ng.sed" ]; then
            sed -i -f "${name}_ng.sed" "${name}_ng.txt"
        fi
        if [ -s "${name}_ng.txt" ]; then
            rm -f ".${name}_ng.log"
            echo "mkref.sh: $dir/${name}_ng.txt: $(($(wc -l <"${name}_ng.txt") - 1)) rows"
        else
            echo "mkref.sh: $net: ngspice wrote no ${name}_ng.txt (see $dir/.${name}_ng.log)" >&2
            exit 1
        fi
    )
done
