#!/bin/sh
# pac_fra.sh BUILDDIR -- the periodic AC of tests/data/pac/buck_open.cir (the
# open-loop PWM buck) against a transient frequency-response analysis run by
# nscircuit itself: for each f, the control gets 0.4 + 5 mV sin(2 pi f t), a
# transient of 3 ms settles (the LC's decay e^-16) and the Fourier coefficient
# at f of v(out) over whole modulation periods (>= 1 ms; the rows every 10 ns,
# trapezoidal) divided by the 5 mV is the measured transfer. Prints both, their
# difference and the times. Needs python3. Not part of make check.
set -eu
b=$(cd "${1:-.}" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pac_fra.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
python3 - "$b/nscircuit" "$src/tests/data/pac/buck_open.cir" "$tmp" <<'PY'
import subprocess, math, cmath, sys, os, time
nsc, cir, tmp = sys.argv[1:4]
base = open(cir).read()
fs = [1000, 4000, 10000, 25000, 40000]
a = 0.005
t0 = time.time()
for f in fs:
    net = base.replace(".ac dec 10 100 45k", ".ac lin 1 %g %g" % (f, f))
    open(os.path.join(tmp, "p%d.cir" % f), "w").write(net)
    subprocess.run([nsc, "--quiet", "-o", "p%d.dat" % f, "p%d.cir" % f], check=True, cwd=tmp)
tp = time.time() - t0
t0 = time.time()
for f in fs:
    per, settle = 1.0 / f, 3e-3
    t1 = settle + max(1, round(1e-3 / per)) * per
    net = base.replace("Vc ctl 0 DC 0.4 AC 1", "Vc ctl 0 SIN(0.4 %g %g)" % (a, f))
    net = "\n".join(l for l in net.split("\n") if not l.startswith((".print", ".pss", ".ac")))
    net = net.replace(".end", ".tran 10n %g %g 10n\n.save v(out)\n.end" % (t1, settle))
    open(os.path.join(tmp, "fra.cir"), "w").write(net)
    subprocess.run([nsc, "--quiet", "-o", "fra.dat", "fra.cir"], check=True, cwd=tmp)
    T, V = [], []
    for l in open(os.path.join(tmp, "fra.dat")):
        if not l.startswith("#"):
            x = l.split(); T.append(float(x[0])); V.append(float(x[1]))
    acc = sum(0.5 * (T[i+1] - T[i]) * (V[i] * cmath.exp(-2j*math.pi*f*T[i]) + V[i+1] * cmath.exp(-2j*math.pi*f*T[i+1]))
              for i in range(len(T) - 1))
    H = 2 * acc / (T[-1] - T[0]) / (a * cmath.exp(-0.5j * math.pi))   # a sin(wt) = Re(a e^{j(wt - pi/2)})
    for l in open(os.path.join(tmp, "p%d.ac.dat" % f)):
        if not l.startswith("#"):
            db, ph = map(float, l.split()[1:3])
    fdb, fph = 20 * math.log10(abs(H)), math.degrees(cmath.phase(H))
    print("%7.0f Hz  periodic AC %9.4f dB %9.3f deg   FRA %9.4f dB %9.3f deg   diff %.1e dB %.1e deg"
          % (f, db, ph, fdb, fph, db - fdb, (ph - fph + 180) % 360 - 180))
print("periodic AC: %.2f s for %d runs of one frequency; FRA: %.2f s" % (tp, len(fs), time.time() - t0))
PY
