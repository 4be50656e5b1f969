load sprintf('%s', system('dirname ' . ARG0) . '/common.gp')
d = dir . '/rectifier_capfilter.dat'; n = dir . '/rectifier_capfilter.ng'; hasng = ngok(n)
set multiplot layout 2,1 title 'Bridge rectifier with output capacitor (LC tank source): netlists/rectifier_capfilter.cir'
set ylabel 'voltage (V)'; set format x ''
plot d u ($1*1e3):2 w l lw 1.5 t 'v(a,b) tank', d u ($1*1e3):3 w l lw 2 t 'v(p) output', \
     (hasng ? n : d) u ($1*1e3):(hasng ? $2 : 1/0) w l dt 2 lw 1.5 lc rgb 'black' t 'v(p) ngspice (twin)'
set ylabel 'current (mA)'; set format x '%g'; set xlabel 'time (ms)'
plot d u ($1*1e3):($4*1e3) w l lw 1.5 t 'i(l1)', d u ($1*1e3):($5*1e3) w l lw 1.5 t 'i(r1) load (never < 0)'
unset multiplot
