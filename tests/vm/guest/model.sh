# Helpers of the latency model's scenarios (fidelity, fidelity_load).
# Sourced: `. /vm/model.sh`.

# hotset_run NAME ARGS...: 4 s of reads of a 16 MiB hot set (uniform) of a
# 64 MiB buffer by one thread; its lines in NAME.json (the last: its summary).
hotset_run() {
  name=$1; shift
  hotset --size 64M --hot 16M --threads 1 --duration 4 --mix read "$@" >"$name.json"
}
