# Kernel tiering detection (libtier/src/kernel_tiering/) and its part of
# `tierctl doctor`. Included from tests/CMakeLists.txt. The live test reads
# kernel.numa_balancing, which other tests flip: hold their lock.
tier_unit_test(kernel_tiering_test unit/kernel_tiering_test.cpp LOCKS numa_balancing)
add_dependencies(kernel_tiering_test tierctl)
