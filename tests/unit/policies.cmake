# The placement policies on hand-built snapshots (policies/).
tier_unit_test(policies_test unit/policies_test.cpp)
target_link_libraries(policies_test PRIVATE tier_policies)
# The same policies through the simulator: the issue's simulator goal.
tier_unit_test(policies_sim_test unit/policies_sim_test.cpp)
target_link_libraries(policies_sim_test PRIVATE tier_sim)
