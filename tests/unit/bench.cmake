# `tierctl bench`: pure parts, a quick live run, and the CLI.
tier_unit_test(bench_test unit/bench_test.cpp)
add_dependencies(bench_test tierctl)
