# The workload registry and state.json (daemon/workloads): quota syntax, the
# JSON form, registration and liveness against fixture /proc and cgroup trees
# and against real child processes, the real cgroup2 tree when writable, and
# the atomic state file; discovery (workloads.discover) of processes and leaf
# cgroups on fixture trees.
tier_unit_test(workloads_test
  unit/workloads_test.cpp unit/workloads_json_test.cpp unit/workloads_state_file_test.cpp
  unit/discovery_test.cpp)
target_link_libraries(workloads_test PRIVATE tierd_workloads)
