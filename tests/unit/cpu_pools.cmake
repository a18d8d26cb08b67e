# CPU pools (libtier/src/cpu/): the inventory from real machines and
# pool specs; the layout on constructed and real machines.
tier_unit_test(cpu_inventory_test unit/cpu_inventory_test.cpp)
tier_unit_test(pool_layout_test unit/pool_layout_test.cpp)
