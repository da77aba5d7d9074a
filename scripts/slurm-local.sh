#!/bin/bash
# A one-node Slurm on this machine, for tests and for users without a
# cluster: munged, slurmctld and slurmd started as root without systemd,
# their configuration, state, sockets and logs in one directory.
#
#   scripts/slurm-local.sh start    # prints: export SLURM_CONF=DIR/slurm.conf
#   scripts/slurm-local.sh status
#   scripts/slurm-local.sh stop     # stops the daemons, removes DIR
#
# DIR is $TIERLAB_SLURM_DIR (default /tmp/tierlab-slurm); the ports are
# $TIERLAB_SLURM_PORT and the next one (default 16817), not Slurm's, so a
# site's Slurm on this machine is left alone. Facts this configuration
# rests on (Slurm 22.05, OpenMPI 4.1 from Debian, in a VM without
# systemd): the cgroup plugins make every job fail, hence
# proctrack/linuxproc and task/none; without EnforcePartLimits=ALL a job
# asking more than the node has pends forever instead of being refused;
# batch_sched_delay=0 starts a batch job as soon as it is submitted; srun
# --mpi=pmix works, pmi2 does not.
#
# Exit: 0 done; 1 failed (the daemon's log says why); 77 Slurm or munge
# is not installed (apt-get install slurm-wlm munge).
set -u
dir=${TIERLAB_SLURM_DIR:-/tmp/tierlab-slurm}
port=${TIERLAB_SLURM_PORT:-16817}
conf="$dir/slurm.conf"
host=$(hostname -s)
# not nproc: it answers OMP_NUM_THREADS when that is set
cpus=$(getconf _NPROCESSORS_ONLN)
export SLURM_CONF="$conf"

say() { echo "slurm-local: $*" >&2; }

need() {
	local m=""
	for p in munged slurmctld slurmd sbatch squeue scontrol; do
		command -v "$p" >/dev/null 2>&1 || m="$m $p"
	done
	if [ -n "$m" ]; then
		say "not installed:$m (apt-get install slurm-wlm munge)"
		exit 77
	fi
	[ "$(id -u)" -eq 0 ] || { say "the daemons run as root here: run as root"; exit 1; }
}

alive() { [ -s "$dir/$1.pid" ] && kill -0 "$(cat "$dir/$1.pid")" 2>/dev/null; }

write_conf() {
	mkdir -p "$dir/state" "$dir/spool" "$dir/munge"
	chmod 700 "$dir/munge"
	cat >"$conf" <<CONF
ClusterName=tierlab
SlurmctldHost=$host
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
EnforcePartLimits=ALL
SchedulerParameters=batch_sched_delay=0
MpiDefault=none
ReturnToService=2
MailProg=/bin/true
MinJobAge=600
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
}

start() {
	need
	if alive slurmctld && alive slurmd && alive munged; then
		say "already running in $dir"
		echo "export SLURM_CONF=$conf"
		return 0
	fi
	stop_daemons
	write_conf
	# munge: its own socket and key here, so a site's munged is not touched
	[ -s "$dir/munge/munge.key" ] || {
		if [ -r /etc/munge/munge.key ]; then cp /etc/munge/munge.key "$dir/munge/munge.key"
		else dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none; fi
		chmod 400 "$dir/munge/munge.key"
	}
	munged --force --socket="$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" \
		--pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munge/seed" ||
		{ say "munged did not start: $(tail -n 3 "$dir/munged.log" 2>/dev/null)"; return 1; }
	# -c: a clean start, no jobs from an earlier one; -i: ignore a stale state
	slurmctld -c -i -f "$conf" || { say "slurmctld did not start: $(tail -n 3 "$dir/slurmctld.log")"; return 1; }
	slurmd -f "$conf" || { say "slurmd did not start: $(tail -n 3 "$dir/slurmd.log")"; return 1; }
	# up when slurmd has registered: the node idle and responding ("idle*" is not), its CPUs counted
	for _ in $(seq 150); do
		state=$(sinfo -h -N -o '%t %C' 2>/dev/null | head -n 1)
		case $state in "idle 0/$cpus/0/$cpus") echo "export SLURM_CONF=$conf"; return 0 ;; esac
		sleep 0.2
	done
	say "the node did not come up (state '${state:-none}'); logs in $dir"
	tail -n 5 "$dir/slurmctld.log" "$dir/slurmd.log" >&2
	return 1
}

stop_daemons() {
	for d in slurmd slurmctld munged; do
		alive "$d" || continue
		pid=$(cat "$dir/$d.pid")
		kill "$pid" 2>/dev/null
		for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$pid" 2>/dev/null
	done
	return 0
}

case ${1:-} in
start) start ;;
stop)
	stop_daemons
	# only a directory this script made (it holds slurm.conf)
	[ -f "$conf" ] && rm -rf "$dir"
	exit 0 ;;
status)
	alive munged && alive slurmctld && alive slurmd || { say "not running (in $dir)"; exit 1; }
	scontrol ping && sinfo ;;
*) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
