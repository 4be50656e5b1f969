#!/bin/sh
# build.sh [DIR] -- build the libFuzzer harnesses of the netlist front end into
# DIR (default: ./fuzz-build): fuzz_netlist (read + elaborate) and
# fuzz_assemble (the same, then the LCS assembler). Needs clang and its
# libFuzzer runtime (Debian: apt-get install clang libclang-rt-14-dev).
# Not part of `make check`; see tests/fuzz/README.md.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-fuzz-build}
mkdir -p "$out"
out=$(cd "$out" && pwd)
CC=${CC:-clang}
cd "$out"
# the library, instrumented: ASan + UBSan (--enable-sanitizers) and fuzzer
# coverage; NL_MAXELEMENTS and NL_EXPR_MAXINLINE small so that exponential
# subckt and .func expansions are cut short quickly instead of running into the
# fuzzer's memory limit.
if [ ! -f Makefile ]; then
    "$top/configure" -q --enable-sanitizers --enable-static --disable-shared CC="$CC" \
        CFLAGS="-g -O1 -fsanitize=fuzzer-no-link" CPPFLAGS="-DNL_MAXELEMENTS=200000 -DNL_EXPR_MAXINLINE=100000"
fi
make -s src/netlist/nl_parse.h >/dev/null && make -s libnscircuit.la >/dev/null
libs=$(sed -n 's/^KLU_LIBS = //p; s/^LAPACK_LIBS = //p; s/^BLAS_LIBS = //p' Makefile | tr '\n' ' ')
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
for h in netlist assemble; do
    def=""
    [ "$h" = assemble ] && def="-DFUZZ_ASSEMBLE"
    $CC -g -O1 $san -fsanitize=fuzzer $def -I"$top/src" -I"$top/tests" -I"$out" -I"$out/src" -I"$out/src/netlist" \
        "$top/tests/fuzz/fuzz_netlist.c" .libs/libnscircuit.a $libs -lm -o "fuzz_$h"
done
echo "built $out/fuzz_netlist $out/fuzz_assemble"
