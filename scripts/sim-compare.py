#!/usr/bin/env python3
"""Two builds of tier-sim's `balanced` side by side on the generated traces.

usage: scripts/sim-compare.py BEFORE_TIER_SIM AFTER_TIER_SIM

Runs every trace below with seeds 3, 5 and 7 (60 epochs) through both binaries
and prints a Markdown table: migrated GiB, mean fast share over the oracle's,
the modelled mean latency and ping-pong pages, median (min-max) over the seeds,
before -> after (docs/benchmarks.md, "Fresh evidence in two ticks").
Exit status: 0, 1 when a run fails, 2 bad usage.
"""
import json, os, subprocess, sys, statistics
if len(sys.argv) != 3 or not all(os.access(b, os.X_OK) for b in sys.argv[1:]):
    print(__doc__.strip().split('\n\n')[1], file=sys.stderr)
    sys.exit(2)
old, new = sys.argv[1], sys.argv[2]
traces = [
 ('uniform', ['--trace','uniform','--size','16G','--hot','2G']),
 ('zipf 0.99', ['--trace','zipf','--size','16G']),
 ('phases (10 epochs, 3)', ['--trace','phases','--size','16G','--hot','2G']),
 ('scan every 10, share 0.5', ['--trace','scan','--size','16G','--hot','2G','--scan-every','10']),
 ('scan every 5, share 0.8', ['--trace','scan','--size','16G','--hot','2G','--scan-every','5','--scan-share','0.8']),
 ('scan every 3, share 0.5', ['--trace','scan','--size','16G','--hot','2G','--scan-every','3']),
 ('no scans (share 0)', ['--trace','scan','--size','16G','--hot','2G','--scan-share','0']),
 ('mix (8G online + 32G offline)', ['--trace','mix','--size','8G','--offline-size','32G']),
]
print("| trace | migrated GiB, before → after | mean fast share / oracle, before → after | modelled latency ns, before → after | ping-pong pages, before → after |")
print("|---|---|---|---|---|")
for name, args in traces:
    res = {}
    for tag, b in (('o', old), ('n', new)):
        g=[];q=[];l=[];p=[]
        for seed in (3,5,7):
            s = json.loads(subprocess.run([b,'--policy','balanced','--epochs','60','--seed',str(seed),'--json',*args],capture_output=True,text=True,check=True).stdout)['summary']
            g.append(s['bytes_migrated']/2**30); q.append(s['mean_fast_share']/s['mean_oracle_share']); l.append(s['mean_latency_ns']); p.append(s['ping_pong_pages'])
        res[tag]=(g,q,l,p)
    f=lambda v,fmt: f"{fmt.format(statistics.median(v))} ({fmt.format(min(v))}-{fmt.format(max(v))})"
    o,n=res['o'],res['n']
    print(f"| {name} | {f(o[0],'{:.1f}')} → **{f(n[0],'{:.1f}')}** | {f(o[1],'{:.3f}')} → {f(n[1],'{:.3f}')} | {statistics.median(o[2]):.1f} → {statistics.median(n[2]):.1f} | {statistics.median(o[3]):.0f} → {statistics.median(n[3]):.0f} |")
