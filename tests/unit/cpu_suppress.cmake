# Offline suppression (docs/suppression.md): the pure controller and cpuset
# choice (tier_policies), CPU use from /proc/stat (fixtures + one live
# reading), IRQ isolation on a fixture /proc/irq. Included from
# tests/CMakeLists.txt.
tier_unit_test(suppression_test unit/suppression_test.cpp)
target_link_libraries(suppression_test PRIVATE tier_policies)
tier_unit_test(cpu_usage_test unit/cpu_usage_test.cpp)
tier_unit_test(irq_affinity_test unit/irq_affinity_test.cpp)
