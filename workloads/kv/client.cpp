#include "client.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "value.hpp"

namespace tier_kv {
namespace {

using tier_workloads::LatencyHistogram;

// Wrong values are described on stderr, the first few of each phase only
// (over all threads), so a server that lost everything does not bury the
// final line under a million lines, and the verification's own findings
// show however many the run phase had.
constexpr unsigned kShownBad = 10;
std::atomic<unsigned> shown_in_run{0}, shown_in_verification{0};

void show_bad(std::atomic<unsigned>& shown, const std::string& what) {
  if (shown.fetch_add(1) < kShownBad) std::fprintf(stderr, "tier-kv: %s\n", what.c_str());
}

std::uint64_t now_ns() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::steady_clock::now().time_since_epoch())
                                        .count());
}

std::string_view key_view(const char* key) {
  return {key, kKeyLength};
}

// Why a GET reply of key `id` is not an acceptable value in `range`; empty
// when it is. An error reply is not data: it throws.
std::string wrong_reply(const Connection& c, const Reply& r, std::uint32_t id, std::size_t size,
                        VersionRange range) {
  switch (r.type) {
    case Reply::Type::bulk:
      return wrong_value(r.text, id, size, range.lo, range.hi);
    case Reply::Type::nil:
      return "nothing (nil)";
    case Reply::Type::error:
      throw KvError(c.address() + ": server answered " + describe(r));
    default:
      return "a reply of type " + std::string(type_name(r.type));
  }
}

void expect_ok(const Connection& c, const Reply& r) {
  if (r.type != Reply::Type::simple || r.text != "OK") {
    throw KvError(c.address() + ": server answered " + describe(r));
  }
}

}  // namespace

unsigned batch_size(unsigned pipeline, std::size_t value_size) {
  const std::size_t by_bytes = std::max<std::size_t>(1, (std::size_t{1} << 20) / value_size);
  return static_cast<unsigned>(std::min<std::size_t>(pipeline, by_bytes));
}

void load_keys(Connection& c, const Keyspace& ks, unsigned owner, std::size_t value_size,
               unsigned batch) {
  std::string command, value;
  char key[kKeyLength];
  Reply reply;
  std::uint32_t id = owner;
  while (id < ks.keys()) {
    command.clear();
    const std::uint32_t first = id;
    unsigned n = 0;
    for (; n < batch && id < ks.keys(); ++n, id += ks.owners()) {
      write_key(id, key);
      make_value(id, 0, value_size, value);
      append_command(command, {"SET", key_view(key), value});
    }
    try {
      c.send(command);
      for (unsigned i = 0; i < n; ++i) {
        c.receive(reply);
        expect_ok(c, reply);
      }
    } catch (const KvError& e) {
      throw KvError("connection " + std::to_string(owner) + ", SET " + key_name(first) +
                    " (loading, with the next " + std::to_string(n - 1) +
                    " of its keys): " + e.what());
    }
  }
}

Worker::Worker(unsigned index, Keyspace& ks, std::size_t value_size, double write_fraction,
               std::uint64_t seed)
    : index_(index),
      ks_(ks),
      value_size_(value_size),
      write_fraction_(write_fraction),
      seed_(seed) {}

void Worker::take_interval(LatencyHistogram& into) {
  std::lock_guard lock(interval_mutex_);
  into.merge(interval_);
  interval_.clear();
}

void Worker::run(Connection& c, const std::atomic<bool>& stop) {
  Rng rng(seed_ * 0x9e3779b97f4a7c15ull + index_ + 1);
  std::string command, value;
  char key[kKeyLength];
  Reply reply;
  bool write = false;
  std::uint32_t id = 0;
  try {
    while (!stop.load(std::memory_order_relaxed)) {
      write = write_fraction_ > 0 && rng.unit() < write_fraction_;
      command.clear();
      std::uint32_t before = 0;
      if (write) {
        id = ks_.draw_own(index_, rng.unit());
        const std::uint32_t version = ks_.published(id) + 1;
        write_key(id, key);
        make_value(id, version, value_size_, value);
        append_command(command, {"SET", key_view(key), value});
        ks_.publish(id, version);  // before the SET leaves: readers may see it at once
      } else {
        id = ks_.draw_any(rng.unit());
        write_key(id, key);
        append_command(command, {"GET", key_view(key)});
        before = ks_.published(id);
      }
      const std::uint64_t t0 = now_ns();
      c.send(command);
      c.receive(reply);
      const std::uint64_t ns = now_ns() - t0;
      {
        std::lock_guard lock(interval_mutex_);
        interval_.record(ns);
      }
      total_.record(ns);
      if (write) {
        expect_ok(c, reply);
        ++sets_;
        continue;
      }
      ++gets_;
      const bool own = ks_.owner(id) == index_;
      const std::string wrong =
          wrong_reply(c, reply, id, value_size_, read_range(before, ks_.published(id), own));
      if (!wrong.empty()) {
        ++bad_;
        show_bad(shown_in_run, "connection " + std::to_string(index_) + ": GET " + key_name(id) +
                                   " found " + wrong);
      }
    }
  } catch (const KvError& e) {
    error_ = "connection " + std::to_string(index_) + ", " + (write ? "SET " : "GET ") +
             key_name(id) + ": " + e.what();
    if (write) in_doubt_ = id;
  }
}

void verify_all(Connection& c, const Keyspace& ks, std::size_t value_size, unsigned batch,
                const std::vector<std::uint32_t>& in_doubt, Verification& out) {
  std::vector<bool> doubtful(ks.keys(), false);
  for (std::uint32_t id : in_doubt) doubtful[id] = true;
  std::string command;
  char key[kKeyLength];
  Reply reply;
  for (std::uint32_t first = 0; first < ks.keys(); first += batch) {
    const std::uint32_t end = std::min<std::uint32_t>(ks.keys(), first + batch);
    command.clear();
    for (std::uint32_t id = first; id < end; ++id) {
      write_key(id, key);
      append_command(command, {"GET", key_view(key)});
    }
    std::uint32_t id = first;
    try {
      c.send(command);
      for (; id < end; ++id) {
        c.receive(reply);
        const std::uint32_t v = ks.published(id);
        const VersionRange range{doubtful[id] && v > 0 ? v - 1 : v, v};
        const std::string wrong = wrong_reply(c, reply, id, value_size, range);
        ++out.keys;
        out.bytes += reply.type == Reply::Type::bulk ? reply.text.size() : 0;
        if (wrong.empty()) continue;
        ++out.bad;
        show_bad(shown_in_verification, "verification: " + key_name(id) + " holds " + wrong);
      }
    } catch (const KvError& e) {
      throw KvError("verification, GET " + key_name(id) + ": " + e.what());
    }
  }
}

}  // namespace tier_kv
