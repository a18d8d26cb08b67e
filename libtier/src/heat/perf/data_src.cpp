// Decoding of union perf_mem_data_src with the uapi codes (PERF_MEM_*). The
// field widths are taken from the union's bitfields; the value is decoded by
// shifting rather than through the bitfield union so it does not depend on the
// compiler's bitfield layout.
#include <linux/perf_event.h>

#include <string>

#include "tier/heat/perf_data_src.hpp"

namespace tier::heat::perf {

namespace {

std::uint64_t bits(std::uint64_t value, unsigned shift, unsigned width) {
  return (value >> shift) & ((std::uint64_t{1} << width) - 1);
}

// Field widths of union perf_mem_data_src (positions: PERF_MEM_*_SHIFT).
constexpr unsigned kOpWidth = 5, kLvlWidth = 14, kSnoopWidth = 5, kLockWidth = 2, kTlbWidth = 7;
constexpr unsigned kLvlNumWidth = 4, kSnoopXWidth = 2, kHopsWidth = 3;

MemOp decode_op(std::uint64_t op) {
  if (op & PERF_MEM_OP_LOAD) return MemOp::load;
  if (op & PERF_MEM_OP_STORE) return MemOp::store;
  if (op & PERF_MEM_OP_PFETCH) return MemOp::prefetch;
  if (op & PERF_MEM_OP_EXEC) return MemOp::exec;
  return MemOp::unknown;
}

MemLevel level_from_number(std::uint64_t lvl_num, bool remote) {
  switch (lvl_num) {
    case PERF_MEM_LVLNUM_L1:
      return MemLevel::l1;
    case PERF_MEM_LVLNUM_L2:
      return MemLevel::l2;
    case PERF_MEM_LVLNUM_L3:
      return remote ? MemLevel::remote_cache : MemLevel::l3;
    case PERF_MEM_LVLNUM_L4:
      return MemLevel::l4;
    case PERF_MEM_LVLNUM_CXL:
      return MemLevel::cxl;
    case PERF_MEM_LVLNUM_IO:
      return MemLevel::io;
    case PERF_MEM_LVLNUM_ANY_CACHE:
      return remote ? MemLevel::remote_cache : MemLevel::any_cache;
    case PERF_MEM_LVLNUM_LFB:
      return MemLevel::lfb;
    case PERF_MEM_LVLNUM_RAM:
      return remote ? MemLevel::remote_ram : MemLevel::local_ram;
    case PERF_MEM_LVLNUM_PMEM:
      return MemLevel::pmem;
    default:
      return MemLevel::unknown;  // 0, reserved codes, LVLNUM_NA
  }
}

// Legacy PERF_MEM_LVL_* bits: the most distant level named wins, as a sample
// is served from one place and some PMUs set the level they missed as well.
MemLevel level_from_legacy_bits(std::uint64_t lvl) {
  if (lvl & (PERF_MEM_LVL_REM_RAM1 | PERF_MEM_LVL_REM_RAM2)) return MemLevel::remote_ram;
  if (lvl & (PERF_MEM_LVL_REM_CCE1 | PERF_MEM_LVL_REM_CCE2)) return MemLevel::remote_cache;
  if (lvl & PERF_MEM_LVL_LOC_RAM) return MemLevel::local_ram;
  if (lvl & PERF_MEM_LVL_IO) return MemLevel::io;
  if (lvl & PERF_MEM_LVL_UNC) return MemLevel::uncached;
  if (lvl & PERF_MEM_LVL_L3) return MemLevel::l3;
  if (lvl & PERF_MEM_LVL_L2) return MemLevel::l2;
  if (lvl & PERF_MEM_LVL_LFB) return MemLevel::lfb;
  if (lvl & PERF_MEM_LVL_L1) return MemLevel::l1;
  return MemLevel::unknown;
}

MemSnoop decode_snoop(std::uint64_t snoop, std::uint64_t snoopx) {
  if (snoop & PERF_MEM_SNOOP_HITM) return MemSnoop::hit_modified;
  if (snoop & PERF_MEM_SNOOP_HIT) return MemSnoop::hit;
  if (snoop & PERF_MEM_SNOOP_MISS) return MemSnoop::miss;
  if (snoopx & PERF_MEM_SNOOPX_FWD) return MemSnoop::forward;
  if (snoopx & PERF_MEM_SNOOPX_PEER) return MemSnoop::peer;
  if (snoop & PERF_MEM_SNOOP_NONE) return MemSnoop::none;
  return MemSnoop::unknown;
}

MemTlb decode_tlb(std::uint64_t tlb) {
  MemTlb out;
  out.known = tlb != 0 && (tlb & PERF_MEM_TLB_NA) == 0;
  if (!out.known) return out;
  out.hit = (tlb & PERF_MEM_TLB_HIT) != 0;
  out.miss = (tlb & PERF_MEM_TLB_MISS) != 0;
  out.l1 = (tlb & PERF_MEM_TLB_L1) != 0;
  out.l2 = (tlb & PERF_MEM_TLB_L2) != 0;
  out.walker = (tlb & PERF_MEM_TLB_WK) != 0;
  out.os = (tlb & PERF_MEM_TLB_OS) != 0;
  return out;
}

}  // namespace

MemDataSource decode_data_src(std::uint64_t raw) {
  MemDataSource out;
  out.raw = raw;
  out.op = decode_op(bits(raw, PERF_MEM_OP_SHIFT, kOpWidth));
  std::uint64_t lvl = bits(raw, PERF_MEM_LVL_SHIFT, kLvlWidth);
  out.hit = (lvl & PERF_MEM_LVL_HIT) != 0;
  out.miss = (lvl & PERF_MEM_LVL_MISS) != 0;
  out.remote = bits(raw, PERF_MEM_REMOTE_SHIFT, 1) != 0;
  out.hops = static_cast<std::uint8_t>(bits(raw, PERF_MEM_HOPS_SHIFT, kHopsWidth));
  // Legacy remote levels say "remote" without the mem_remote bit.
  if (lvl & (PERF_MEM_LVL_REM_RAM1 | PERF_MEM_LVL_REM_RAM2 | PERF_MEM_LVL_REM_CCE1 |
             PERF_MEM_LVL_REM_CCE2)) {
    out.remote = true;
  }
  out.level = level_from_number(bits(raw, PERF_MEM_LVLNUM_SHIFT, kLvlNumWidth), out.remote);
  if (out.level == MemLevel::unknown) out.level = level_from_legacy_bits(lvl);
  out.snoop = decode_snoop(bits(raw, PERF_MEM_SNOOP_SHIFT, kSnoopWidth),
                           bits(raw, PERF_MEM_SNOOPX_SHIFT, kSnoopXWidth));
  out.locked = (bits(raw, PERF_MEM_LOCK_SHIFT, kLockWidth) & PERF_MEM_LOCK_LOCKED) != 0;
  out.tlb = decode_tlb(bits(raw, PERF_MEM_TLB_SHIFT, kTlbWidth));
  return out;
}

const char* to_string(MemOp op) {
  switch (op) {
    case MemOp::unknown:
      return "unknown";
    case MemOp::load:
      return "load";
    case MemOp::store:
      return "store";
    case MemOp::prefetch:
      return "prefetch";
    case MemOp::exec:
      return "exec";
  }
  return "unknown";
}

const char* to_string(MemLevel level) {
  switch (level) {
    case MemLevel::unknown:
      return "unknown";
    case MemLevel::l1:
      return "l1";
    case MemLevel::lfb:
      return "lfb";
    case MemLevel::l2:
      return "l2";
    case MemLevel::l3:
      return "l3";
    case MemLevel::l4:
      return "l4";
    case MemLevel::any_cache:
      return "any_cache";
    case MemLevel::remote_cache:
      return "remote_cache";
    case MemLevel::local_ram:
      return "local_ram";
    case MemLevel::remote_ram:
      return "remote_ram";
    case MemLevel::cxl:
      return "cxl";
    case MemLevel::pmem:
      return "pmem";
    case MemLevel::io:
      return "io";
    case MemLevel::uncached:
      return "uncached";
  }
  return "unknown";
}

const char* to_string(MemSnoop snoop) {
  switch (snoop) {
    case MemSnoop::unknown:
      return "unknown";
    case MemSnoop::none:
      return "none";
    case MemSnoop::hit:
      return "hit";
    case MemSnoop::miss:
      return "miss";
    case MemSnoop::hit_modified:
      return "hitm";
    case MemSnoop::forward:
      return "fwd";
    case MemSnoop::peer:
      return "peer";
  }
  return "unknown";
}

std::string describe(const MemDataSource& source) {
  std::string text = std::string(to_string(source.op)) + " " + to_string(source.level);
  if (source.hit) text += " hit";
  if (source.miss) text += " miss";
  if (source.remote) text += " remote";
  if (source.hops != 0) text += " hops=" + std::to_string(source.hops);
  if (source.snoop != MemSnoop::unknown) text += std::string(" snoop=") + to_string(source.snoop);
  if (source.locked) text += " locked";
  if (source.tlb.known) {
    std::string tlb;
    auto add = [&tlb](bool set, const char* name) {
      if (set) tlb += (tlb.empty() ? "" : ",") + std::string(name);
    };
    add(source.tlb.l1, "l1");
    add(source.tlb.l2, "l2");
    add(source.tlb.walker, "walker");
    add(source.tlb.os, "os");
    add(source.tlb.hit, "hit");
    add(source.tlb.miss, "miss");
    text += " tlb=" + tlb;
  }
  return text;
}

}  // namespace tier::heat::perf
