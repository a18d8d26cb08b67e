# tier-gups: GUPS-style random read-modify-write updates over a table with a
# hot subset (HeMem's variant of HPCC RandomAccess; docs/workload-suite.md
# "tier-gups"). The testable parts (options, update streams, replay and
# check, the whole program as gups_main) are a library for its unit test.
add_library(tier_gups STATIC
  ${CMAKE_CURRENT_LIST_DIR}/gups/options.cpp
  ${CMAKE_CURRENT_LIST_DIR}/gups/update.cpp
  ${CMAKE_CURRENT_LIST_DIR}/gups/table.cpp
  ${CMAKE_CURRENT_LIST_DIR}/gups/worker.cpp
  ${CMAKE_CURRENT_LIST_DIR}/gups/team.cpp
  ${CMAKE_CURRENT_LIST_DIR}/gups/phase_clock.cpp
  ${CMAKE_CURRENT_LIST_DIR}/gups/program.cpp)
target_include_directories(tier_gups PUBLIC ${CMAKE_CURRENT_LIST_DIR}/gups)
target_link_libraries(tier_gups PUBLIC tier_workload_suite PRIVATE tier_warnings)

add_executable(tier-gups ${CMAKE_CURRENT_LIST_DIR}/gups/main.cpp)
target_link_libraries(tier-gups PRIVATE tier_gups tier_warnings)
