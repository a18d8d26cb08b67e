# tierctl's daemon commands (status, workloads, policy, pause/resume, reload)
# run as a binary against a scripted tierd: the daemon's ControlServer with
# canned docs/api.md results (tests/unit/tierctl_daemon_test.cpp).
tier_unit_test(tierctl_daemon_test unit/tierctl_daemon_test.cpp)
target_link_libraries(tierctl_daemon_test PRIVATE tierd_core)
add_dependencies(tierctl_daemon_test tierctl)
