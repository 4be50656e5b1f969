load sprintf('%s', system('dirname ' . ARG0) . '/common.gp')
d = dir . '/prc.dat'; n = dir . '/prc.ng'; hasng = ngok(n)
set multiplot layout 3,1 title 'Parallel resonant converter, h = 50 ns: netlists/prc.cir'
set ylabel 'output (V)'; set xlabel 'time (ms)'
plot d u ($1*1e3):6 w l lw 2 t 'v(out,n)', \
     (hasng ? n : d) u ($1*1e3):(hasng ? $2 : 1/0) w l dt 2 lw 1.5 lc rgb 'black' t 'ngspice (twin)'
set xrange [1960:2000]; set xlabel 'time (us), last two periods'
set ylabel 'voltage (V)'
plot d u ($1*1e6):2 w l lw 1.5 t 'v(in)', d u ($1*1e6):3 w l lw 1.5 t 'v(a) = v(Cr)'
set ylabel 'current (mA)'
plot d u ($1*1e6):($4*1e3) w l lw 1.5 t 'i(lr)', d u ($1*1e6):($5*1e3) w l lw 1.5 t 'i(lf)'
unset multiplot
