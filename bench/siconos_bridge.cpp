// siconos_bridge.cpp -- the anchor of the diode-bridge benchmark: the design
// documents' bridge as a reduced LCS in the Siconos 4.4 kernel (Debian
// libsiconos-kernel-dev), EulerMoreauOSI theta, fixed h, LCP (default solver).
//
//   x = (v_C, i_L):  x' = A x + B lambda,  y = C x + D lambda,  0 <= y _|_ lambda >= 0
//   lambda = (-v_DR1, -v_DF2, i_DF1, i_DR2), y = (i_DR1, i_DF2, -v_DF1, -v_DR2)
//   (the classic formulation of the Siconos electronics examples).
//
// usage: siconos_bridge STEPS H THETA OUT.dat   (OUT '-' for no output)
// Writes "# time v(a,b) i(l1) i(r1)" every step; prints the wall time of the
// time loop on stdout ("loop_seconds N").
#include <SiconosKernel.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char **argv)
{
    if (argc != 5) {
        std::fprintf(stderr, "usage: %s STEPS H THETA OUT.dat\n", argv[0]);
        return 2;
    }
    const long steps = std::atol(argv[1]);
    const double h = std::atof(argv[2]), theta = std::atof(argv[3]);
    const double L = 1e-2, C = 1e-6, R = 1e3, v0 = 10.0;
    const double T = h * (double)steps;

    SP::SiconosVector x0(new SiconosVector(2));
    x0->setValue(0, v0);                                   // v_C(0) = 10 V, i_L(0) = 0
    SP::SimpleMatrix A(new SimpleMatrix(2, 2));
    A->setValue(0, 1, -1.0 / C);                           // C v_C' = -i_L + ...
    A->setValue(1, 0, 1.0 / L);                            // L i_L' = v_C
    SP::FirstOrderLinearDS ds(new FirstOrderLinearDS(x0, A));

    SP::SimpleMatrix Cm(new SimpleMatrix(4, 2)), Dm(new SimpleMatrix(4, 4)), Bm(new SimpleMatrix(2, 4));
    (*Cm)(2, 0) = -1.0;
    (*Cm)(3, 0) = 1.0;
    (*Dm)(0, 0) = 1.0 / R; (*Dm)(0, 1) = 1.0 / R; (*Dm)(0, 2) = -1.0;
    (*Dm)(1, 0) = 1.0 / R; (*Dm)(1, 1) = 1.0 / R; (*Dm)(1, 3) = -1.0;
    (*Dm)(2, 0) = 1.0;
    (*Dm)(3, 1) = 1.0;
    (*Bm)(0, 2) = -1.0 / C;
    (*Bm)(0, 3) = 1.0 / C;
    SP::FirstOrderLinearTIR rel(new FirstOrderLinearTIR(Cm, Bm));
    rel->setDPtr(Dm);
    SP::NonSmoothLaw law(new ComplementarityConditionNSL(4));
    SP::Interaction inter(new Interaction(law, rel));

    SP::NonSmoothDynamicalSystem nsds(new NonSmoothDynamicalSystem(0.0, T));
    nsds->insertDynamicalSystem(ds);
    nsds->link(inter, ds);

    SP::EulerMoreauOSI osi(new EulerMoreauOSI(theta));
    SP::TimeDiscretisation td(new TimeDiscretisation(0.0, h));
    SP::LCP lcp(new LCP());
    SP::TimeStepping sim(new TimeStepping(nsds, td, osi, lcp));

    SP::SiconosVector x = ds->x();
    SP::SiconosVector y = inter->y(0);
    SP::SiconosVector lam = inter->lambda(0);
    std::vector<double> out;
    out.reserve((size_t)(steps + 1) * 4);
    auto record = [&](double t) {
        // i(r1) = i_DR1 + i_DF1 = y0 + lambda2 (the resistor current)
        out.push_back(t);
        out.push_back((*x)(0));
        out.push_back((*x)(1));
        out.push_back((*y)(0) + (*lam)(2));
    };
    record(0.0);
    auto t0 = std::chrono::steady_clock::now();
    for (long k = 1; k <= steps; ++k) {
        sim->computeOneStep();
        record(sim->nextTime());
        sim->nextStep();
    }
    auto t1 = std::chrono::steady_clock::now();
    std::printf("loop_seconds %.6f\n", std::chrono::duration<double>(t1 - t0).count());

    if (std::string(argv[4]) != "-") {
        FILE *f = std::fopen(argv[4], "w");
        if (!f) { std::perror(argv[4]); return 1; }
        std::fprintf(f, "# time v(a,b) i(l1) i(r1)\n");
        for (size_t i = 0; i < out.size(); i += 4)
            std::fprintf(f, "%.12e %.12e %.12e %.12e\n", out[i], out[i + 1], out[i + 2], out[i + 3]);
        std::fclose(f);
    }
    return 0;
}
