# BpfObject.cmake: turn `*.bpf.c` sources into CO-RE BPF objects and libbpf
# skeleton headers, exposed through one INTERFACE target C++ code links to.
#
#   tier_add_bpf_skeletons(<target> SOURCES a.bpf.c b.bpf.c ...)
#
# For every `name.bpf.c` this generates, in the build tree:
#   vmlinux/vmlinux.h        kernel types, dumped once from the build machine's BTF
#   name.bpf.o               clang -target bpf -g -O2 -D__TARGET_ARCH_<arch>
#   skel/name.skel.h         bpftool gen skeleton (struct name_bpf, name_bpf__open() ...)
# and <target> adds skel/ as a SYSTEM include dir (the generated code uses C
# casts our -Werror flags would reject) and links libbpf.
#
# CO-RE means the objects are relocated against the *running* kernel's BTF at
# load time, so the vmlinux.h of the build machine only has to contain the
# types; it does not pin the kernel version the binary runs on.
include_guard(GLOBAL)

find_package(PkgConfig REQUIRED)
pkg_check_modules(LIBBPF REQUIRED IMPORTED_TARGET GLOBAL libbpf)
find_program(TIER_BPF_CLANG NAMES clang clang-14 REQUIRED
             DOC "clang able to emit -target bpf")
# Debian installs bpftool in /usr/sbin, which is not on a normal user's PATH.
find_program(TIER_BPFTOOL NAMES bpftool PATHS /usr/sbin /sbin /usr/local/sbin REQUIRED
             DOC "bpftool for vmlinux.h and skeleton generation")
find_program(TIER_LLVM_STRIP NAMES llvm-strip llvm-strip-14 DOC "strips DWARF from BPF objects")

set(TIER_BTF_FILE "/sys/kernel/btf/vmlinux" CACHE FILEPATH
    "Kernel BTF that vmlinux.h is generated from (any kernel with the types the programs use)")

if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
  set(_tier_bpf_arch x86)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "aarch64|arm64")
  set(_tier_bpf_arch arm64)
else()
  message(FATAL_ERROR "BpfObject.cmake: no __TARGET_ARCH_ mapping for ${CMAKE_SYSTEM_PROCESSOR}")
endif()

function(_tier_bpf_vmlinux_h out_var)
  set(dir "${CMAKE_BINARY_DIR}/ebpf-gen/vmlinux")
  set(header "${dir}/vmlinux.h")
  if(NOT TARGET tier_bpf_vmlinux_h)
    if(NOT EXISTS "${TIER_BTF_FILE}")
      message(FATAL_ERROR
        "eBPF build: no kernel BTF at ${TIER_BTF_FILE}, so vmlinux.h cannot be generated.\n"
        "Build on a kernel with CONFIG_DEBUG_INFO_BTF=y, or point -DTIER_BTF_FILE=<path> at a "
        "BTF blob (e.g. copied from /sys/kernel/btf/vmlinux of another machine).")
    endif()
    # Write to a temporary and rename, so an interrupted dump never leaves a
    # truncated vmlinux.h that later builds would treat as up to date.
    add_custom_command(
      OUTPUT "${header}"
      COMMAND ${CMAKE_COMMAND} -E make_directory "${dir}"
      COMMAND sh -c "\"$0\" btf dump file \"$1\" format c > \"$2.tmp\" && mv \"$2.tmp\" \"$2\""
              "${TIER_BPFTOOL}" "${TIER_BTF_FILE}" "${header}"
      DEPENDS "${TIER_BTF_FILE}"
      COMMENT "Generating vmlinux.h from ${TIER_BTF_FILE}"
      VERBATIM)
    add_custom_target(tier_bpf_vmlinux_h DEPENDS "${header}")
  endif()
  set(${out_var} "${header}" PARENT_SCOPE)
endfunction()

function(tier_add_bpf_skeletons target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "SOURCES")
  if(NOT arg_SOURCES)
    message(FATAL_ERROR "tier_add_bpf_skeletons(${target}): no SOURCES")
  endif()
  _tier_bpf_vmlinux_h(vmlinux_h)
  get_filename_component(vmlinux_dir "${vmlinux_h}" DIRECTORY)
  set(skel_dir "${CMAKE_CURRENT_BINARY_DIR}/skel")
  set(obj_dir "${CMAKE_CURRENT_BINARY_DIR}/obj")

  set(skeletons)
  foreach(src IN LISTS arg_SOURCES)
    get_filename_component(src "${src}" ABSOLUTE)
    get_filename_component(file "${src}" NAME)
    string(REGEX REPLACE "\\.bpf\\.c$" "" name "${file}")
    if(name STREQUAL file)
      message(FATAL_ERROR "tier_add_bpf_skeletons: ${src} does not end in .bpf.c")
    endif()
    set(obj "${obj_dir}/${name}.bpf.o")
    set(skel "${skel_dir}/${name}.skel.h")

    set(strip_cmd)
    if(TIER_LLVM_STRIP)
      # DWARF is only for humans; the skeleton embeds the object, BTF stays.
      set(strip_cmd COMMAND "${TIER_LLVM_STRIP}" -g "${obj}")
    endif()
    add_custom_command(
      OUTPUT "${obj}"
      COMMAND ${CMAKE_COMMAND} -E make_directory "${obj_dir}"
      COMMAND "${TIER_BPF_CLANG}" -g -O2 -target bpf -D__TARGET_ARCH_${_tier_bpf_arch}
              -Wall -Werror -I "${vmlinux_dir}" -I "${CMAKE_CURRENT_SOURCE_DIR}"
              -MD -MF "${obj}.d" -c "${src}" -o "${obj}"
      ${strip_cmd}
      DEPENDS "${src}" "${vmlinux_h}"
      DEPFILE "${obj}.d"
      COMMENT "BPF object ${name}.bpf.o"
      VERBATIM)
    add_custom_command(
      OUTPUT "${skel}"
      COMMAND ${CMAKE_COMMAND} -E make_directory "${skel_dir}"
      COMMAND sh -c "\"$0\" gen skeleton \"$1\" name \"$2\" > \"$3.tmp\" && mv \"$3.tmp\" \"$3\""
              "${TIER_BPFTOOL}" "${obj}" "${name}_bpf" "${skel}"
      DEPENDS "${obj}"
      COMMENT "BPF skeleton ${name}.skel.h"
      VERBATIM)
    list(APPEND skeletons "${skel}")
  endforeach()

  add_custom_target(${target}_gen DEPENDS ${skeletons})
  add_dependencies(${target}_gen tier_bpf_vmlinux_h)
  add_library(${target} INTERFACE)
  target_include_directories(${target} SYSTEM INTERFACE "${skel_dir}")
  target_link_libraries(${target} INTERFACE PkgConfig::LIBBPF)
  # Interface libraries pass their dependencies on to every consumer, so a
  # C++ file including a skeleton is compiled only after it was generated.
  add_dependencies(${target} ${target}_gen)
endfunction()
