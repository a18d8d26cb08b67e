# Heat benchmarks (Google Benchmark). Included from benchmarks.cmake.

# HeatMap ingest and decay at 64 GiB tracked vs an unordered_map page table
# (docs/benchmarks.md, "HeatMap").
add_executable(heatmap_bench ${CMAKE_CURRENT_LIST_DIR}/heatmap_bench.cpp)
target_link_libraries(heatmap_bench PRIVATE benchmark::benchmark tier tier_warnings)
