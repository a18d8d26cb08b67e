# tier-graph: the workload suite's Graph500-style graph kernels
# (docs/workload-suite.md "tier-graph"): a Kronecker graph's CSR placed on a node,
# BFS and PageRank workers over it, edges traversed per second, the CSR's
# checksum verified at exit. The testable parts are a library
# (tests/unit/graph.cmake); its headers are included as "graph/...".
add_library(tier_graph STATIC
  ${CMAKE_CURRENT_LIST_DIR}/graph/options.cpp
  ${CMAKE_CURRENT_LIST_DIR}/graph/kronecker.cpp
  ${CMAKE_CURRENT_LIST_DIR}/graph/checksum.cpp
  ${CMAKE_CURRENT_LIST_DIR}/graph/csr.cpp
  ${CMAKE_CURRENT_LIST_DIR}/graph/bfs.cpp
  ${CMAKE_CURRENT_LIST_DIR}/graph/pagerank.cpp
  ${CMAKE_CURRENT_LIST_DIR}/graph/workers.cpp)
target_include_directories(tier_graph PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(tier_graph PUBLIC tier_workload_suite PRIVATE tier_warnings)

add_executable(tier-graph ${CMAKE_CURRENT_LIST_DIR}/graph/main.cpp)
target_link_libraries(tier-graph PRIVATE tier_graph tier_warnings)
