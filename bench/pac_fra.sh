#!/bin/sh
# pac_fra.sh BUILDDIR [NETLIST] -- the periodic AC of NETLIST (default
# tests/data/pac/buck_open.cir, the open-loop PWM buck) against a transient
# frequency-response analysis run by nscircuit itself. NETLIST has a control
# source "Vc ctl 0 DC V0 AC 1", one ".ac" card and prints v(out) first. For
# each f, the control gets V0 + A sin(2 pi f t), a transient of SETTLE s lets
# the start decay, and the Fourier coefficient at f of v(out) over whole
# modulation periods (>= 1 ms and >= 2 periods; the rows every 10 ns, trapezoidal) divided by A
# is the measured transfer. The window is weighted by Hann's 1 - cos, which
# keeps a sinusoid of whole periods exact and the switching's sidebands (at
# fs - f) from leaking in when the window is not whole switching periods.
# With FRA_PM=1 (default) a run with -A is subtracted too (half the
# difference), which cancels what the start leaves in the window; FRA_PM=0 is
# one transient per frequency, as a bench user runs it. Prints both, their
# difference and the times. Environment: FRA_FREQS (default "1000 4000 10000
# 25000 40000"), FRA_SETTLE (default 3e-3: the buck's LC decays e^-16),
# FRA_AMP (default 0.005), FRA_PM, FRA_OUT (a file: "f dB deg" of the FRA per
# line), FRA_NOPAC=1 (the FRA alone). Needs python3. Not part of make check.
set -eu
b=$(cd "${1:-.}" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
cir=$(cd "$(dirname "${2:-$src/tests/data/pac/buck_open.cir}")" && pwd)/$(basename "${2:-buck_open.cir}")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pac_fra.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
python3 - "$b/nscircuit" "$cir" "$tmp" <<'PY'
import subprocess, math, cmath, sys, os, time, re
nsc, cir, tmp = sys.argv[1:4]
base = open(cir).read()
fs = [float(x) for x in os.environ.get("FRA_FREQS", "1000 4000 10000 25000 40000").split()]
settle = float(os.environ.get("FRA_SETTLE", "3e-3"))
a = float(os.environ.get("FRA_AMP", "0.005"))
vc = re.search(r"^Vc ctl 0 DC (\S+) AC 1$", base, re.M)
v0 = vc.group(1)
pm = os.environ.get("FRA_PM", "1") != "0"
out = open(os.environ["FRA_OUT"], "w") if os.environ.get("FRA_OUT") else None
t0 = time.time()
for f in ([] if os.environ.get("FRA_NOPAC") else fs):
    net = re.sub(r"^\.ac .*$", ".ac lin 1 %r %r" % (f, f), base, flags=re.M)
    open(os.path.join(tmp, "p%d.cir" % f), "w").write(net)
    subprocess.run([nsc, "--quiet", "-o", "p%d.dat" % f, "p%d.cir" % f], check=True, cwd=tmp)
tp = time.time() - t0
t0 = time.time()
tsim = 0
for f in fs:
    per = 1.0 / f
    t1 = settle + max(2, round(1e-3 / per)) * per   # Hann: DC and 2f vanish from >= 2 periods
    H = 0
    for sg in ((1, -1) if pm else (1,)):          # +A, -A: half the difference
        net = base.replace(vc.group(0), "Vc ctl 0 SIN(%s %r %r)" % (v0, sg * a, f))
        net = "\n".join(l for l in net.split("\n") if not l.lower().startswith((".print", ".pss", ".ac", ".meas")))
        net = re.sub(r"^\.end$", ".tran 10n %r %r 10n\n.save v(out)\n.end" % (t1, settle), net, flags=re.M)
        open(os.path.join(tmp, "fra.cir"), "w").write(net)
        ts = time.time()
        subprocess.run([nsc, "--quiet", "-o", "fra.dat", "fra.cir"], check=True, cwd=tmp)
        tsim += time.time() - ts
        T, V = [], []
        for l in open(os.path.join(tmp, "fra.dat")):
            if not l.startswith("#"):
                x = l.split(); T.append(float(x[0])); V.append(float(x[1]))
        tw = T[-1] - T[0]
        w = [1 - math.cos(2 * math.pi * (t - T[0]) / tw) for t in T]   # Hann: the switching sidebands do not leak
        y = [w[i] * V[i] * cmath.exp(-2j*math.pi*f*T[i]) for i in range(len(T))]
        acc = sum(0.5 * (T[i+1] - T[i]) * (y[i] + y[i+1]) for i in range(len(T) - 1))
        ws = sum(0.5 * (T[i+1] - T[i]) * (w[i] + w[i+1]) for i in range(len(T) - 1))
        # a sin(wt) = Re(a e^{j(wt - pi/2)}): the coefficient 2 acc / ws over that phasor
        H += sg * 2 * acc / ws / (2 if pm else 1) / (a * cmath.exp(-0.5j * math.pi))
    db = ph = float("nan")
    if not os.environ.get("FRA_NOPAC"):
        for l in open(os.path.join(tmp, "p%d.ac.dat" % f)):
            if not l.startswith("#"):
                db, ph = map(float, l.split()[1:3])
    fdb, fph = 20 * math.log10(abs(H)), math.degrees(cmath.phase(H))
    if out:
        out.write("%.10g %.6f %.4f\n" % (f, fdb, fph))
    print("%7.0f Hz  periodic AC %9.4f dB %9.3f deg   FRA %9.4f dB %9.3f deg   diff %.1e dB %.1e deg"
          % (f, db, ph, fdb, fph, db - fdb, (ph - fph + 180) % 360 - 180))
print("periodic AC: %.2f s for %d runs of one frequency; FRA: %.2f s, of which the transients (whole nscircuit "
      "processes) %.2f s" % (tp, len(fs), time.time() - t0, tsim))
PY
