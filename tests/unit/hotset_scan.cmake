# hotset's --scan-every (workloads/hotset/access.cpp, options.cpp): the flag's
# usage errors (death tests: parse_options exits 2), and the workers' scans
# on a small in-memory buffer: whole passes, apart from the accesses, the
# data still verifying. hotset is a program, not a library: its two sources
# are compiled in.
tier_unit_test(hotset_scan_test unit/hotset_scan_test.cpp
  ../workloads/hotset/options.cpp ../workloads/hotset/access.cpp)
target_link_libraries(hotset_scan_test PRIVATE tier_workload_zipf Threads::Threads)
