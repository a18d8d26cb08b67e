# Kernel page-tracking heat sources (DAMON vaddr, soft-dirty, idle page)
# against fixture trees, plus their live availability probes. Included from
# tests/CMakeLists.txt.
tier_unit_test(heat_kernel_test
  unit/heat_kernel_damon_test.cpp
  unit/heat_kernel_soft_dirty_test.cpp
  unit/heat_kernel_idle_page_test.cpp
  GUEST)
