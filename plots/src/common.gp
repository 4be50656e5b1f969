# common settings of the circuit pictures (make_circuits.sh)
set terminal pngcairo noenhanced size 1000,720 font 'sans,10'
set output out
set grid
set key outside right top Left reverse
set lmargin at screen 0.09
set rmargin at screen 0.80
# an empty ngspice file (ngspice not installed) plots nothing
ngok(f) = system(sprintf("test -s '%s' && echo 1 || echo 0", f)) + 0
