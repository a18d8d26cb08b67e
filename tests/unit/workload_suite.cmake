# The workload suite's shared part (workloads/suite/): latency histogram,
# shared flags, report lines, placement; and each suite program's own tests.
tier_unit_test(workload_suite_test unit/workload_suite_test.cpp)
target_link_libraries(workload_suite_test PRIVATE tier_workload_suite)
include(${CMAKE_CURRENT_LIST_DIR}/gups.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/hotset_scan.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/graph.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/kv.cmake)
# The workloads' page-table census (workloads/page_nodes.hpp, hotset's
# --census) against move_pages' answers.
tier_unit_test(page_nodes_test unit/page_nodes_test.cpp)
target_include_directories(page_nodes_test PRIVATE ${PROJECT_SOURCE_DIR}/workloads)
target_link_libraries(page_nodes_test PRIVATE numa)
