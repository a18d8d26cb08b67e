# tierd end to end: the real daemon, real child processes and cgroups, the
# real numa_balancing sysctl (restored; lock shared with the heat tests).
tier_unit_test(tierd_test unit/tierd_test.cpp LOCKS numa_balancing)
target_link_libraries(tierd_test PRIVATE Boost::json)
add_dependencies(tierd_test tierd)
# Config keys: docs/configuration.md against the parser.
tier_unit_test(configuration_doc_test unit/configuration_doc_test.cpp)
target_link_libraries(configuration_doc_test PRIVATE tierd_core)
target_compile_definitions(configuration_doc_test PRIVATE TIER_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
# Kernel settings and peer access: the pure parts behind tierd's seams.
tier_unit_test(tierd_units_test unit/kernel_settings_test.cpp unit/peer_access_test.cpp
  unit/placement_test.cpp unit/offline_suppression_test.cpp unit/move_ledger_test.cpp
  unit/first_evidence_test.cpp unit/residency_plan_test.cpp
  unit/node_watch_test.cpp)
target_link_libraries(tierd_units_test PRIVATE tierd_core)
# 200 clients × 30 s against the real tierd (validity of every reply, no
# crash, no leaked descriptors). Its own binary: it takes half a minute, and
# runs alone: 200 busy threads on two CPUs skew the run-time accounting tests
# (heat_bpf_test's RunTimeHookTest failed beside it).
tier_unit_test(tierd_hammer_test unit/tierd_hammer_test.cpp SERIAL)
target_link_libraries(tierd_hammer_test PRIVATE Boost::json)
add_dependencies(tierd_hammer_test tierd)
# CPU pools end to end: the real tierd with [pools] enabled, real cpusets.
tier_unit_test(tierd_pools_test unit/tierd_pools_test.cpp LOCKS cpuset)
target_link_libraries(tierd_pools_test PRIVATE Boost::json)
target_include_directories(tierd_pools_test PRIVATE ${PROJECT_SOURCE_DIR}/libtier/src)
add_dependencies(tierd_pools_test tierd)
# Every config input (issue 16): one table per section, the machine checks
# against fixture trees, tierd's flags (runs the binary).
tier_unit_test(tierd_config_input_test unit/tierd_config_input_test.cpp)
target_link_libraries(tierd_config_input_test PRIVATE tierd_core)
add_dependencies(tierd_config_input_test tierd)
# The real tierd under RLIMIT_NOFILE 64 flooded by idle clients (prlimit).
tier_unit_test(tierd_clients_test unit/tierd_clients_test.cpp)
target_link_libraries(tierd_clients_test PRIVATE Boost::json)
add_dependencies(tierd_clients_test tierd)
