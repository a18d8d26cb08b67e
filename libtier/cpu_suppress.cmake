# Offline suppression's kernel side (docs/suppression.md): per-CPU busy
# fractions from /proc/stat and IRQ isolation through /proc/irq. The
# controller itself is pure and lives in tier_policies.
# Included from libtier/CMakeLists.txt after the `tier` target exists.
target_sources(tier PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/src/cpu/cpu_usage.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/cpu/irq_affinity.cpp
)
