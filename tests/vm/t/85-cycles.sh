# Load/unload cycles of sld_compat while 100 protected tasks fork, RUN the
# fixture hypervisor's ioctl and exit (issue #7's stress): every unload
# detaches live protected tasks, every load re-learns fx_hv and protects
# the next ones. make check: 20 cycles; make check-stress: 500.
# No kernel error (vm.sh checks dmesg), no record left, the account
# consistent at the end.
. /tests/lib.sh


cycles=20
[ -e /tests/stress_full ] && cycles=500
lsmod | grep -q '^sld_compat ' || load
lsmod | grep -q '^fx_hv ' || insmod /mod/fx_hv.ko
echo protect > $P/on_hypervisor
mark_dmesg
rm -f /tmp/swarm.stop
sldhv swarm fx_hv 100 /tmp/swarm.stop > /tmp/swarm.out &
swarm=$!
sleep 2
protected=0 fails=0 i=0
while [ $i -lt $cycles ]; do
	p=$(ac tasks_protected)
	protected=$((protected + ${p:-0}))
	unload || fails=$((fails + 1))
	load || fails=$((fails + 1))
	# Let the swarm run under the fresh module for a moment.
	sleep 0.3
	i=$((i + 1))
	[ $((i % 50)) -eq 0 ] && diag "cycle $i of $cycles at $(cut -d' ' -f1 /proc/uptime) s"
done
touch /tmp/swarm.stop
wait $swarm
out=$(cat /tmp/swarm.out)
diag "swarm: $out; tasks protected over the cycles: $protected"
is "$fails" 0 "$cycles unload/load cycles under the swarm"
like "$out" '^tasks=[1-9][0-9]* runs=[0-9]+ failed=0$' "every swarm task's RUNs succeeded, no task killed"
if [ "$protected" -ge "$cycles" ]; then ok "tasks were protected between the cycles ($protected)"
else nok "tasks were protected between the cycles ($protected)"; fi
like "$(new_dmesg)" 'sld_compat: unloading: [0-9]+ protected task\(s\) detached' "some unload detached live protected tasks"
is "$(ac tasks_live)" 0 "no record left after the swarm"
is "$(cat $S/disable_count)" 0 "no SLD disable hold left"
balanced "after the cycles (last load's account)"
for c in cpu0 cpu1; do
	is "$(acf $c toggles_off)" "$(acf $c toggles_on)" "$c: as many toggles off as on"
done
rmmod fx_hv
