#!/bin/sh
# vmtest-modes: numa numa61
# vmtest-timeout: 90
# tierctl migrate on a sparse mapping (docs/memory.md, "Cost"): tier-touch
# reserves 4 GiB of address space as one VMA and first-touches a 16 MiB
# buffer in its middle on node 2. `tierctl migrate --pid P --from 2 --to 0`
# (no --range) must find the buffer's pages from the page tables
# (PAGEMAP_SCAN on the 6.12 kernel, the pagemap's entries on 6.1) and move
# every one; the kernel's numa_maps before and after, tier-touch's own
# move_pages query and its verification of every page.
# migrate_sparse.check.py asserts.
echo 0 >/proc/sys/kernel/numa_balancing
trap 'for j in $(jobs -p); do kill $j 2>/dev/null; done' EXIT
. /vm/touch.sh
uname -r >kernel.txt
start_touch touch --size 16M --node 2 --reserve 4G
cp "/proc/$P/numa_maps" numa_maps.before
tierctl migrate --pid "$P" --from 2 --to 0 --json >migrate.json 2>migrate.err
echo $? >migrate.rc
cp "/proc/$P/numa_maps" numa_maps.after
finish_touch touch
echo $? >touch.rc
echo "tierctl migrate --pid $P --from 2 --to 0 --json: exit $(cat migrate.rc)"
