load sprintf('%s', system('dirname ' . ARG0) . '/common.gp')
d = dir . '/inverter_chain.dat'; n = dir . '/inverter_chain.ng'; hasng = ngok(n)
set title 'Chain of 10 CMOS inverters (PWL Sah MOS, 50 fF per stage): netlists/inverter_chain.cir'
set ylabel 'voltage (V)'; set xlabel 'time (ns)'
set xrange [0:12]
plot d u ($1*1e9):2 w l lw 1.5 t 'v(n0) input', d u ($1*1e9):3 w l lw 1.5 t 'v(n1)', \
     d u ($1*1e9):4 w l lw 1.5 t 'v(n2)', d u ($1*1e9):5 w l lw 1.5 t 'v(n3)', d u ($1*1e9):6 w l lw 2 t 'v(n10)', \
     (hasng ? n : d) u ($1*1e9):(hasng ? $2 : 1/0) w l dt 2 lw 1.5 lc rgb 'black' t 'v(n10) ngspice level 1'
