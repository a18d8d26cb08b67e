# eBPF heat programs and loaders: live tests on this kernel (root; they skip
# with the reason otherwise). Included from tests/CMakeLists.txt.
tier_unit_test(heat_bpf_test unit/heat_bpf_test.cpp RELEASE LOCKS numa_balancing)
# The prototype test writes small BTF blobs with libbpf's BTF writer.
target_link_libraries(heat_bpf_test PRIVATE PkgConfig::LIBBPF)
