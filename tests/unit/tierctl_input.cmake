# Every tierctl input checked, every error the same shape (issue 16): the real
# binaries fed bad values, one table per subcommand, against a scripted tierd
# for the daemon commands; in-process checks of the shared error wording.
tier_unit_test(tierctl_input_test unit/tierctl_input_test.cpp)
target_link_libraries(tierctl_input_test PRIVATE tierctl_run tierd_core)
add_dependencies(tierctl_input_test tierctl)
