#!/bin/bash
# cmp_builds.sh OLD_BIN NEW_BIN [options...] -- proof that a refactoring changes
# nothing: runs both nscircuit binaries with the options on every netlists/*.cir,
# tests/corpus/**/*.cir and tests/bad/*.cir and compares, byte for byte, stdout,
# stderr, the exit status and every file written (the -o output and anything the
# netlist writes beside itself: each run gets a fresh copy of the netlist's
# directory, at the same path for both binaries). Wall times in the summaries
# are masked. Prints the differing netlists and "compared N netlists, D differ";
# exit status 1 when any differ.
#   e.g. tests/cmp_builds.sh /tmp/old/nscircuit ./nscircuit --stats --solver lemke
# (--steady sweeps with -j > 1 warm-start points from whichever finished first:
# their last digits may differ between two runs of one binary.)
set -u
old=$1 new=$2; shift 2
src=$(cd "$(dirname "$0")/.." && pwd)
W=$(mktemp -d "${TMPDIR:-/tmp}/cmp_builds.XXXXXX") || exit 2
trap 'rm -rf "$W"' EXIT
n=0 bad=0
while IFS= read -r f; do
    for v in old new; do
        bin=$old; [ $v = new ] && bin=$new
        mkdir "$W/cur" "$W/cur/o" && cp -r "$(dirname "$f")" "$W/cur/d"
        (cd "$W/cur/d" && timeout 600 "$bin" "$@" -o "$W/cur/o/out.dat" "$(basename "$f")" \
            >"$W/cur/stdout" 2>"$W/cur/stderr"; echo $? >"$W/cur/rc")
        sed -i -E -e '/simulated in|located, [0-9.]+ s$/s/, [0-9.e+-]+ s$/, T s/' \
            -e '/points, .* failed|per point|reuse across points/s/[0-9.]+ (m?s\b|%)/T \1/g' "$W/cur/stderr"
        mv "$W/cur" "$W/$v"
    done
    n=$((n + 1))
    if ! diff -r "$W/old" "$W/new" >/dev/null; then
        bad=$((bad + 1)); echo "DIFF: ${f#$src/}"; diff -r "$W/old" "$W/new" | head -5
    fi
    rm -rf "$W/old" "$W/new"
done < <( (ls "$src"/netlists/*.cir; find "$src/tests/corpus" -name '*.cir'; ls "$src"/tests/bad/*.cir) | sort)
echo "compared $n netlists ($*), $bad differ"
[ $bad -eq 0 ]
