#!/bin/bash
# check_slurm.sh -- a sharded sweep on a real Slurm: starts a one-node cluster
# (munged, slurmctld, slurmd, no systemd, no accounting) in a temporary
# directory, runs the buck inductor study as a job array of 4 shards and a merge
# job that depends on it (afterok, --kill-on-invalid-dep=yes), and checks the
# merged table equals the table of the unsharded study, byte for byte.
#
# usage: check_slurm.sh PROGRAM TOP_SRCDIR      (make check-slurm runs it)
# Needs root (the daemons) and Debian's slurmctld slurmd slurm-client munge
# (Slurm 22.05). Exit 0 pass, 1 fail, 77 skipped (no Slurm, not root).
set -u
prog=$(readlink -f "$1")
top=$(readlink -f "$2")
for c in slurmctld slurmd sbatch munged; do
    command -v "$c" >/dev/null || { echo "check-slurm: SKIP: $c not installed (apt-get install slurmctld slurmd slurm-client munge)"; exit 77; }
done
[ "$(id -u)" = 0 ] || { echo "check-slurm: SKIP: the daemons need root"; exit 77; }

dir=$(mktemp -d /tmp/nsc-slurm.XXXXXX)
host=$(hostname -s)
export SLURM_CONF=$dir/slurm.conf
started_munge=0
cleanup() {
    scontrol shutdown >/dev/null 2>&1
    for p in "$dir"/slurmctld.pid "$dir"/slurmd.pid; do [ -f "$p" ] && kill "$(cat "$p")" 2>/dev/null; done
    sleep 1
    [ "$started_munge" = 1 ] && pkill -f "munged --pid-file=$dir/munged.pid"
    rm -rf "$dir"
}
trap cleanup EXIT
fail() { echo "check-slurm: FAIL: $*"; for f in "$dir"/*.log "$dir"/work/slurm-*.out; do [ -f "$f" ] && { echo "--- $f"; tail -20 "$f"; }; done; exit 1; }

# munge: reuse a running munged, else start one on its own socket
if ! munge -n </dev/null >/dev/null 2>&1; then
    mkdir -p /run/munge && chown munge:munge /run/munge && chmod 0755 /run/munge
    [ -f /etc/munge/munge.key ] || { dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=128 2>/dev/null; chown munge:munge /etc/munge/munge.key; chmod 0400 /etc/munge/munge.key; }
    touch "$dir/munged.pid" && chown munge "$dir/munged.pid"
    su -s /bin/sh munge -c "/usr/sbin/munged --pid-file=$dir/munged.pid" || fail "munged did not start"
    started_munge=1
    munge -n </dev/null >/dev/null 2>&1 || fail "munge does not work"
fi

mkdir -p "$dir/state" "$dir/spool" "$dir/work"
cpus=$(nproc)
cat > "$SLURM_CONF" <<EOF
ClusterName=nsc
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
SlurmctldPort=6917
SlurmdPort=6918
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=check Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
slurmctld -i -f "$SLURM_CONF" || fail "slurmctld did not start"
slurmd -f "$SLURM_CONF" || fail "slurmd did not start"
for i in $(seq 60); do
    sinfo -h -o '%t' 2>/dev/null | grep -qx idle && break
    sleep 1
done
sinfo -h -o '%t' | grep -qx idle || fail "the node did not become idle: $(sinfo 2>&1)"

# the study: the buck converter's inductor, 8 values, 4 shards, one CPU each
cd "$dir/work" || fail "no work directory"
cp "$top/netlists/buck_sweep.cir" . || fail "no netlist"
study="buck_sweep.cir --param lval=5u:20u:8 --step 1n --no-plot --quiet -j 1"
arr=$(sbatch --parsable --array=1-4 --cpus-per-task=1 --chdir="$dir/work" -o 'slurm-%A_%a.out' \
      --wrap "$prog sweep $study --shard \$SLURM_ARRAY_TASK_ID/4") || fail "sbatch (array) failed"
mrg=$(sbatch --parsable --dependency=afterok:$arr --kill-on-invalid-dep=yes --chdir="$dir/work" -o 'slurm-merge.out' \
      --wrap "$prog sweep --merge --no-plot --quiet -o merged buck_sweep.shard*of4.sweep.dat") || fail "sbatch (merge) failed"
"$prog" sweep $study -o whole 2>"$dir/whole.log" || fail "the unsharded study failed"
for i in $(seq 300); do
    squeue -h -j "$arr,$mrg" 2>/dev/null | grep -q . || break
    sleep 1
done
squeue -h -j "$arr,$mrg" 2>/dev/null | grep -q . && fail "jobs still queued after 300 s: $(squeue)"
[ -f merged.sweep.dat ] || fail "the merge job wrote no table"
cmp -s merged.sweep.dat whole.sweep.dat || fail "the merged table differs from the unsharded one: $(diff merged.sweep.dat whole.sweep.dat | head)"
rows=$(grep -vc '^#' merged.sweep.dat)
[ "$rows" = 8 ] || fail "$rows rows, 8 expected"
echo "check-slurm: PASS: 4 array tasks + an afterok merge job on a one-node Slurm; the merged table ($rows points) equals the unsharded one"
exit 0
