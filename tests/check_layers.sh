#!/bin/bash
# check_layers.sh [--graph] [--symbols BUILDDIR] [--headers "CC CPPFLAGS"] [SRCDIR]
# -- the stage folders of SRCDIR (default: this tree's src/) are a layering:
# a file of a stage includes (#include "...") only headers of its own stage or
# of earlier stages in ORDER, and the headers include no cycle. Exit 1 naming
# every file:line and include that breaks it, 0 when none does.
#   --graph             also print the stage graph: "from -> to  N includes"
#   --symbols BUILDDIR  also check the objects of a build (nm): a file may use
#                       only the functions and data that its own or an earlier
#                       stage defines (an include is not the only way up)
#   --headers "CC ..."  also compile every header of SRCDIR alone (CC and the
#                       preprocessor flags as one word list, -I for SRCDIR's
#                       generated headers included)
#   --cycles            with --symbols: print the cycles of calls between
#                       files (a report, not a failure: files of one stage
#                       may call each other)
# An include is resolved as the compiler does with -I src: beside the file,
# else under SRCDIR; one found nowhere (a generated header) belongs to the
# stage its path names, or to the includer's stage; <...> and config.h are
# outside the layering. NSC_LAYERS (a word list) replaces the order.
set -u
ORDER=${NSC_LAYERS:-"base circuit lcs devices netlist solve output analysis cli"}
graph=0 symbols= headers= cycles=0
while [ $# -gt 0 ]; do
    case $1 in
    --graph) graph=1; shift ;;
    --cycles) cycles=1; shift ;;
    --symbols) symbols=$2; shift 2 ;;
    --headers) headers=$2; shift 2 ;;
    -*) echo "check_layers.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
    esac
done
src=${1:-$(cd "$(dirname "$0")/../src" && pwd)}
[ -d "$src" ] || { echo "check_layers.sh: no directory $src" >&2; exit 2; }
src=$(cd "$src" && pwd)
W=$(mktemp -d "${TMPDIR:-/tmp}/check_layers.XXXXXX") || exit 2
trap 'rm -rf "$W"' EXIT

rank() {    # rank of stage $1 in ORDER, 0 when it is none
    local k=1 s
    for s in $ORDER; do [ "$s" = "$1" ] && { echo $k; return; }; k=$((k + 1)); done
    echo 0
}
declare -A R
for s in $ORDER; do R[$s]=$(rank "$s"); done

