# tier-gups (workloads/gups/): index selection within the worker's own words
# and the hot fraction, the replay restoring the table and a corrupted word
# counted bad, option errors naming the flag, and the program run end to end.
tier_unit_test(gups_test unit/gups_test.cpp)
target_link_libraries(gups_test PRIVATE tier_gups)
add_dependencies(gups_test tier-gups)
