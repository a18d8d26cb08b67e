# Kubernetes-shaped discovery (daemon/workloads/kubepods, pod_overrides):
# kubepods trees of both cgroup drivers built in a scratch dir, the pod
# override file, and tests/fixtures/kubepods/make-tree.sh (also on the real
# cgroup2 mount when writable: the tree is removed again, even on failure).
tier_unit_test(kubepods_test unit/kubepods_test.cpp)
target_link_libraries(kubepods_test PRIVATE tierd_workloads)
