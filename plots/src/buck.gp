load sprintf('%s', system('dirname ' . ARG0) . '/common.gp')
d = dir . '/buck.dat'; n = dir . '/buck.ng'; hasng = ngok(n)
set multiplot layout 3,1 title 'Buck converter with its PWM loop, h = 50 ps, 4e6 steps (rows every 10 ns): netlists/buck.cir'
set ylabel 'voltage (V)'; set xlabel 'time (us)'
plot d u ($1*1e6):2 w l lw 2 t 'v(out)', d u ($1*1e6):3 w l lw 1.5 t 'v(ref)', \
     (hasng ? n : d) u ($1*1e6):(hasng ? $2 : 1/0) w l dt 2 lw 1.5 lc rgb 'black' t 'v(out) ngspice (twin)'
set xrange [190:195]; set xlabel 'time (us), three PWM periods'
plot d u ($1*1e6):5 w l lw 1.5 t 'v(ramp)', d u ($1*1e6):6 w l lw 1.5 t 'v(ea)', \
     d u ($1*1e6):7 w l lw 1.5 t 'v(g) comparator', d u ($1*1e6):8 w l lw 1 t 'v(sw)'
set ylabel 'current (mA)'
plot d u ($1*1e6):($4*1e3) w l lw 1.5 t 'i(l1)'
unset multiplot
