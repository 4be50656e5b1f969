load sprintf('%s', system('dirname ' . ARG0) . '/common.gp')
d = dir . '/flyback.dat'; n = dir . '/flyback.ng'; hasng = ngok(n)
set multiplot layout 3,1 title 'Flyback converter (K = 1), open loop, h = 10 ns: netlists/flyback.cir'
set ylabel 'v(out) (V)'; set xlabel 'time (ms)'
plot d u ($1*1e3):2 w l lw 2 t 'v(out)', \
     (hasng ? n : d) u ($1*1e3):(hasng ? $2 : 1/0) w l dt 2 lw 1.5 lc rgb 'black' t 'ngspice (same netlist)'
set xrange [4980:5000]; set xlabel 'time (us), last two periods'
set ylabel 'voltage (V)'
plot d u ($1*1e6):3 w l lw 1.5 t 'v(d) primary switch', d u ($1*1e6):4 w l lw 1.5 t 'v(s) secondary'
set ylabel 'current (A)'
plot d u ($1*1e6):5 w l lw 1.5 t 'i(lp)', d u ($1*1e6):6 w l lw 1.5 t 'i(ls)'
unset multiplot
