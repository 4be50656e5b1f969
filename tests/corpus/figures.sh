#!/bin/sh
# figures.sh -- run the corpus by hand and print each comparison in full
# (the figures of tests/corpus/README.md); make check runs the same through
# tests/e2e/test_corpus.c.
#
#   sh tests/corpus/figures.sh BUILD/nscircuit [NETLIST...]
set -u
prog=$(cd "$(dirname "$1")" && pwd)/$(basename "$1"); shift
cd "$(dirname "$0")"
top=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
grep -v '^[[:space:]]*#' MANIFEST | while read -r net outcome tol signals; do
    [ -n "$net" ] || continue
    if [ $# -gt 0 ]; then
        want=0
        for a in "$@"; do [ "$a" = "$net" ] && want=1; done
        [ $want = 1 ] || continue
    fi
    dir=$(dirname "$net"); name=$(basename "$net" .cir)
    echo "=== $net ($outcome)"
    if [ "$outcome" != refused ]; then
        (cd "$tmp" && "$prog" --quiet -o ours.dat "$top/$net" >/dev/null 2>&1) || { echo "    nscircuit failed"; continue; }
        "$prog" compare "$tmp/ours.dat" "$dir/${name}_ng.txt" --signals "$signals" --tol "$tol" | sed 's/^/    /'
    else
        (cd "$top/$dir" && "$prog" -o "$tmp/ours.dat" "$name.cir" 2>&1; echo "    exit status $?") | sed 's/^/    /'
    fi
done
