# Memory mechanics: residency, node usage, token bucket, page mover, and the
# tierctl stats/migrate commands. Included from tests/CMakeLists.txt.
tier_unit_test(residency_test unit/residency_test.cpp)
tier_unit_test(residency_totals_test unit/residency_totals_test.cpp)
tier_unit_test(present_pages_test unit/present_pages_test.cpp)
# The internal header of the present-page finder (libtier/src/memory/).
target_include_directories(present_pages_test PRIVATE ${PROJECT_SOURCE_DIR}/libtier/src)
tier_unit_test(node_usage_test unit/node_usage_test.cpp)
tier_unit_test(token_bucket_test unit/token_bucket_test.cpp)
tier_unit_test(page_mover_test unit/page_mover_test.cpp)
tier_unit_test(memory_policy_test unit/memory_policy_test.cpp)
tier_unit_test(memory_cli_test unit/memory_cli_test.cpp)
add_dependencies(memory_cli_test tierctl)
