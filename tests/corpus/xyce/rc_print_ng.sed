1s/ vr / {v(in)-v(out)} /
1s/ pr1 / p(r1) /
