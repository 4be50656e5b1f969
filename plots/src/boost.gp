load sprintf('%s', system('dirname ' . ARG0) . '/common.gp')
d = dir . '/boost.dat'; n = dir . '/boost.ng'; hasng = ngok(n)
set multiplot layout 2,1 title 'Boost converter, open loop, h = 10 ns: netlists/boost.cir'
set ylabel 'v(out) (V)'; set xlabel 'time (ms)'
plot d u ($1*1e3):2 w l lw 2 t 'v(out)', \
     (hasng ? n : d) u ($1*1e3):(hasng ? $2 : 1/0) w l dt 2 lw 1.5 lc rgb 'black' t 'ngspice (same netlist)'
set xrange [2980:3000]; set xlabel 'time (us), last two periods'
set ylabel 'i (A), v/10 (V)'
plot d u ($1*1e6):3 w l lw 1.5 t 'i(l1)', d u ($1*1e6):5 w l lw 1.5 t 'i(d1)', d u ($1*1e6):($4/10) w l lw 1 t 'v(sw)/10'
unset multiplot
