# Doctor: kernel feature probes behind `tierctl doctor` (libtier/src/doctor/).
# Included from libtier/CMakeLists.txt after the `tier` target exists.
find_package(ZLIB REQUIRED)  # /proc/config.gz

# The BPF prober embeds ebpf/feature_probe.bpf.c through its skeleton
# (tier_bpf_skeletons, defined in ebpf/, which the top level adds first).
target_sources(tier PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/src/doctor/doctor.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/doctor/doctor_json.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/doctor/util.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/doctor/kernel_config.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/doctor/mounts.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/doctor/check_kernel.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/doctor/check_bpf.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/doctor/check_pmu.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/doctor/check_damon.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/doctor/check_page_tracking.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/doctor/check_cgroups.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/doctor/check_numa.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/doctor/check_weighted_interleave.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/doctor/check_systemd.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/doctor/bpf_prober.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/doctor/perf_prober.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/doctor/soft_dirty_prober.cpp
)
target_link_libraries(tier PRIVATE tier_bpf_skeletons ZLIB::ZLIB Boost::json)
