# Heat from eBPF: the page-fault source, run time per node and the kernel's
# migration counter (libtier/src/heat/bpf/), loading ebpf/page_fault.bpf.c,
# sched_node.bpf.c and kernel_migrations.bpf.c through their skeletons
# (tier_bpf_skeletons). ebpf/ is an include dir for the shared tier_events.h.
# Included from libtier/CMakeLists.txt.
target_sources(tier PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/src/heat/bpf/libbpf_log.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/heat/bpf/classic_tracepoint.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/heat/bpf/hook_chain.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/heat/bpf/hook_labels.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/heat/bpf/tracked_processes.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/heat/bpf/bpf_fault_source.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/heat/bpf/bpf_fault_availability.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/heat/bpf/bpf_run_time_tracker.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/heat/bpf/bpf_migration_counter.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/heat/bpf/tracepoint_prototype.cpp
)
target_include_directories(tier PRIVATE ${PROJECT_SOURCE_DIR}/ebpf)
target_link_libraries(tier PRIVATE tier_bpf_skeletons)
