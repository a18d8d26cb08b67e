# Heat sources on perf_event: recorded-stream decoding, libpfm4 event
# resolution, and the live "perf-fault" source. Included from tests/CMakeLists.txt.
tier_unit_test(heat_perf_test
  unit/heat_perf_test.cpp
  unit/heat_perf_events_test.cpp
  unit/heat_perf_fault_test.cpp)
