# Per-switch cost with many protected tasks (issue #12 item 6): the
# ping-pong of 30-ctxsw (two threads pinned to CPU 0, sldhv pingpong)
# while PARK other protected tasks are alive, parked in a read (sldhv
# park: threads that RUN once on /dev/fx_hv, then block), with PARK = 100
# and 10000 (max_tasks raised to 16384; issue #38 item 3). Cases:
#   pp-100, pp-10000        both ping-pong threads protected
#   mixed-100, mixed-10000  only one of them protected
# The engine finds a task's record through the task itself (its preempt
# notifier), never by a search of the pool, so the cost should be flat.
# Prints: BENCH pool ROUND CASE NS_PER_SWITCH WRITES_PER_SWITCH LIVE
# CAPACITY RECORD_BYTES (WRITES: toggles per context switch the threads
# made; LIVE: records alive while measuring; CAPACITY: records allocated;
# RECORD_BYTES: sizeof(struct sld_task), from the ac file)
# shellcheck source=../../tests/lib/vm.sh
. /tests/lib.sh
bench=$(bench_name pool)
R=${BENCH_ROUNDS:-7}
[ "$R" -le 9 ] || R=9	# the 10000 threads start once; a round is about 8 s under TCG
N=20000
lsmod | grep -q '^sld_compat ' || load
lsmod | grep -q '^fx_hv ' || insmod /mod/fx_hv.ko
echo bench_none > $P/exempt_comm
echo 16384 > $P/max_tasks
echo 40000 > /proc/sys/kernel/threads-max
emit() { printf 'BENCH\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$bench" "$@"; }
pp() {	# pp ROUND CASE DEV...
	r=$1 c=$2; shift 2
	sleep 1
	t0=$(toggles)
	o=$(sldhv pingpong $N "$@")
	t1=$(toggles)
	csw=$(field "$o" csw)
	emit "$r" "$c" "$(field "$o" ns_per_switch)" \
		"$(awk -v d=$((t1 - t0)) -v c="$csw" 'BEGIN { printf "%.3f", d / c }')" \
		"$(ac tasks_live)" "$(ac tasks_capacity)" "$(ac tasks_record_bytes)"
}
park() {	# park N: N protected threads alive until unpark
	rm -f /tmp/stop /tmp/park.out
	sldhv oncpu 1 sldhv park fx_hv "$1" /tmp/stop > /tmp/park.out &
	until grep -q parked /tmp/park.out; do sleep 0.5; done
	grep -q 'failed=0' /tmp/park.out || echo "# bench: park $1: $(cat /tmp/park.out)"
}
unpark() { touch /tmp/stop; wait; rm -f /tmp/stop; }
one() {
	park "$2"
	pp "$1" pp-"$2" fx_hv
	pp "$1" mixed-"$2" fx_hv one
	unpark
}
interleave "$R" 100 10000
echo "# bench: pool capacity after the runs $(ac tasks_capacity) records of $(ac tasks_record_bytes) bytes"
unload
rmmod fx_hv
