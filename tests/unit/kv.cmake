# tier-kv (workloads/kv): the RESP parser and encoder, the self-describing
# values and the read windows, Zipf over the permuted keys, the command line,
# and the program against a real redis-server on a unix socket (clean run,
# keys corrupted behind its back, server killed mid-run, a server that never
# answers, TCP loopback; skipped without /usr/bin/redis-server).
tier_unit_test(kv_test unit/kv_test.cpp)
target_link_libraries(kv_test PRIVATE tier_workload_kv)
add_dependencies(kv_test tier-kv)
