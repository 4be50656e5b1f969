#!/bin/sh
# doc_commands.sh SRCDIR BUILDDIR -- runs every command that README.md,
# netlists/README.md and the man page's EXAMPLES show, as written, in order, in a
# scratch copy of the tree (netlists, models, plots, bench, tests/data; the
# build's ./nscircuit): a command a user copies from the documentation must run.
#
# Taken: the lines of indented blocks that start (after "$ ") with ./nscircuit,
# nscircuit, sh, bash, parallel or ngspice. The man page's commands are those of
# an installed program: they run with the build directory first on PATH. Left
# out, said here: `make check` and ./tests/nsc_tests (the suite that runs this
# script), and the README's first command (install and build on a fresh
# machine: CI's .ci/run is that command).
# Exit 0 when every command exits 0; else each failure is printed.
set -u
src=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nsc_docs.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/tree/tests"
cp -R "$src/netlists" "$src/models" "$src/plots" "$src/bench" "$tmp/tree/" || exit 2
cp -R "$src/tests/data" "$tmp/tree/tests/" || exit 2
ln -s "$build/nscircuit" "$tmp/tree/nscircuit"

# commands FILE: the shown commands of a markdown file, one a line
md_commands() {
    awk '/^    / {
             l = $0; sub(/^ +/, "", l); sub(/^\$ /, "", l)
             if (l ~ /^(\.\/nscircuit|nscircuit|sh|bash|parallel|ngspice) / && l !~ /\[options\]/) print l
         }' "$1"
}
# the man page: .nf/.fi lines of the EXAMPLES section, roff escapes undone
man_commands() {
    awk '/^\.SH EXAMPLES/ { ex = 1; next } /^\.SH/ { ex = 0 }
         ex && /^\.nf/ { nf = 1; next } ex && /^\.fi/ { nf = 0; next }
         ex && nf && !/^\./ { gsub(/\\-/, "-"); print }' "$1"
}

fail=0 n=0
run() {   # run PATHPREFIX COMMAND
    n=$((n + 1))
    if ! (cd "$tmp/tree" && PATH="$1$PATH" timeout 300 sh -c "$2") > "$tmp/out" 2>&1; then
        echo "doc command failed: $2"
        tail -n 5 "$tmp/out" | sed 's/^/    /'
        fail=$((fail + 1))
    fi
}
md_commands "$src/README.md" > "$tmp/readme.txt"
md_commands "$src/netlists/README.md" > "$tmp/netlists.txt"
man_commands "$src/nscircuit.1" > "$tmp/man.txt"
while IFS= read -r c; do run "" "$c"; done < "$tmp/readme.txt"
while IFS= read -r c; do run "" "$c"; done < "$tmp/netlists.txt"
while IFS= read -r c; do run "$build:" "$c"; done < "$tmp/man.txt"
echo "doc commands: $n run, $fail failed"
[ "$fail" = 0 ] && [ "$n" -gt 10 ]
