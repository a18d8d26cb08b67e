# CPU inventory (cores, SMT siblings, nodes) and the pool layout, a pure
# function of inventory, topology, config and claims (docs/pools.md).
target_sources(tier PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/src/cpu/cpu_inventory.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/cpu/cpu_inventory_hwloc.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/cpu/pool_spec.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/cpu/cpu_book.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/cpu/core_picker.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/cpu/pool_memory.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/cpu/pool_layout.cpp
)
