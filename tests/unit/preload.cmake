# libtierpreload: the parsers and the allocator in-process (sanitized in the
# ASan build), and the real library under LD_PRELOAD in child processes
# (probe, stress, real programs), see docs/testing.md.
add_subdirectory(${CMAKE_CURRENT_SOURCE_DIR}/preload ${CMAKE_CURRENT_BINARY_DIR}/preload)

set(TIER_PRELOAD_TEST_DEFS
  TIER_PRELOAD_LIB="$<TARGET_FILE:tierpreload>"
  TIER_PRELOAD_PROBE="$<TARGET_FILE:preload_probe>"
  TIER_PRELOAD_STRESS="$<TARGET_FILE:preload_stress>"
  TIER_PRELOAD_STRESS_CORE="$<TARGET_FILE:preload_stress_core>"
  TIER_PRELOAD_HOLD="$<TARGET_FILE:tier-alloc-hold>"
  TIER_TIERCTL="$<TARGET_FILE:tierctl>"
  TIER_PRELOAD_SCRIPTS="${PROJECT_SOURCE_DIR}/tests/preload")

tier_unit_test(preload_core_test unit/preload_core_test.cpp $<TARGET_OBJECTS:preload_checks>)
target_link_libraries(preload_core_test PRIVATE tierpreload_core)
target_compile_definitions(preload_core_test PRIVATE ${TIER_PRELOAD_TEST_DEFS})
add_dependencies(preload_core_test preload_stress_core)

tier_unit_test(preload_test unit/preload_test.cpp RELEASE)
target_compile_definitions(preload_test PRIVATE ${TIER_PRELOAD_TEST_DEFS})
add_dependencies(preload_test tierpreload preload_probe preload_stress tier-alloc-hold tierctl)
target_include_directories(preload_core_test PRIVATE ${PROJECT_SOURCE_DIR}/tests/preload)
