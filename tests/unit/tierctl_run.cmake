# `tierctl run`: plans from flags on fixture machines, and the real binary
# side by side with numactl.
tier_unit_test(run_options_test unit/run_options_test.cpp)
target_link_libraries(run_options_test PRIVATE tierctl_run)

tier_unit_test(tierctl_run_test unit/tierctl_run_test.cpp)
# A scripted tierd: the daemon's own ControlServer.
target_link_libraries(tierctl_run_test PRIVATE tierd_core)
add_dependencies(tierctl_run_test tierctl)
