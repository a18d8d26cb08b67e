# hotset: the heat ground-truth workload (docs/workloads.md). A buffer placed
# on chosen nodes, a known hot set accessed by pinned threads, the hot ranges
# per phase written to a truth file, every page verified at exit. Copied into
# the emulated machine (tests/vm/programs.txt) for the heat scenarios.
add_executable(hotset
  ${CMAKE_CURRENT_LIST_DIR}/hotset/main.cpp
  ${CMAKE_CURRENT_LIST_DIR}/hotset/options.cpp
  ${CMAKE_CURRENT_LIST_DIR}/hotset/placement.cpp
  ${CMAKE_CURRENT_LIST_DIR}/hotset/access.cpp
  ${CMAKE_CURRENT_LIST_DIR}/hotset/truth.cpp
  ${CMAKE_CURRENT_LIST_DIR}/hotset/census.cpp)
target_link_libraries(hotset PRIVATE tier_warnings tier_workload_zipf numa Threads::Threads)
