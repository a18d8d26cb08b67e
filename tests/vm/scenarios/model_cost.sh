#!/bin/sh
# vmtest-modes: model
# vmtest-explicit: yes
# vmtest-timeout: 300
# What the latency model costs (docs/benchmarks.md "The latency model"): the
# same hotset runs with the plugin charging (mode model) and without the
# plugin (tests/vm/run.sh --no-plugin), 16 MiB hot sets read for 5 s from
# CPU 0, on node 0 and on node 2. No check beyond the runs' own: a benchmark.
for node in 0 2; do
  hotset --size 64M --hot 16M --node $node --cpus 0 --threads 1 --duration 5 --mix read \
    | tail -n 1 >"hot$node.json"
done
cat /proc/uptime
