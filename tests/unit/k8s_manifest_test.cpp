// docs/tierd-daemonset.yaml holds together: every document is a Kubernetes
// object, the DaemonSet's selector, volumes, command and probe agree with
// each other, and — the point — the ConfigMap's tierd.toml is accepted by
// tierd's own configuration parser and names the paths the DaemonSet mounts.
//
// No YAML library for C++ is installed (no yaml-cpp); python3-yaml is, so the
// manifest is turned into JSON by `python3 -c 'yaml.safe_load_all'` and read
// with Boost.JSON. Without python3-yaml the tests skip and say why.
#include <algorithm>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <boost/json.hpp>

#include "config.hpp"
#include "test_support.hpp"

namespace {

namespace json = boost::json;

const std::string kManifest = std::string(TIER_SOURCE_DIR) + "/docs/tierd-daemonset.yaml";

// The manifest's documents as JSON; nullopt (and `why`) when python3-yaml is missing.
std::optional<json::array> load_manifest(std::string& why) {
  const tier::test::CommandResult result = tier::test::run_command(
      {"python3", "-c",
       "import json, sys, yaml\n"
       "json.dump(list(yaml.safe_load_all(open(sys.argv[1]))), sys.stdout)\n",
       kManifest});
  if (result.exit_code != 0) {
    if (result.err.find("No module named 'yaml'") != std::string::npos || result.exit_code == 127) {
      why = "python3-yaml is not installed: " + result.err;
      return std::nullopt;
    }
    ADD_FAILURE() << kManifest << " is not valid YAML: " << result.err;
    return json::array{};
  }
  return json::parse(result.out).as_array();
}

class Manifest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    auto docs = load_manifest(why);
    if (!docs) GTEST_SKIP() << why;
    docs_ = std::move(*docs);
  }

  /// The one document of this kind (fails the test when there is not exactly one).
  const json::object& only(const std::string& kind) {
    const json::object* found = nullptr;
    int count = 0;
    for (const json::value& doc : docs_) {
      if (doc.is_object() && doc.as_object().contains("kind") && doc.at("kind") == kind.c_str()) {
        found = &doc.as_object();
        ++count;
      }
    }
    EXPECT_EQ(count, 1) << "documents of kind " << kind;
    static const json::object empty;
    return found != nullptr ? *found : empty;
  }

  json::array docs_;
};

// A string member or "" (a missing one shows up as a failed comparison).
std::string text(const json::value* value) {
  return value != nullptr && value->is_string() ? std::string(value->as_string()) : "";
}

std::vector<std::string> strings(const json::value* value) {
  std::vector<std::string> out;
  if (value == nullptr || !value->is_array()) return out;
  for (const json::value& item : value->as_array()) out.push_back(text(&item));
  return out;
}

TEST_F(Manifest, EveryDocumentIsAKubernetesObject) {
  ASSERT_EQ(docs_.size(), 4u);
  for (const json::value& doc : docs_) {
    ASSERT_TRUE(doc.is_object());
    EXPECT_FALSE(text(doc.as_object().if_contains("apiVersion")).empty()) << doc;
    EXPECT_FALSE(text(doc.as_object().if_contains("kind")).empty()) << doc;
    const json::value* metadata = doc.as_object().if_contains("metadata");
    ASSERT_TRUE(metadata != nullptr && metadata->is_object()) << doc;
    EXPECT_FALSE(text(metadata->as_object().if_contains("name")).empty()) << doc;
  }
  // Namespaced objects live in the manifest's own Namespace.
  const std::string ns = text(only("Namespace").at("metadata").as_object().if_contains("name"));
  for (const char* kind : {"ServiceAccount", "ConfigMap", "DaemonSet"}) {
    EXPECT_EQ(text(only(kind).at("metadata").as_object().if_contains("namespace")), ns) << kind;
  }
}

TEST_F(Manifest, DaemonSetHangsTogether) {
  const json::object& ds = only("DaemonSet");
  EXPECT_EQ(text(ds.if_contains("apiVersion")), "apps/v1");
  const json::value& spec = ds.at("spec");
  EXPECT_EQ(spec.at("selector").at("matchLabels"), spec.at("template").at("metadata").at("labels"));
  const json::value& pod = spec.at("template").at("spec");
  EXPECT_EQ(pod.at("hostPID"), true);
  EXPECT_EQ(text(pod.as_object().if_contains("serviceAccountName")),
            text(only("ServiceAccount").at("metadata").as_object().if_contains("name")));
  EXPECT_TRUE(pod.as_object().contains("tolerations"));

  std::vector<std::string> volumes;
  for (const json::value& volume : pod.at("volumes").as_array()) {
    volumes.push_back(text(volume.as_object().if_contains("name")));
  }
  const json::array& containers = pod.at("containers").as_array();
  ASSERT_FALSE(containers.empty());
  for (const json::value& container : containers) {
    SCOPED_TRACE(text(container.as_object().if_contains("name")));
    EXPECT_FALSE(text(container.as_object().if_contains("image")).empty());
    EXPECT_FALSE(strings(container.as_object().if_contains("command")).empty());
    for (const json::value& mount : container.at("volumeMounts").as_array()) {
      const std::string name = text(mount.as_object().if_contains("name"));
      EXPECT_NE(std::find(volumes.begin(), volumes.end(), name), volumes.end())
          << "volumeMount '" << name << "' names no volume";
    }
  }
}

