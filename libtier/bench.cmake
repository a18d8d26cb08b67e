# Bench: the probes behind `tierctl bench` (libtier/src/bench/).
# Included from libtier/CMakeLists.txt after the `tier` target exists.
find_library(TIER_NUMA_LIBRARY numa REQUIRED)  # mbind (libnuma-dev)

target_sources(tier PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/src/bench/buffer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/bench/chase.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/bench/bandwidth.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/bench/loaded.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/bench/runner.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/bench/report.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/bench/plot.cpp
)
target_link_libraries(tier PRIVATE ${TIER_NUMA_LIBRARY} Threads::Threads)
