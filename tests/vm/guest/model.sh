# Helpers of the latency model's scenarios (fidelity, fidelity_load).
# Sourced: `. /vm/model.sh`, then `model_quiet`.
. /vm/heat.sh

# model_quiet: no NUMA hint faults in the measurements (the kernel's scanner
# would fault on the measured buffers now and then); heat.sh's cleanup as the
# EXIT trap restores it (knobs.saved, knobs.restored).
model_quiet() {
  trap heat_cleanup EXIT
  knob_set /proc/sys/kernel/numa_balancing 0
}

# hotset_run NAME ARGS...: 4 s of reads of a 16 MiB hot set (uniform) of a
# 64 MiB buffer by one thread; its lines in NAME.json (the last: its summary).
hotset_run() {
  name=$1; shift
  hotset --size 64M --hot 16M --threads 1 --duration 4 --mix read "$@" >"$name.json"
}
