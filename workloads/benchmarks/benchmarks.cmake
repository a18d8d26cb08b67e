# Benchmark harnesses (Google Benchmark). Included from workloads/CMakeLists.txt.
find_package(benchmark REQUIRED)

# Residency scan rate of the benchmark's own pid (docs/benchmarks.md).
add_executable(residency_bench ${CMAKE_CURRENT_LIST_DIR}/residency_bench.cpp)
target_link_libraries(residency_bench PRIVATE benchmark::benchmark tier tier_warnings)

# Heat benchmarks (HeatMap ingest, memory at 64 GiB): their own fragment.
include(${CMAKE_CURRENT_LIST_DIR}/heat_benchmarks.cmake)

# tierd's `status` round trip with 0 and 1000 workloads (scripts/bench-tierd.sh).
add_executable(tierd_status_bench ${CMAKE_CURRENT_LIST_DIR}/status_latency.cpp)
target_link_libraries(tierd_status_bench PRIVATE tier_warnings)

# One placement-policy tick with 64 GiB tracked in 1 M regions (docs/benchmarks.md).
add_executable(policy_bench ${CMAKE_CURRENT_LIST_DIR}/policy_bench.cpp)
target_link_libraries(policy_bench PRIVATE benchmark::benchmark tier_policies tier_warnings)

# One CPU pool layout recompute, 200 claims on 256 CPUs in 8 nodes (docs/pools.md).
add_executable(pool_layout_bench ${CMAKE_CURRENT_LIST_DIR}/pool_layout_bench.cpp)
target_link_libraries(pool_layout_bench PRIVATE benchmark::benchmark tier tier_warnings)
# `tierctl run --membind 0 -- true` vs `numactl --membind 0 true` launch time
# (docs/benchmarks.md); runs build/bin/tierctl.
add_executable(run_launch_bench ${CMAKE_CURRENT_LIST_DIR}/run_launch_bench.cpp)
target_link_libraries(run_launch_bench PRIVATE benchmark::benchmark tier_warnings)
add_dependencies(run_launch_bench tierctl)

# The emulated machine's latency model: its own cost per guest access
# (tests/vm/plugin/model.c; docs/benchmarks.md "The latency model").
add_executable(tiermodel_bench ${CMAKE_CURRENT_LIST_DIR}/tiermodel_bench.cpp)
target_link_libraries(tiermodel_bench PRIVATE benchmark::benchmark tiermodel_core tier_warnings)
