load sprintf('%s', system('dirname ' . ARG0) . '/common.gp')
d = dir . '/cuk.dat'; n = dir . '/cuk.ng'; hasng = ngok(n)
set multiplot layout 2,1 title 'Cuk converter, open loop, h = 20 ns: netlists/cuk.cir'
set ylabel 'voltage (V)'; set xlabel 'time (ms)'
plot d u ($1*1e3):2 w l lw 2 t 'v(out)', \
     (hasng ? n : d) u ($1*1e3):(hasng ? $2 : 1/0) w l dt 2 lw 1.5 lc rgb 'black' t 'ngspice (same netlist)'
set ylabel 'current (A)'
plot d u ($1*1e3):3 w l lw 1 t 'i(l1)', d u ($1*1e3):4 w l lw 1 t 'i(l2)'
unset multiplot
