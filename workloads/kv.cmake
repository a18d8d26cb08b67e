# tier-kv: the suite's key-value service workload (docs/workload-suite.md
# "tier-kv"). The server is Debian's redis-server, placed by the harness;
# tier-kv is its client, speaking RESP over its own sockets (no hiredis), with
# the testable parts (RESP, values, keyspace, the client phases) in a library
# of their own for tests/unit/kv_test.cpp.
add_library(tier_workload_kv STATIC
  ${CMAKE_CURRENT_LIST_DIR}/kv/resp.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kv/value.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kv/keyspace.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kv/connection.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kv/client.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kv/options.cpp)
target_include_directories(tier_workload_kv PUBLIC ${CMAKE_CURRENT_LIST_DIR}/kv)
target_link_libraries(tier_workload_kv PUBLIC tier_workload_suite PRIVATE tier_warnings)
add_executable(tier-kv ${CMAKE_CURRENT_LIST_DIR}/kv/main.cpp)
target_link_libraries(tier-kv PRIVATE tier_workload_kv tier_workload_suite tier_warnings)
