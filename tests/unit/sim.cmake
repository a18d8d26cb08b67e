# The trace-driven simulator (policies/sim, docs/simulator.md): generators,
# trace file, machine model, replay accounting, and the tier-sim CLI.
tier_unit_test(sim_test unit/sim_test.cpp)
target_link_libraries(sim_test PRIVATE tier_sim)
add_dependencies(sim_test tier-sim)
