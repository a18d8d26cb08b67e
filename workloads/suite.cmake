# The workload suite's shared part (workloads/suite/, docs/workload-suite.md):
# the common flags, placement, the run's life and the
# report format of tier-gups, tier-graph and tier-kv; and Zipf (its own
# library: hotset links it alone).
add_library(tier_workload_zipf STATIC ${CMAKE_CURRENT_LIST_DIR}/suite/zipf.cpp)
target_link_libraries(tier_workload_zipf PRIVATE tier_warnings)
add_library(tier_workload_suite STATIC
  ${CMAKE_CURRENT_LIST_DIR}/suite/suite_options.cpp
  ${CMAKE_CURRENT_LIST_DIR}/suite/placement.cpp
  ${CMAKE_CURRENT_LIST_DIR}/suite/latency_histogram.cpp
  ${CMAKE_CURRENT_LIST_DIR}/suite/report.cpp
  ${CMAKE_CURRENT_LIST_DIR}/suite/run_control.cpp)
target_include_directories(tier_workload_suite PUBLIC ${CMAKE_CURRENT_LIST_DIR}/suite)
target_link_libraries(tier_workload_suite PUBLIC tier_workload_zipf tier_core Boost::json numa Threads::Threads
                                          PRIVATE tier_warnings)
