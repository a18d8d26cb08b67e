#!/bin/sh
# model mode, in the guest: calibrate the latency plugin. With the plugin
# still charging nothing, tier-model-cal measures TCG's own cost of a
# dependent load (t0) and of a streamed line (tline) on every node, hands
# both to the plugin through its doorbell and switches charging on. Every
# scenario after this sees HMAT's ratios (docs/testing.md "The latency model").
set -eu
tier-model-cal --size 16
