# Kernel tiering detection: what the kernel itself does with the tiers (NUMA
# balancing, demotion, DAMON schemes, weighted interleave). Read-only; used
# by `tierctl doctor` and the daemon's kernel_tiering modes.
# Included from libtier/CMakeLists.txt after the `tier` target exists.
target_sources(tier PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/src/kernel_tiering.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/kernel_tiering_files.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/kernel_tiering_damon.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/kernel_tiering_interleave.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/kernel_tiering_json.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/kernel_tiering_text.cpp
)