# every quoted include as "file line target" (target relative to src, '?' prefix: not found)
(cd "$src" && find . -name '*.[chyl]' | sed 's#^\./##' | sort) > "$W/files"
(cd "$src" && xargs grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' < "$W/files") |
    awk -v files="$W/files" 'BEGIN { while ((getline f < files) > 0) have[f] = 1 }
        { split($0, p, ":"); f = p[1]; line = p[2]; inc = $0; sub(/^[^"]*"/, "", inc); sub(/".*/, "", inc)
          if (inc == "config.h") next
          d = f; sub(/\/[^\/]*$/, "", d)
          if ((d "/" inc) in have) t = d "/" inc; else if (inc in have) t = inc
          else if (inc ~ /\//) t = "?" inc; else t = "?" d "/" inc
          print f, line, t }' > "$W/inc"

bad=0
while read -r f line t; do
    s1=${f%%/*}; tt=${t#\?}; s2=${tt%%/*}
    if [ "${R[$s1]:-0}" = 0 ]; then
        echo "src/$f: stage '$s1' is not in the layering ($ORDER)"; bad=1; continue
    fi
    if [ "${R[$s2]:-0}" = 0 ]; then
        echo "src/$f:$line: includes \"$tt\" of '$s2', which is not a stage of the layering"; bad=1
    elif [ "${R[$s2]}" -gt "${R[$s1]}" ]; then
        echo "src/$f:$line: includes \"$tt\": $s1 may include only earlier stages ($ORDER), not $s2"; bad=1
    fi
done < "$W/inc"

# cycles among headers: tsort names the files of each cycle it meets
awk '$3 !~ /^\?/ && $1 ~ /\.h$/ {print $1, $3}' "$W/inc" | sort -u > "$W/hh"
loops() {   # tsort's loops on stdin as lines "  a b c", each loop's files sorted
    awk '/input contains a loop/ { g++; next } { sub(/^tsort: /, ""); print g, $0 }' |
        sort -k1,1n -k2 | awk '$1 != g { if (NR > 1) print line; g = $1; line = " " } { line = line " " $2 }
                               END { if (NR) print line }'
}
if ! tsort "$W/hh" > /dev/null 2> "$W/tsort"; then
    echo "headers include each other in a cycle:"; loops < "$W/tsort"
    bad=1
fi

if [ $graph = 1 ]; then
    echo "stage graph (from -> to: includes), ORDER: $ORDER"
    awk '{ s1 = $1; sub(/\/.*/, "", s1); t = $3; sub(/^\?/, "", t); s2 = t; sub(/\/.*/, "", s2);
           if (s1 != s2) print s1 " -> " s2 }' "$W/inc" | sort | uniq -c | awk '{print "  " $2, $3, $4 ": " $1}'
fi

if [ -n "$symbols" ]; then
    # each object's defined and undefined global symbols; a use is upward when
    # the stage defining the symbol comes after the user's
    (cd "$symbols" && find src -name '*.o' | sort) | while IFS= read -r o; do
        n=${o%.o}; n=${n/\/.libs/}; n=${n/nscircuit-/}; n=${n#src/}
        [ -f "$src/$n.c" ] || [ -f "$src/$n.y" ] || [ -f "$src/$n.l" ] || continue   # a stale object
        echo "$o $n"
    done > "$W/objs"
    # one nm for all (-A: "object:value type name", "object: U name"); the object -> its source
    if [ -s "$W/objs" ]; then
        (cd "$symbols" && awk '{print $1}' "$W/objs" | xargs nm -A -g 2>/dev/null) |
            awk -v objs="$W/objs" 'BEGIN { while ((getline l < objs) > 0) { split(l, a, " "); src[a[1]] = a[2] } }
                { o = $1; sub(/:.*/, "", o); if (!(o in src)) next
                  if ($(NF - 1) == "U") print "U", src[o], $NF
                  else if ($(NF - 1) ~ /^[TDBRCGS]$/) print "D", src[o], $NF }' > "$W/sym"
    fi
    [ -s "$W/sym" ] || { echo "check_layers.sh: no objects under $symbols/src" >&2; exit 2; }
    awk -v order="$ORDER" 'BEGIN { n = split(order, a, " "); for (k = 1; k <= n; k++) r[a[k]] = k }
        $1 == "D" { def[$3] = $2 }
        $1 == "U" { use[++nu] = $2 " " $3 }
        END { for (k = 1; k <= nu; k++) { split(use[k], u, " "); if (!(u[2] in def)) continue;
                  d = def[u[2]]; s1 = u[1]; sub(/\/.*/, "", s1); s2 = d; sub(/\/.*/, "", s2);
                  if (r[s2] > r[s1]) print "src/" u[1] ".c: uses " u[2] " of src/" d ".c: " s1 " may use only earlier stages, not " s2 } }' \
        "$W/sym" | sort -u > "$W/symbad"
    [ -s "$W/symbad" ] && { cat "$W/symbad"; bad=1; }
    if [ $cycles = 1 ]; then
        # file -> file edges of calls; tsort names the files of each cycle it meets
        awk '$1 == "D" { def[$3] = $2 } $1 == "U" { use[++nu] = $2 " " $3 }
             END { for (k = 1; k <= nu; k++) { split(use[k], u, " ");
                   if ((u[2] in def) && def[u[2]] != u[1]) print u[1], def[u[2]] } }' "$W/sym" | sort -u > "$W/ff"
        echo "cycles of calls between files (tsort's, each once):"
        tsort "$W/ff" 2>&1 > /dev/null | loops
    fi
fi

if [ -n "$headers" ]; then
    # every header compiles alone: it includes what it uses
    (cd "$src" && find . -name '*.h' | sed 's#^\./##' | sort) | while IFS= read -r h; do
        # shellcheck disable=SC2086
        printf '#include "%s"\n' "$h" | $headers -I"$src" -std=c11 -fsyntax-only -x c - 2> "$W/err" \
            || { echo "src/$h does not compile alone:"; head -3 "$W/err"; }
    done > "$W/hdr"
    [ -s "$W/hdr" ] && { cat "$W/hdr"; bad=1; }
fi

exit $bad
