# Heat sources from the kernel's own page tracking: DAMON vaddr, soft-dirty,
# idle-page (libtier/src/heat/kernel/). Included from libtier/CMakeLists.txt.
target_sources(tier PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/src/heat/kernel/kernel_io.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/heat/kernel/pagemap_walk.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/heat/kernel/damon_sysfs.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/heat/kernel/damon_source.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/heat/kernel/damon_availability.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/heat/kernel/soft_dirty_source.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/heat/kernel/idle_bitmap.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/heat/kernel/idle_page_source.cpp
)
