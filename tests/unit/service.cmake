# tierd under systemd: sd_notify messages from the real binary to a fake
# NOTIFY_SOCKET, SIGHUP reload, watchdog kicks, journald log prefixes, and the
# unit file through `systemd-analyze verify` / `security --offline`.
tier_unit_test(service_test unit/service_test.cpp)
target_link_libraries(service_test PRIVATE tierd_core)
target_compile_definitions(service_test PRIVATE TIER_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
add_dependencies(service_test tierd tierctl)
