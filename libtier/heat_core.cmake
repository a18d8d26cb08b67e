# Heat core: sample names, HeatMap, cross-NUMA matrix, source selection and
# the collector (libtier/src/heat/). Included from libtier/CMakeLists.txt.
target_sources(tier PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/src/heat/sample.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/heat/heatmap.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/heat/heatmap_table.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/heat/heatmap_queries.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/heat/cross_numa.cpp
)
target_sources(tier PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/src/heat/selection.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/heat/node_resolver.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/heat/collector.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/heat/collect_fallback.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/heat/kernel_activity.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/heat/report_json.cpp
)
