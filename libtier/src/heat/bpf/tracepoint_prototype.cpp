// tracepoint_arg_count(): a tracepoint's argument count read from kernel BTF,
// where `btf_trace_<name>` is a typedef of void (*)(void *__data, args...).
#include <bpf/btf.h>

#include <cerrno>

#include "tier/heat/bpf_sources.hpp"

namespace tier::heat {

int tracepoint_arg_count(const std::string& name, const std::string& btf_path) {
  btf* types = btf_path.empty() ? btf__load_vmlinux_btf() : btf__parse(btf_path.c_str(), nullptr);
  if (types == nullptr) return -errno;
  int count = -ENOENT;
  __s32 id = btf__find_by_name_kind(types, ("btf_trace_" + name).c_str(), BTF_KIND_TYPEDEF);
  if (id > 0) {
    const btf_type* type = btf__type_by_id(types, btf__type_by_id(types, id)->type);
    if (type != nullptr && btf_is_ptr(type)) type = btf__type_by_id(types, type->type);
    if (type != nullptr && btf_is_func_proto(type) && btf_vlen(type) > 0) {
      count = btf_vlen(type) - 1;
    }
  }
  btf__free(types);
  return count;
}

}  // namespace tier::heat
