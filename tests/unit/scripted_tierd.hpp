// A scripted tierd for tierctl's tests: the daemon's own ControlServer on a
// thread, answering each method with a canned result or error and recording
// what it was sent. tierctl talks to it over a real socket exactly as to
// tierd (docs/api.md); only the answers are scripted.
#pragma once

#include <boost/asio.hpp>
#include <boost/json.hpp>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "control_server.hpp"
#include "tier/protocol/control_protocol.hpp"

namespace tier::test {

namespace json = boost::json;

/// tierd's ControlServer on its own thread. Methods are registered before
/// start(); each handler records the params it received.
class ScriptedDaemon {
 public:
  explicit ScriptedDaemon(const std::filesystem::path& socket)
      : server_(std::make_unique<tierd::ControlServer>(io_, socket.string())) {}
  ~ScriptedDaemon() {
    io_.stop();
    if (thread_.joinable()) thread_.join();
    server_.reset();
  }
  ScriptedDaemon(const ScriptedDaemon&) = delete;
  ScriptedDaemon& operator=(const ScriptedDaemon&) = delete;

  void reply(const std::string& method, json::value result) {
    server_->add_method(method, tierd::ControlServer::Access::read,
                        [this, method, result](const json::value& params, const tierd::Peer&) {
                          record(method, params);
                          return result;
                        });
  }
  /// An error reply with that code, as tierd's handlers throw it.
  void fail(const std::string& method, const std::string& message,
            tier::control::ErrorCode code = tier::control::ErrorCode::not_found) {
    server_->add_method(method, tierd::ControlServer::Access::read,
                        [this, method, message, code](const json::value& params,
                                                      const tierd::Peer&) -> json::value {
                          record(method, params);
                          throw tier::control::Error(code, message);
                        });
  }
  void start() {
    server_->start();
    thread_ = std::thread([this] { io_.run(); });
  }
  /// The params of the last `method` request; "none" when there was none.
  json::value received(const std::string& method) const {
    std::lock_guard lock(mutex_);
    auto it = received_.find(method);
    return it == received_.end() ? json::value("none") : it->second;
  }
  int calls() const {
    std::lock_guard lock(mutex_);
    return static_cast<int>(requests_.size());
  }
  /// Every request's method and params, in arrival order.
  std::vector<std::pair<std::string, json::value>> requests() const {
    std::lock_guard lock(mutex_);
    return requests_;
  }

 private:
  void record(const std::string& method, const json::value& params) {
    std::lock_guard lock(mutex_);
    received_[method] = params;
    requests_.emplace_back(method, params);
  }

  boost::asio::io_context io_;
  std::unique_ptr<tierd::ControlServer> server_;
  std::thread thread_;
  mutable std::mutex mutex_;
  std::map<std::string, json::value> received_;
  std::vector<std::pair<std::string, json::value>> requests_;
};

}  // namespace tier::test
