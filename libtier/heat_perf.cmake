# Heat sources on perf_event: the ring reader and record decoder, libpfm4
# event resolution, and the "perf-fault" and "pmu" sources
# (libtier/src/heat/perf/). Included from libtier/CMakeLists.txt.
find_path(PFM_INCLUDE_DIR perfmon/pfmlib_perf_event.h)
find_library(PFM_LIBRARY NAMES pfm)
if(NOT PFM_INCLUDE_DIR OR NOT PFM_LIBRARY)
  message(FATAL_ERROR "libpfm4 not found: install libpfm4-dev (scripts/install-deps.sh)")
endif()
target_sources(tier PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/src/heat/perf/data_src.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/heat/perf/record_decoder.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/heat/perf/ring_reader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/heat/perf/access_samples.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/heat/perf/pfm_encoding.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/heat/perf/pmu_events.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/heat/perf/thread_events.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/heat/perf/ring_source.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/heat/perf/perf_fault_source.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/heat/perf/pmu_source.cpp
)
target_include_directories(tier PRIVATE ${PFM_INCLUDE_DIR})
target_link_libraries(tier PRIVATE ${PFM_LIBRARY})
