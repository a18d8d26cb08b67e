# Kubernetes-shaped discovery (daemon/workloads/kubepods, pod_overrides):
# kubepods trees of both cgroup drivers built in a scratch dir, the pod
# override file, and tests/fixtures/kubepods/make-tree.sh (also on the real
# cgroup2 mount when writable: the tree is removed again, even on failure).
tier_unit_test(kubepods_test unit/kubepods_test.cpp)
target_link_libraries(kubepods_test PRIVATE tierd_workloads)
# docs/tierd-daemonset.yaml: structure, and its ConfigMap's tierd.toml through
# tierd's real parser (YAML read by python3-yaml: no C++ YAML library here).
tier_unit_test(k8s_manifest_test unit/k8s_manifest_test.cpp)
target_link_libraries(k8s_manifest_test PRIVATE tierd_core Boost::json)
target_compile_definitions(k8s_manifest_test PRIVATE TIER_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
