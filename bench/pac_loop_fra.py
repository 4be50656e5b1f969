#!/usr/bin/env python3
# pac_loop_fra.py NSCIRCUIT NETLIST F1 [F2 ...] -- a transient FRA of a loop
# gain by Middlebrook injection, run by nscircuit itself, the reference of
# test pac/buck_loop_gain_is_the_transient_fra. NETLIST holds
# "Vinj out fb 0 AC 1" (netlists/buck_loop.cir); for each f, Vinj becomes
# SIN(0 +-AMP f), .pss/.ac/.print/.meas are dropped, a transient settles for
# SETTLE s (default 1e-3) and runs whole periods of f (>= 2, >= 0.2 ms) with
# rows every 10 ns; the Fourier coefficients at f of v(out) and v(fb) (Hann
# window 1 - cos, trapezoidal) of the +AMP run minus the -AMP run give
# v(out)/v(fb) = -T. Prints "f dB deg" per line. Environment: AMP (default
# 0.005 V), SETTLE. The recorded file tests/data/pac/buck_loop_fra.txt is
#   AMP=0.005 bench/pac_loop_fra.py ./nscircuit netlists/buck_loop.cir 1000 2000 5000 20000
#   AMP=0.0005 bench/pac_loop_fra.py ./nscircuit netlists/buck_loop.cir 50000 112000 200000
# (5 mV where |T| is large: v(out)'s response A/|T| stays above the
# transient's own error; 0.5 mV near and above the crossover, where the
# FRA's distortion grows as AMP^2: 0.114, 0.018, 0.0046, 0.0012 dB off the
# periodic AC at 112 kHz for 5, 2, 1, 0.5 mV). Not part of make check.
import subprocess, math, cmath, sys, os, re, tempfile, shutil
nsc, cir = os.path.abspath(sys.argv[1]), sys.argv[2]
tmp = tempfile.mkdtemp()
fs = [float(x) for x in sys.argv[3:]]
base = open(cir).read()
settle = float(os.environ.get("SETTLE", "1e-3")); a = float(os.environ.get("AMP", "0.005"))
def coef(T, V, f):
    tw = T[-1] - T[0]
    w = [1 - math.cos(2 * math.pi * (t - T[0]) / tw) for t in T]
    y = [w[i] * V[i] * cmath.exp(-2j * math.pi * f * T[i]) for i in range(len(T))]
    return sum(0.5 * (T[i+1] - T[i]) * (y[i] + y[i+1]) for i in range(len(T) - 1))
for f in fs:
    per = 1 / f
    t1 = settle + max(2, round(2e-4 / per)) * per
    co = cf = 0
    for sg in (1, -1):
        net = base.replace("Vinj out fb 0 AC 1", "Vinj out fb SIN(0 %r %r)" % (sg * a, f))
        net = "\n".join(l for l in net.split("\n") if not l.lower().startswith((".print", ".pss", ".ac", ".meas")))
        net = re.sub(r"^\.end$", ".tran 10n %r %r 10n\n.save v(out) v(fb)\n.end" % (t1, settle), net, flags=re.M)
        open(os.path.join(tmp, "fra.cir"), "w").write(net)
        subprocess.run([nsc, "--quiet", "-o", "fra.dat", "fra.cir"], check=True, cwd=tmp)
        T, O, B = [], [], []
        for l in open(os.path.join(tmp, "fra.dat")):
            if not l.startswith("#"):
                x = l.split(); T.append(float(x[0])); O.append(float(x[1])); B.append(float(x[2]))
        co += sg * coef(T, O, f); cf += sg * coef(T, B, f)
    h = co / cf
    print("%.10g %.6f %.4f" % (f, 20 * math.log10(abs(h)), math.degrees(cmath.phase(h))), flush=True)
shutil.rmtree(tmp)
