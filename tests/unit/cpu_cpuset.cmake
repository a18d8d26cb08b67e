# Cpuset backends: the pure write plan (replayed on a model of the kernel's
# rules) and the backends on this host's kernel (real cgroups, real
# affinity; they hold the `cpuset` lock). Included from tests/CMakeLists.txt.
tier_unit_test(cpuset_plan_test unit/cpuset_plan_test.cpp)
target_include_directories(cpuset_plan_test PRIVATE ${PROJECT_SOURCE_DIR}/libtier/src)
tier_unit_test(cpuset_backend_test unit/cpuset_backend_test.cpp LOCKS cpuset)
