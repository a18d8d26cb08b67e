# Cpuset backends for the CPU pools (libtier/src/cpu/cpuset_*): the pure write
# plan, cgroup v2 / v1 cpusets and the affinity-only fallback, chosen at start.
# Included from libtier/CMakeLists.txt after the `tier` target exists.
target_sources(tier PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/src/cpu/cpuset_plan.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/cpu/cgroup_files.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/cpu/cpuset_cgroup.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/cpu/cpuset_cgroup_v1.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/cpu/cpuset_cgroup_v2.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/cpu/cpuset_affinity.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/cpu/cpuset_detect.cpp
)
# The affinity backend migrates pages with libnuma (also linked by memory.cmake).
target_link_libraries(tier PRIVATE numa)
