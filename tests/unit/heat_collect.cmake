# Heat source selection and the collection loop behind `tierctl heat`
# (scripted sources behind the HeatSource seam, a scripted MemorySyscalls).
tier_unit_test(heat_collect_test unit/heat_collect_test.cpp)

# `tierctl heat` end to end: the real binary, `hotset`, and live sources on
# this kernel with kernel.numa_balancing switched on (hence the lock); its
# --record traces read back with the simulator's reader and replayed by tier-sim.
tier_unit_test(heat_cli_test unit/heat_cli_test.cpp RELEASE LOCKS numa_balancing)
target_link_libraries(heat_cli_test PRIVATE tierctl_recorder)
add_dependencies(heat_cli_test tierctl hotset tier-sim)
