# Memory mechanics: residency, node usage, page mover (libtier/src/memory/).
# Included from libtier/CMakeLists.txt after the `tier` target exists.
pkg_check_modules(NUMA IMPORTED_TARGET numa)
target_sources(tier PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/src/memory/memory_syscalls.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/memory/residency_parse.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/memory/residency.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/memory/present_pages.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/memory/node_usage.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/memory/page_mover.cpp
)
if(NUMA_FOUND)
  target_link_libraries(tier PRIVATE PkgConfig::NUMA)
else()
  target_link_libraries(tier PRIVATE numa)
endif()
