# The placement policies on hand-built snapshots (policies/).
tier_unit_test(policies_test unit/policies_test.cpp)
target_link_libraries(policies_test PRIVATE tier_policies)