// The mount path of the volume `name` in the first container, "" when absent.
std::string mount_path(const json::value& container, const std::string& name) {
  for (const json::value& mount : container.at("volumeMounts").as_array()) {
    if (text(mount.as_object().if_contains("name")) == name) {
      return text(mount.as_object().if_contains("mountPath"));
    }
  }
  return "";
}

// The name of the volume holding `kind` (a hostPath path or a ConfigMap name).
std::string volume_with(const json::value& pod, const char* kind, const char* field,
                        const std::string& value) {
  for (const json::value& volume : pod.at("volumes").as_array()) {
    const json::value* source = volume.as_object().if_contains(kind);
    if (source != nullptr && text(source->as_object().if_contains(field)) == value) {
      return text(volume.as_object().if_contains("name"));
    }
  }
  return "";
}

bool under(const std::string& path, const std::string& dir) {
  return !dir.empty() && path.compare(0, dir.size() + 1, dir + "/") == 0;
}

TEST_F(Manifest, ConfigMapIsAConfigTierdAcceptsAndTheDaemonSetMountsItsPaths) {
  const json::object& config_map = only("ConfigMap");
  const std::string toml = text(config_map.at("data").as_object().if_contains("tierd.toml"));
  ASSERT_FALSE(toml.empty()) << "ConfigMap has no data.tierd.toml";
  tierd::Config config;
  try {
    config = tierd::parse_config(toml, "tierd-daemonset.yaml:tierd.toml");
  } catch (const tierd::ConfigError& e) {
    FAIL() << "tierd rejects the ConfigMap's tierd.toml: " << e.what();
  }
  EXPECT_TRUE(config.pools.enabled) << "beside kubelet's `none` policy tierd owns the cpusets";

  const json::value& pod = only("DaemonSet").at("spec").at("template").at("spec");
  const json::value& tierd = pod.at("containers").as_array().at(0);
  // --config names the ConfigMap's key where the ConfigMap volume is mounted.
  const std::string config_volume = volume_with(
      pod, "configMap", "name", text(config_map.at("metadata").as_object().if_contains("name")));
  ASSERT_FALSE(config_volume.empty()) << "no volume mounts the ConfigMap";
  const std::vector<std::string> command = strings(tierd.as_object().if_contains("command"));
  const auto flag = std::find(command.begin(), command.end(), "--config");
  ASSERT_NE(flag, command.end());
  ASSERT_NE(flag + 1, command.end());
  EXPECT_EQ(*(flag + 1), mount_path(tierd, config_volume) + "/tierd.toml");
  EXPECT_NE(std::find(command.begin(), command.end(), "--foreground"), command.end());

  // The socket and the state file are on the host's directories, and the
  // liveness probe asks the socket tierd really listens on.
  EXPECT_TRUE(
      under(config.socket, mount_path(tierd, volume_with(pod, "hostPath", "path", "/run/tier"))))
      << config.socket;
  EXPECT_TRUE(under(config.state_path,
                    mount_path(tierd, volume_with(pod, "hostPath", "path", "/var/lib/tier"))))
      << config.state_path;
  const std::vector<std::string> probe =
      strings(tierd.at("livenessProbe").at("exec").as_object().if_contains("command"));
  EXPECT_THAT(probe, ::testing::ElementsAre(::testing::EndsWith("/tierctl"), "--socket",
                                            config.socket, "status"));
  // The host's cgroup tree and sysfs are where tierd looks for them.
  EXPECT_EQ(mount_path(tierd, volume_with(pod, "hostPath", "path", "/sys/fs/cgroup")),
            "/sys/fs/cgroup");
  EXPECT_EQ(mount_path(tierd, volume_with(pod, "hostPath", "path", "/sys")), "/sys");
  // The metrics port is the one the exporter listens on.
  const std::string port = config.metrics_listen.substr(config.metrics_listen.rfind(':') + 1);
  EXPECT_EQ(tierd.at("ports").as_array().at(0).at("containerPort"), std::stoi(port));
}

}  // namespace
