// tier-kv: the suite's key-value service workload (docs/workload-suite.md
// "tier-kv"). The server is a real redis-server, placed by the harness; this
// is its client, speaking RESP over --threads connections:
//   connect → load --keys values (client.hpp) → ready line
//     {"pid":P,"keys":N,"value_size":B,"dataset_bytes":..,"load_s":S,
//      "used_memory":M,"server":"unix:/..","ready":true}
//   → --start-file → closed-loop GET/SET for --duration (interval lines with
//   ops and p50/p99) → workers stop → every key verified → the final line
//   (report.hpp) with p50/p99/p999 and the extras keys, value_size,
//   write_fraction, theta, threads, gets, sets, server_used_memory, ...
// Exit 0; 1 when a value was wrong (bad > 0) or the server failed (errors >
// 0: vanished, stalled past --timeout, answered an error); 2 on bad usage.
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <atomic>
#include <boost/json/object.hpp>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "client.hpp"
#include "options.hpp"
#include "report.hpp"
#include "run_control.hpp"
#include "tier/json/json_text.hpp"
#include "tier/posix/error.hpp"

namespace {

using namespace tier_kv;
namespace suite = tier_workloads;

void complain(const std::string& what) {
  std::fprintf(stderr, "tier-kv: %s\n", what.c_str());
}

// Each connection in its own thread, pinned by --cpus; `body(i)` returns an
// error message or "".
template <class Body>
std::vector<std::string> in_parallel(const Options& o, Body body) {
  std::vector<std::string> errors(o.suite.threads);
  std::vector<std::thread> threads;
  for (unsigned i = 0; i < o.suite.threads; ++i) {
    threads.emplace_back([&, i] {
      if (!suite::pin_thread(o.suite.cpus, i)) {
        errors[i] = "connection " + std::to_string(i) + ": cannot pin to CPU " +
                    std::to_string(o.suite.cpus.ids()[i % o.suite.cpus.size()]) + ": " +
                    tier::posix::errno_text(errno);
        return;
      }
      errors[i] = body(i);
    });
  }
  for (auto& t : threads) t.join();
  return errors;
}

// Prints the failures; returns how many there were.
unsigned report_errors(const std::vector<std::string>& errors) {
  unsigned n = 0;
  for (const auto& e : errors) {
    if (e.empty()) continue;
    complain(e);
    ++n;
  }
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse_options(argc, argv);
  // A harness killed by its time limit must not leave a client looping.
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  suite::RunControl control;  // before any thread: the signal mask
  std::unique_ptr<suite::Report> report;
  try {
    report = std::make_unique<suite::Report>(o.suite.report, "kv", "requests");
  } catch (const std::runtime_error& e) {
    complain(e.what());
    return 1;
  }

  Keyspace ks(o.keys, o.suite.threads, o.theta, o.suite.seed);
  const unsigned batch = batch_size(o.pipeline, o.value_size);
  std::vector<std::unique_ptr<Connection>> connections(o.suite.threads);
  const double load_start = suite::monotonic_s();
  const auto load_errors = in_parallel(o, [&](unsigned i) -> std::string {
    try {
      connections[i] = std::make_unique<Connection>(o.server, o.timeout_s);
    } catch (const KvError& e) {
      return "connection " + std::to_string(i) + ", connecting: " + e.what();
    }
    try {
      load_keys(*connections[i], ks, i, o.value_size, batch);
      return {};
    } catch (const KvError& e) {
      return e.what();
    }
  });
  if (report_errors(load_errors) > 0) return 1;
  const double load_s = suite::monotonic_s() - load_start;

  boost::json::object ready;
  ready["pid"] = getpid();
  ready["keys"] = o.keys;
  ready["value_size"] = o.value_size;
  ready["dataset_bytes"] = std::uint64_t{o.keys} * o.value_size;
  ready["load_s"] = load_s;
  try {
    ready["used_memory"] = used_memory(*connections[0]);
  } catch (const KvError& e) {
    complain("after loading, " + std::string(e.what()));
    return 1;
  }
  ready["server"] = o.server.name();
  ready["threads"] = o.suite.threads;
  ready["ready"] = true;
  if (!control.ready(o.suite, tier::json_text(ready))) return 1;
  if (!control.wait_start(o.suite)) return 0;

  std::vector<std::unique_ptr<Worker>> workers;
  for (unsigned i = 0; i < o.suite.threads; ++i) {
    workers.push_back(
        std::make_unique<Worker>(i, ks, o.value_size, o.write_fraction, o.suite.seed));
  }
  std::vector<std::string> run_errors;
  std::thread runner([&] {
    run_errors = in_parallel(o, [&](unsigned i) -> std::string {
      workers[i]->run(*connections[i], control.stopping());
      if (!workers[i]->error().empty()) suite::RunControl::stop();
      return workers[i]->error();
    });
  });
  double last_t = 0;
  const double seconds = control.run(o.suite, [&](double t) {
    suite::LatencyHistogram interval;
    for (auto& w : workers) w->take_interval(interval);
    report->interval(t, interval.count(), t - last_t, &interval);
    last_t = t;
  });
  runner.join();
  unsigned errors = report_errors(run_errors);
  connections.clear();

  suite::LatencyHistogram latency;
  std::uint64_t gets = 0, sets = 0, bad_reads = 0;
  std::vector<std::uint32_t> in_doubt;
  for (const auto& w : workers) {
    latency.merge(w->latency());
    gets += w->gets();
    sets += w->sets();
    bad_reads += w->bad();
    if (w->in_doubt()) in_doubt.push_back(*w->in_doubt());
  }

  Verification verified;
  boost::json::value server_memory = nullptr;
  std::unique_ptr<Connection> checker;
  try {
    checker = std::make_unique<Connection>(o.server, o.timeout_s);
    verify_all(*checker, ks, o.value_size, batch, in_doubt, verified);
    server_memory = used_memory(*checker);
  } catch (const KvError& e) {
    complain((checker ? "" : "verification, connecting: ") + std::string(e.what()));
    ++errors;
  }

  suite::Report::Final f;
  f.ops = gets + sets;
  f.seconds = seconds;
  f.latency = &latency;
  f.verified = verified.keys;
  f.verified_unit = "keys";
  f.bad = bad_reads + verified.bad;
  f.extra["keys"] = o.keys;
  f.extra["value_size"] = o.value_size;
  f.extra["write_fraction"] = o.write_fraction;
  f.extra["dist"] = o.theta > 0 ? "zipf" : "uniform";
  f.extra["theta"] = o.theta;
  f.extra["threads"] = o.suite.threads;
  f.extra["gets"] = gets;
  f.extra["sets"] = sets;
  f.extra["verified_bytes"] = verified.bytes;
  f.extra["bad_reads"] = bad_reads;
  f.extra["bad_at_exit"] = verified.bad;
  f.extra["unverified_keys"] = o.keys - verified.keys;
  f.extra["errors"] = errors;
  f.extra["server"] = o.server.name();
  f.extra["server_used_memory"] = server_memory;
  f.extra["load_s"] = load_s;
  report->final(f);
  return f.bad > 0 || errors > 0 ? 1 : 0;
}
