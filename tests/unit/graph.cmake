# tier-graph's parts (workloads/graph/): the Kronecker generator's
# determinism and distribution, the CSR, BFS and its Graph500 validation
# (tampered results fail), PageRank against the plain iteration, the CSR
# checksum catching a flipped byte, the option errors, and the workers in
# every kernel over a small graph.
tier_unit_test(graph_test unit/graph_test.cpp)
target_link_libraries(graph_test PRIVATE tier_graph)
