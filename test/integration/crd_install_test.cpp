// The gpupool.io CustomResourceDefinitions against a real kube-apiserver: they
// install and become Established, every sample in config/samples is accepted
// (client-side and server-side apply) and prints the contract's columns, the
// category and shortNames work, every apiserver case of
// test/data/invalid-objects.yaml is rejected naming its field (and every
// gpupoolctl-only case is accepted), defaults are applied, status is a
// subresource, and the CEL transition rules keep references immutable.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gpupool/common/log.h"
#include "support/cluster_fixture.h"
#include "support/kube_test_helpers.h"

namespace gpupool {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;
using testenv::CommandResult;

const fs::path kSourceDir = GPUPOOL_SOURCE_DIR;
const std::vector<std::string> kCrdNames = {"gpupools.gpupool.io", "gpupolicies.gpupool.io",
                                            "tenantquotas.gpupool.io", "gpunodes.gpupool.io"};

std::string crd_dir() { return (kSourceDir / "crds").string(); }

std::string join(const std::vector<std::string>& args) {
  std::string out;
  for (const auto& a : args) out += (out.empty() ? "" : " ") + a;
  return out;
}

// The sample manifests of gpupool.io objects (every .yaml in config/samples
// but the kustomization and namespaces.yaml, the tenants' namespaces: the test
// makes those itself, and deleting them would take the quotas' namespaces away).
std::vector<fs::path> sample_files() {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(kSourceDir / "config/samples")) {
    const auto name = e.path().filename();
    if (e.path().extension() == ".yaml" && name != "kustomization.yaml" && name != "namespaces.yaml") {
      files.push_back(e.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

// --- YAML to JSON, keeping quoted scalars strings ("1.5" stays a string) ----

bool looks_like(const std::string& s, const char* pattern) { return std::regex_match(s, std::regex(pattern)); }

std::string to_json(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      std::string out = "{";
      for (const auto& kv : node) {
        if (out.size() > 1) out += ",";
        out += "\"" + log::json_escape(kv.first.as<std::string>()) + "\":" + to_json(kv.second);
      }
      return out + "}";
    }
    case YAML::NodeType::Sequence: {
      std::string out = "[";
      for (const auto& item : node) {
        if (out.size() > 1) out += ",";
        out += to_json(item);
      }
      return out + "]";
    }
    case YAML::NodeType::Scalar: {
      const std::string s = node.Scalar();
      if (node.Tag() != "!") {  // plain (unquoted) scalar: resolve like YAML 1.2 core
        if (s == "null" || s == "~") return "null";
        if (s == "true" || s == "false") return s;
        if (looks_like(s, "-?(0|[1-9][0-9]*)")) return s;
        if (looks_like(s, "-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][-+]?[0-9]+)?")) return s;
      }
      return "\"" + log::json_escape(s) + "\"";
    }
    default:
      return "null";
  }
}

// --- the invalid-object table -------------------------------------------------

struct InvalidCase {
  std::string name;
  std::string description;
  std::set<std::string> rejected_by;
  std::string field;
  std::vector<YAML::Node> context;
  YAML::Node object;
  bool by_apiserver() const { return rejected_by.count("apiserver") != 0; }
};

std::vector<InvalidCase> load_invalid_cases() {
  std::vector<InvalidCase> out;
  YAML::Node root = YAML::LoadFile((kSourceDir / "test/data/invalid-objects.yaml").string());
  for (const auto& n : root) {
    InvalidCase c;
    c.name = n["name"].as<std::string>("");
    c.description = n["description"].as<std::string>("");
    for (const auto& r : n["rejectedBy"]) c.rejected_by.insert(r.as<std::string>());
    c.field = n["field"].as<std::string>("");
    for (const auto& ctx : n["context"]) c.context.push_back(ctx);
    c.object = n["object"];
    out.push_back(c);
  }
  return out;
}

// --- fixture ------------------------------------------------------------------

class CrdInstallTest : public test::ClusterTest {
 protected:
  void SetUp() override {
    ClusterTest::SetUp();
    if (HasFatalFailure()) return;
    install_crds();
  }

  void TearDown() override {
    // Cluster-scoped objects this test created, newest first.
    for (auto it = cleanup_.rbegin(); it != cleanup_.rend(); ++it) {
      CommandResult r = cluster().kubectl_result(*it);
      EXPECT_EQ(r.status, 0) << "cleanup: kubectl " << join(*it) << "\n" << r.err;
    }
    ClusterTest::TearDown();
  }

  static void TearDownTestSuite() {
    if (!installed_) return;
    // Removing the CRDs removes every object of their kinds with them.
    test::shared_cluster().kubectl_result({"delete", "-f", crd_dir(), "--ignore-not-found", "--wait=false"});
    installed_ = false;
  }

  void install_crds() {
    if (installed_) return;
    CommandResult r = cluster().kubectl_result({"apply", "-f", crd_dir()});
    ASSERT_EQ(r.status, 0) << "kubectl apply -f crds/\n" << r.out << r.err;
    for (const auto& crd : kCrdNames) {
      std::string last;
      bool established = testenv::wait_until(
          [&] {
            CommandResult g = cluster().kubectl_result(
                {"get", "crd", crd, "-o", "jsonpath={.status.conditions[?(@.type==\"Established\")].status}"});
            last = g.out + g.err;
            return g.status == 0 && g.out == "True";
          },
          60s);
      ASSERT_TRUE(established) << crd << " not Established within 60s: " << last;
    }
    // Discovery can lag behind Established: wait until kubectl resolves every kind.
    std::string last;
    bool served = testenv::wait_until(
        [&] {
          CommandResult g = cluster().kubectl_result({"get", "gpupools,gpupolicies,tenantquotas,gpunodes", "-A"});
          last = g.err;
          return g.status == 0;
        },
        60s);
    ASSERT_TRUE(served) << "gpupool.io kinds not served: " << last;
    installed_ = true;
  }

  // Runs kubectl, expecting success; returns stdout.
  std::string ok(const std::vector<std::string>& args, const std::string& stdin_data = "") {
    CommandResult r = cluster().kubectl_result(args, stdin_data);
    EXPECT_EQ(r.status, 0) << "kubectl " << join(args) << "\n" << r.out << r.err;
    return r.out;
  }

  // A cluster-scoped object to delete when the test ends.
  void delete_later(const std::string& resource, const std::string& name) {
    cleanup_.push_back({"delete", resource, name, "--ignore-not-found", "--wait=true", "--timeout=60s"});
  }

  // A cluster-scoped name unique to this test (the namespace name is).
  std::string unique(const std::string& prefix) const { return prefix + "-" + ns().substr(ns().size() - 6); }

  std::vector<std::vector<std::string>> cleanup_;
  static inline bool installed_ = false;
};

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

// --- tests --------------------------------------------------------------------

TEST_F(CrdInstallTest, CrdsAreEstablishedWithNamesScopeAndCategory) {
  std::string out = ok({"api-resources", "--api-group=gpupool.io", "--no-headers", "-o", "wide"});
  struct Want {
    const char* plural;
    const char* shortname;
    const char* namespaced;
    const char* kind;
  };
  for (const Want& w : {Want{"gpupools", "gpool", "false", "GPUPool"}, Want{"gpupolicies", "gpol", "false", "GPUPolicy"},
                        Want{"tenantquotas", "tq", "true", "TenantQuota"}, Want{"gpunodes", "gnode", "false", "GPUNode"}}) {
    SCOPED_TRACE(w.plural);
    std::istringstream lines(out);
    std::string line;
    bool found = false;
    while (std::getline(lines, line)) {
      std::istringstream words(line);
      std::vector<std::string> cols{std::istream_iterator<std::string>(words), std::istream_iterator<std::string>()};
      // NAME SHORTNAMES APIVERSION NAMESPACED KIND VERBS CATEGORIES
      if (cols.size() < 7 || cols[0] != w.plural) continue;
      found = true;
      EXPECT_EQ(cols[1], w.shortname);
      EXPECT_EQ(cols[2], "gpupool.io/v1alpha1");
      EXPECT_EQ(cols[3], w.namespaced);
      EXPECT_EQ(cols[4], w.kind);
      EXPECT_EQ(cols.back(), "gpupool-all");
    }
    EXPECT_TRUE(found) << out;
  }
}

// Every property of every schema has a description, and the generator's
// output is what is installed (one CRD per file, the names above).
TEST_F(CrdInstallTest, EverySchemaFieldHasADescription) {
  std::vector<std::string> missing;
  std::function<void(const YAML::Node&, const std::string&)> walk = [&](const YAML::Node& schema,
                                                                         const std::string& path) {
    if (!schema.IsMap()) return;
    if (schema["properties"]) {
      for (const auto& kv : schema["properties"]) {
        std::string name = kv.first.as<std::string>();
        std::string child = path.empty() ? name : path + "." + name;
        if (path.find('.') == std::string::npos && name == "metadata") continue;  // the apiserver forbids describing it
        if (!kv.second["description"] || kv.second["description"].as<std::string>().size() < 8) missing.push_back(child);
        walk(kv.second, child);
      }
    }
    if (schema["items"]) walk(schema["items"], path + "[]");
    if (schema["additionalProperties"] && schema["additionalProperties"].IsMap()) {
      walk(schema["additionalProperties"], path + "[*]");
    }
  };
  std::set<std::string> seen;
  for (const auto& e : fs::directory_iterator(crd_dir())) {
    if (e.path().extension() != ".yaml") continue;
    YAML::Node crd = YAML::LoadFile(e.path().string());
    std::string name = crd["metadata"]["name"].as<std::string>();
    seen.insert(name);
    EXPECT_EQ(e.path().filename().string(), "gpupool.io_" + crd["spec"]["names"]["plural"].as<std::string>() + ".yaml");
    for (const auto& v : crd["spec"]["versions"]) {
      walk(v["schema"]["openAPIV3Schema"], name.substr(0, name.find('.')));
    }
  }
  EXPECT_EQ(seen, std::set<std::string>(kCrdNames.begin(), kCrdNames.end()));
  EXPECT_TRUE(missing.empty()) << "fields without a description:\n  " << join(missing);
}

TEST_F(CrdInstallTest, SamplesApplyClientSideAndServerSide) {
  const auto files = sample_files();
  ASSERT_GE(files.size(), 4u);

  // The kustomization lists exactly these files.
  YAML::Node kustomization = YAML::LoadFile((kSourceDir / "config/samples/kustomization.yaml").string());
  std::set<std::string> listed, present;
  for (const auto& r : kustomization["resources"]) listed.insert(r.as<std::string>());
  for (const auto& f : files) present.insert(f.filename().string());
  present.erase("gpupool_v1alpha1_gpunode.yaml");  // a reference: the controller writes GPUNode specs
  present.insert("namespaces.yaml");
  EXPECT_EQ(listed, present) << "config/samples/kustomization.yaml resources";

  // Namespaces the samples live in, and the objects to clean up.
  std::set<std::string> namespaces;
  std::set<std::string> kinds;
  for (const auto& f : files) {
    for (const auto& doc : YAML::LoadAllFromFile(f.string())) {
      kinds.insert(doc["kind"].as<std::string>());
      if (doc["metadata"]["namespace"]) namespaces.insert(doc["metadata"]["namespace"].as<std::string>());
    }
  }
  EXPECT_EQ(kinds, (std::set<std::string>{"GPUPool", "GPUPolicy", "TenantQuota", "GPUNode"}));
  for (const auto& n : namespaces) ASSERT_NO_THROW(test::create_namespace(cluster(), n));
  auto delete_samples = [&] {
    for (const auto& f : files) ok({"delete", "-f", f.string(), "--ignore-not-found", "--wait=true", "--timeout=60s"});
  };

  for (const auto& f : files) {
    SCOPED_TRACE("client-side apply " + f.filename().string());
    ok({"apply", "-f", f.string()});
  }

  // Printer columns from the contract, with values from the samples.
  struct Columns {
    std::vector<std::string> args;
    std::vector<std::string> headers;
    std::vector<std::string> values;
  };
  const std::vector<Columns> tables = {
      {{"get", "gpupools"},
       {"NAME", "VENDOR", "NODES", "READY", "UPDATING", "FAILED", "DRIVER", "PROGRESSING", "DEGRADED", "STATUS", "AGE"},
       {"a100-80gb-mig", "nvidia", "amd", "570.133.20"}},
      {{"get", "gpupools", "-o", "wide"},
       {"NAME", "VENDOR", "NODES", "READY", "UPDATING", "FAILED", "DRIVER", "PROGRESSING", "DEGRADED", "CONFLICT",
        "SHARING", "STATUS", "AGE"},
       {"a100-80gb-mig", "exclusive", "timeSlicing"}},
      {{"get", "gpupolicies"}, {"NAME", "APPROVAL", "BORROWING", "POOLS", "AGE"}, {"default-gpu-policy", "Automatic", "true"}},
      {{"get", "tenantquotas", "-A"},
       {"NAMESPACE", "NAME", "POOL", "PHASE", "PRIORITY", "EXPIRES", "AGE"},
       {"research-a100", "a100-80gb-mig", "2027-06-30T00:00:00Z", "inference-t4", "t4-shared"}},
      {{"get", "gpunodes"}, {"NAME", "POOL", "GPUS", "DRIVER", "DISRUPT", "HEARTBEAT", "AGE"}, {"gpu-a100-node-01", "false"}},
  };
  for (const auto& t : tables) {
    SCOPED_TRACE("kubectl " + join(t.args));
    std::string out = ok(t.args);
    std::string header = first_line(out);
    std::istringstream words(header);
    std::vector<std::string> got{std::istream_iterator<std::string>(words), std::istream_iterator<std::string>()};
    EXPECT_EQ(got, t.headers) << out;
    for (const auto& v : t.values) EXPECT_TRUE(contains(out, v)) << v << " missing from:\n" << out;
  }

  // The category lists all four kinds; the shortNames resolve.
  std::string all = ok({"get", "gpupool-all", "-A", "-o", "name"});
  for (const char* prefix : {"gpupool.gpupool.io/a100-80gb-mig", "gpupool.gpupool.io/mi300x-cpx",
                             "gpupool.gpupool.io/t4-shared", "gpupolicy.gpupool.io/default-gpu-policy",
                             "tenantquota.gpupool.io/research-a100", "tenantquota.gpupool.io/inference-t4",
                             "gpunode.gpupool.io/gpu-a100-node-01"}) {
    EXPECT_TRUE(contains(all, prefix)) << prefix << " missing from kubectl get gpupool-all -A:\n" << all;
  }
  EXPECT_TRUE(contains(ok({"get", "gpool"}), "mi300x-cpx"));
  EXPECT_TRUE(contains(ok({"get", "gpol"}), "default-gpu-policy"));
  EXPECT_TRUE(contains(ok({"get", "tq", "-n", "ml-research"}), "research-a100"));
  EXPECT_TRUE(contains(ok({"get", "gnode"}), "gpu-a100-node-01"));

  // A fresh start with server-side apply.
  delete_samples();
  all = ok({"get", "gpupool-all", "-A", "-o", "name"});
  for (const char* name : {"/a100-80gb-mig", "/mi300x-cpx", "/t4-shared", "/default-gpu-policy", "/research-a100",
                           "/inference-t4", "/gpu-a100-node-01"}) {
    EXPECT_FALSE(contains(all, name)) << name << " left after delete:\n" << all;
  }
  for (const auto& f : files) {
    SCOPED_TRACE("server-side apply " + f.filename().string());
    ok({"apply", "--server-side", "-f", f.string()});
  }
  all = ok({"get", "gpupool-all", "-A", "-o", "name"});
  for (const char* kind : {"gpupool.gpupool.io/", "gpupolicy.gpupool.io/", "tenantquota.gpupool.io/", "gpunode.gpupool.io/"}) {
    EXPECT_TRUE(contains(all, kind)) << kind << " missing after server-side apply:\n" << all;
  }
  // Applying again changes nothing and conflicts with nothing.
  for (const auto& f : files) ok({"apply", "--server-side", "-f", f.string()});

  delete_samples();
  for (const auto& n : namespaces) test::delete_namespace(cluster(), n, /*wait=*/false);
}

// The sample GPUNode's status is valid for the status subresource and shows
// in the printer columns.
TEST_F(CrdInstallTest, SampleNodeStatusIsAcceptedByTheStatusSubresource) {
  YAML::Node sample = YAML::LoadFile((kSourceDir / "config/samples/gpupool_v1alpha1_gpunode.yaml").string());
  ASSERT_TRUE(sample["status"]) << "the GPUNode sample carries a status";
  const std::string name = unique("sample-status");
  YAML::Node object = YAML::Clone(sample);
  object["metadata"]["name"] = name;
  object["spec"]["nodeName"] = name;
  object.remove("status");
  delete_later("gpunode", name);
  ok({"apply", "--server-side", "-f", "-"}, to_json(object));
  ok({"patch", "gpunode", name, "--subresource=status", "--type=merge", "-p",
      "{\"status\":" + to_json(sample["status"]) + "}"});
  std::string out = ok({"get", "gnode", name});
  EXPECT_TRUE(contains(out, "570.133.20")) << out;
  EXPECT_EQ(ok({"get", "gnode", name, "-o", "jsonpath={.status.gpuCount} {.status.gpus[0].pciBusID} "
                                               "{.status.gpus[0].partition.instances[0].profile}"}),
            "4 00000000:07:00.0 3g.40gb");
}

TEST_F(CrdInstallTest, InvalidObjectTable) {
  const auto cases = load_invalid_cases();
  std::set<std::string> names, kinds;
  size_t apiserver = 0, semantic_only = 0;
  const std::regex kebab("[a-z0-9]+(-[a-z0-9]+)*");
  for (const auto& c : cases) {
    SCOPED_TRACE("case " + c.name);
    EXPECT_TRUE(std::regex_match(c.name, kebab)) << "name is not kebab-case";
    EXPECT_TRUE(names.insert(c.name).second) << "duplicate name";
    EXPECT_FALSE(c.description.empty());
    EXPECT_FALSE(c.field.empty());
    EXPECT_TRUE(c.object.IsMap());
    EXPECT_EQ(c.rejected_by.count("gpupoolctl"), 1u) << "gpupoolctl validate must reject every case";
    for (const auto& who : c.rejected_by) EXPECT_TRUE(who == "apiserver" || who == "gpupoolctl") << who;
    if (c.object.IsMap()) kinds.insert(c.object["kind"].as<std::string>(""));
    (c.by_apiserver() ? apiserver : semantic_only)++;
  }
  EXPECT_GE(cases.size(), 40u);
  EXPECT_GE(apiserver, 10u);
  EXPECT_GE(semantic_only, 10u);
  EXPECT_EQ(kinds, (std::set<std::string>{"GPUPool", "GPUPolicy", "TenantQuota", "GPUNode"}));

  ASSERT_NO_THROW(test::create_namespace(cluster(), "tenant-a"));
  // What the apiserver says of one case's object: kubectl's exit status and stderr.
  auto judge = [&](const InvalidCase& c, const CommandResult& r) {
    if (c.by_apiserver()) {
      EXPECT_NE(r.status, 0) << c.name << ": the apiserver accepted an object it must reject:\n" << r.out;
      EXPECT_TRUE(contains(r.err, c.field)) << c.name << ": the error does not name " << c.field << ":\n" << r.err;
    } else {
      EXPECT_EQ(r.status, 0) << c.name << ": a semantic-only case must pass the apiserver:\n" << r.err;
    }
  };

  // The cases without context objects, in one kubectl apply: it sends each
  // object in its own request (a rejection does not stop the others), names
  // the objects the apiserver took (-o name) and writes one error for each
  // other object, naming it. Each object has a kind and name of its own, no
  // webhook or admission policy runs in this cluster, and the schema and CEL
  // rules judge each object alone: the verdicts are those of one kubectl per
  // case. An object not named either way is applied again alone.
  const std::string dir = test::make_temp_dir("invalid-objects");
  std::vector<std::pair<const InvalidCase*, std::string>> batch;  // case, file
  std::set<const InvalidCase*> batched;
  std::set<std::string> keys;
  for (size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    if (!c.object.IsMap() || !c.context.empty()) continue;
    const std::string kind = c.object["kind"].as<std::string>(""), name = c.object["metadata"]["name"].as<std::string>("");
    if (!keys.insert(kind + "/" + name).second) continue;  // the same object as another case: on its own below
    batched.insert(&c);
    const std::string file = dir + "/case-" + std::to_string(i) + ".json";
    std::ofstream(file) << to_json(c.object);
    batch.emplace_back(&c, file);
  }
  const CommandResult all = cluster().kubectl_result({"apply", "--server-side", "-o", "name", "-f", dir});
  std::set<std::string> taken;  // "gpupool.gpupool.io/NAME"
  {
    std::istringstream lines(all.out);
    for (std::string line; std::getline(lines, line);) {
      if (!line.empty()) taken.insert(line);
    }
  }
  std::vector<std::string> errors;  // one per rejected object, some over several lines
  {
    std::istringstream lines(all.err);
    for (std::string line; std::getline(lines, line);) {
      if (errors.empty() || line.rfind("Error from server", 0) == 0 || line.rfind("error:", 0) == 0) {
        errors.push_back(line);
      } else {
        errors.back() += "\n" + line;
      }
    }
  }
  std::vector<std::string> to_delete;
  int alone = 0;
  for (const auto& [c, file] : batch) {
    SCOPED_TRACE("case " + c->name + " (" + c->description + ")");
    const std::string kind = c->object["kind"].as<std::string>(""), name = c->object["metadata"]["name"].as<std::string>("");
    std::string lower = kind;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char ch) { return std::tolower(ch); });
    CommandResult r;
    if (taken.count(lower + ".gpupool.io/" + name)) {
      r.status = 0;
      r.out = lower + ".gpupool.io/" + name;
    } else {
      // kubectl names the object as Kind.group "name" or (namespace/name; group/version, Kind=Kind).
      const std::string as_object = kind + ".gpupool.io \"" + name + "\"", as_patch = "/" + name + "; ";
      const std::string as_patch_kind = "Kind=" + kind + ")";
      for (const auto& e : errors) {
        const std::string first = e.substr(0, e.find('\n'));
        if (contains(first, as_object) || (contains(first, as_patch) && contains(first, as_patch_kind))) {
          r.status = 1;
          r.err += e + "\n";
        }
      }
      if (r.status != 1) {
        r = cluster().kubectl_result({"apply", "--server-side", "-f", file});
        ++alone;
      }
    }
    judge(*c, r);
    if (r.status == 0) to_delete.push_back(file);
  }
  std::cout << batch.size() << " cases applied in one kubectl apply (" << taken.size() << " objects taken, "
            << errors.size() << " errors), " << alone << " of them applied again alone" << std::endl;
  if (!to_delete.empty()) {
    std::vector<std::string> args = {"delete", "--wait=true", "--timeout=60s"};
    for (const auto& f : to_delete) args.insert(args.end(), {"-f", f});
    CommandResult d = cluster().kubectl_result(args);
    EXPECT_EQ(d.status, 0) << d.err;
  }
  test::remove_tree(dir);

  // The other cases (with context objects), one at a time.
  for (const auto& c : cases) {
    if (!c.object.IsMap() || batched.count(&c)) continue;
    SCOPED_TRACE("case " + c.name + " (" + c.description + ")");
    const std::string object = to_json(c.object);
    bool context_ok = true;
    for (const auto& ctx : c.context) {
      CommandResult r = cluster().kubectl_result({"apply", "--server-side", "-f", "-"}, to_json(ctx));
      EXPECT_EQ(r.status, 0) << "context object of " << c.name << " rejected:\n" << r.err;
      context_ok = context_ok && r.status == 0;
    }
    if (context_ok) {
      CommandResult r = cluster().kubectl_result({"apply", "--server-side", "-f", "-"}, object);
      judge(c, r);
      if (r.status == 0) {
        CommandResult d = cluster().kubectl_result({"delete", "-f", "-", "--wait=true", "--timeout=60s"}, object);
        EXPECT_EQ(d.status, 0) << d.err;
      }
    }
    for (auto it = c.context.rbegin(); it != c.context.rend(); ++it) {
      cluster().kubectl_result({"delete", "-f", "-", "--ignore-not-found", "--wait=true", "--timeout=60s"},
                               to_json(*it));
    }
  }
  test::delete_namespace(cluster(), "tenant-a", /*wait=*/false);
}

TEST_F(CrdInstallTest, DefaultsAreApplied) {
  const std::string pool = unique("defaults");
  delete_later("gpupool", pool);
  ok({"apply", "--server-side", "-f", "-"},
     "apiVersion: gpupool.io/v1alpha1\nkind: GPUPool\nmetadata: {name: " + pool +
         "}\nspec:\n  nodeSelector: {matchLabels: {gpupool.io/gpu-model: t4-16gb}}\n");
  EXPECT_EQ(ok({"get", "gpupool", pool, "-o",
                "jsonpath={.spec.vendor} {.spec.sharing.mode} {.spec.monitoring.scrapeInterval} {.spec.priority} "
                "{.spec.paused} {.spec.monitoring.enabled} {.spec.monitoring.alerts.enabled} "
                "{.spec.monitoring.dashboard.enabled}"}),
            "auto exclusive 30s 0 false true true false");

  // Nested defaults: the upgrade strategy and its drain options, a MIG strategy.
  const std::string upgraded = unique("defaults-upgrade");
  delete_later("gpupool", upgraded);
  ok({"apply", "--server-side", "-f", "-"},
     "apiVersion: gpupool.io/v1alpha1\nkind: GPUPool\nmetadata: {name: " + upgraded +
         "}\nspec:\n  nodeSelector: {matchLabels: {gpupool.io/gpu-model: a100-sxm4-80gb}}\n"
         "  driver: {version: 570.133.20, installer: {image: nvcr.io/nvidia/driver:570.133.20-ubuntu22.04},"
         " upgradeStrategy: {maintenanceWindows: [{days: [Sat], start: '02:00', duration: 4h}]}}\n"
         "  partitioning: {nvidia: {layout: all-balanced}}\n");
  EXPECT_EQ(ok({"get", "gpupool", upgraded, "-o",
                "jsonpath={.spec.driver.installer.kind} {.spec.driver.upgradeStrategy.maxUnavailable} "
                "{.spec.driver.upgradeStrategy.failureBudget} {.spec.driver.upgradeStrategy.drain.timeout} "
                "{.spec.driver.upgradeStrategy.drain.skipPodLabel} {.spec.driver.upgradeStrategy.drain.force} "
                "{.spec.driver.upgradeStrategy.maintenanceWindows[0].timeZone} {.spec.partitioning.nvidia.strategy}"}),
            "container 1 1 10m gpupool.io/skip-drain false UTC single");

  const std::string policy = unique("defaults");
  delete_later("gpupolicy", policy);
  ok({"apply", "--server-side", "-f", "-"},
     "apiVersion: gpupool.io/v1alpha1\nkind: GPUPolicy\nmetadata: {name: " + policy +
         "}\nspec:\n  quota: {}\n  health: {temperature: {warningCelsius: 80, criticalCelsius: 90}, ecc: {}}\n");
  EXPECT_EQ(ok({"get", "gpupolicy", policy, "-o",
                "jsonpath={.spec.quota.approval} {.spec.quota.borrowing.enabled} {.spec.quota.borrowing.limitPercent} "
                "{.spec.quota.fairShare.defaultWeight} {.spec.quota.reclaimGracePeriod} "
                "{.spec.health.temperature.action} {.spec.health.ecc.correctableErrorsPerDay} "
                "{.spec.health.ecc.uncorrectableErrors} {.spec.health.ecc.action} {.spec.health.recoveryPeriod} "
                "{.spec.health.maxUnhealthyNodes}"}),
            "Automatic false 0 1 5m Taint 1000 1 Cordon 10m 10%");
  EXPECT_EQ(ok({"get", "gpupolicy", policy, "-o",
                "jsonpath={.spec.quota.partialGrants} {.spec.quota.chargeBasis} {.spec.quota.onCapacityLoss} "
                "{.spec.quota.expiry.action} {.spec.quota.expiry.gracePeriod}"}),
            "true Compute Keep Keep 10m");

  ok({"apply", "--server-side", "-n", ns(), "-f", "-"},
     "apiVersion: gpupool.io/v1alpha1\nkind: TenantQuota\nmetadata: {name: minimal}\n"
     "spec: {poolRef: {name: " + pool + "}, resources: {nvidia.com/gpu: 2}}\n");
  EXPECT_EQ(ok({"get", "tq", "minimal", "-n", ns(), "-o", "jsonpath={.spec.priority}"}), "0");

  const std::string node = unique("defaults");
  delete_later("gpunode", node);
  ok({"apply", "--server-side", "-f", "-"},
     "apiVersion: gpupool.io/v1alpha1\nkind: GPUNode\nmetadata: {name: " + node + "}\nspec: {nodeName: " + node + "}\n");
  EXPECT_EQ(ok({"get", "gpunode", node, "-o",
                "jsonpath={.spec.disruptionAllowed} {.spec.sharing.mode} {.spec.monitoring.scrapeInterval}"}),
            "false exclusive 30s");
}

TEST_F(CrdInstallTest, StatusIsASubresource) {
  const std::string pool = unique("status");
  delete_later("gpupool", pool);
  // A status sent with the object on create is dropped.
  ok({"create", "-f", "-"}, "apiVersion: gpupool.io/v1alpha1\nkind: GPUPool\nmetadata: {name: " + pool +
                                "}\nspec: {nodeSelector: {matchLabels: {gpupool.io/gpu-model: l4-24gb}}}\n"
                                "status: {nodes: {total: 9}}\n");
  EXPECT_EQ(ok({"get", "gpupool", pool, "-o", "jsonpath={.status}"}), "");

  // A status written through the main resource is ignored...
  ok({"patch", "gpupool", pool, "--type=merge", "-p", R"({"status":{"nodes":{"total":3}}})"});
  EXPECT_EQ(ok({"get", "gpupool", pool, "-o", "jsonpath={.status.nodes.total}"}), "");

  // ...and one written through the status subresource is kept, while spec
  // changes sent there are ignored.
  ok({"patch", "gpupool", pool, "--subresource=status", "--type=merge", "-p",
      R"({"spec":{"priority":7},"status":{"observedGeneration":1,"nodes":{"total":3,"ready":2},)"
      R"("conditions":[{"type":"Ready","status":"False","reason":"NodesUpdating","message":"1 of 3 nodes updating",)"
      R"("lastTransitionTime":"2026-11-20T08:00:00Z"}]}})"});
  EXPECT_EQ(ok({"get", "gpupool", pool, "-o", "jsonpath={.status.nodes.total} {.status.nodes.ready} {.spec.priority}"}),
            "3 2 0");
  std::string table = ok({"get", "gpool", pool});
  EXPECT_TRUE(contains(table, "NodesUpdating")) << "the Status column shows the Ready reason:\n" << table;

  // The status schema is enforced too.
  CommandResult bad = cluster().kubectl_result({"patch", "gpupool", pool, "--subresource=status", "--type=merge", "-p",
                                                R"({"status":{"nodes":{"total":-1}}})"});
  EXPECT_NE(bad.status, 0);
  EXPECT_TRUE(contains(bad.err, "status.nodes.total")) << bad.err;

  ok({"apply", "--server-side", "-n", ns(), "-f", "-"},
     "apiVersion: gpupool.io/v1alpha1\nkind: TenantQuota\nmetadata: {name: phase}\n"
     "spec: {poolRef: {name: " + pool + "}, resources: {nvidia.com/gpu: 2}}\n");
  bad = cluster().kubectl_result({"patch", "tq", "phase", "-n", ns(), "--subresource=status", "--type=merge", "-p",
                                  R"({"status":{"phase":"Approved"}})"});
  EXPECT_NE(bad.status, 0);
  EXPECT_TRUE(contains(bad.err, "status.phase")) << bad.err;
  ok({"patch", "tq", "phase", "-n", ns(), "--subresource=status", "--type=merge", "-p",
      R"({"status":{"phase":"Granted","granted":{"nvidia.com/gpu":2}}})"});
  EXPECT_TRUE(contains(ok({"get", "tq", "phase", "-n", ns()}), "Granted"));
}

TEST_F(CrdInstallTest, TenantQuotaPoolRefIsImmutable) {
  ok({"apply", "--server-side", "-n", ns(), "-f", "-"},
     "apiVersion: gpupool.io/v1alpha1\nkind: TenantQuota\nmetadata: {name: team}\n"
     "spec: {poolRef: {name: pool-a}, resources: {nvidia.com/gpu: 2}}\n");

  CommandResult r = cluster().kubectl_result(
      {"patch", "tq", "team", "-n", ns(), "--type=merge", "-p", R"({"spec":{"poolRef":{"name":"pool-b"}}})"});
  EXPECT_NE(r.status, 0) << r.out;
  EXPECT_TRUE(contains(r.err, "spec.poolRef")) << r.err;
  EXPECT_TRUE(contains(r.err, "poolRef is immutable")) << r.err;

  // The same through server-side apply.
  r = cluster().kubectl_result({"apply", "--server-side", "-n", ns(), "-f", "-"},
                               "apiVersion: gpupool.io/v1alpha1\nkind: TenantQuota\nmetadata: {name: team}\n"
                               "spec: {poolRef: {name: pool-b}, resources: {nvidia.com/gpu: 2}}\n");
  EXPECT_NE(r.status, 0) << r.out;
  EXPECT_TRUE(contains(r.err, "poolRef is immutable")) << r.err;

  // Other fields stay mutable.
  ok({"patch", "tq", "team", "-n", ns(), "--type=merge", "-p", R"({"spec":{"resources":{"nvidia.com/gpu":4}}})"});
  EXPECT_EQ(ok({"get", "tq", "team", "-n", ns(), "-o", "jsonpath={.spec.poolRef.name} {.spec.resources}"}),
            R"(pool-a {"nvidia.com/gpu":4})");
}

TEST_F(CrdInstallTest, GpuUnitsAndTheApprovalRecordAreAccepted) {
  // Fractions of gpupool.io/gpu (as strings) pass every quota map's schema.
  const std::string policy = unique("gpu-units");
  delete_later("gpupolicy", policy);
  ok({"apply", "--server-side", "-f", "-"},
     "apiVersion: gpupool.io/v1alpha1\nkind: GPUPolicy\nmetadata: {name: " + policy +
         "}\nspec:\n  quota:\n    maxPerTenant: {gpupool.io/gpu: \"4.5\"}\n"
         "    reserve: {gpupool.io/gpu: 500m, nvidia.com/gpu: 1}\n    partialGrants: false\n"
         "    chargeBasis: Memory\n    onCapacityLoss: Evict\n    expiry: {action: Evict}\n"
         "    deviceClasses: {gpu.nvidia.com: nvidia.com/gpu, mig.nvidia.com: gpupool.io/gpu}\n");
  EXPECT_EQ(ok({"get", "gpupolicy", policy, "-o",
                "jsonpath={.spec.quota.reserve.gpupool\\.io/gpu} {.spec.quota.partialGrants} "
                "{.spec.quota.expiry.action} {.spec.quota.expiry.gracePeriod}"}),
            "500m false Evict 10m");

  ok({"apply", "--server-side", "-n", ns(), "-f", "-"},
     "apiVersion: gpupool.io/v1alpha1\nkind: TenantQuota\nmetadata: {name: units}\n"
     "spec: {poolRef: {name: pool-a}, resources: {gpupool.io/gpu: \"2.5\"}, borrowingLimit: {gpupool.io/gpu: 250m}}\n");
  EXPECT_EQ(ok({"get", "tq", "units", "-n", ns(), "-o", "jsonpath={.spec.resources} {.spec.borrowingLimit}"}),
            R"({"gpupool.io/gpu":"2.5"} {"gpupool.io/gpu":"250m"})");

  // waiting and approved go through the status subresource, their CEL rule included.
  ok({"patch", "tq", "units", "-n", ns(), "--subresource=status", "--type=merge", "-p",
      R"({"status":{"waiting":{"gpupool.io/gpu":"1.5"},"approved":{"resources":{"gpupool.io/gpu":"2.5"},)"
      R"("borrowingLimit":{"gpupool.io/gpu":"250m"},"generation":1,"approvedAt":"2026-11-20T08:00:00Z"}}})"});
  EXPECT_EQ(ok({"get", "tq", "units", "-n", ns(), "-o",
                "jsonpath={.status.waiting} {.status.approved.generation} {.status.approved.approvedAt}"}),
            R"({"gpupool.io/gpu":"1.5"} 1 2026-11-20T08:00:00Z)");
  CommandResult bad = cluster().kubectl_result(
      {"patch", "tq", "units", "-n", ns(), "--subresource=status", "--type=merge", "-p",
       R"({"status":{"approved":{"borrowingLimit":{"nvidia.com/gpu":1}}}})"});
  EXPECT_NE(bad.status, 0) << bad.out;
  EXPECT_TRUE(contains(bad.err, "status.approved.borrowingLimit")) << bad.err;
  EXPECT_TRUE(contains(bad.err, "every borrowingLimit key must also be in resources")) << bad.err;
  bad = cluster().kubectl_result({"patch", "tq", "units", "-n", ns(), "--subresource=status", "--type=merge", "-p",
                                  R"({"status":{"approved":{"generation":0}}})"});
  EXPECT_NE(bad.status, 0) << bad.out;
  EXPECT_TRUE(contains(bad.err, "status.approved.generation")) << bad.err;
}

TEST_F(CrdInstallTest, GPUNodeNameIsImmutableAndMatchesMetadata) {
  const std::string node = unique("node");
  delete_later("gpunode", node);
  ok({"apply", "--server-side", "-f", "-"},
     "apiVersion: gpupool.io/v1alpha1\nkind: GPUNode\nmetadata: {name: " + node + "}\nspec: {nodeName: " + node + "}\n");
  CommandResult r = cluster().kubectl_result(
      {"patch", "gpunode", node, "--type=merge", "-p", R"({"spec":{"nodeName":"another-node"}})"});
  EXPECT_NE(r.status, 0) << r.out;
  EXPECT_TRUE(contains(r.err, "spec.nodeName")) << r.err;
  EXPECT_TRUE(contains(r.err, "nodeName is immutable")) << r.err;
  // The controller's fields stay writable.
  ok({"patch", "gpunode", node, "--type=merge", "-p", R"({"spec":{"pool":"a100-80gb-mig","disruptionAllowed":true}})"});
  EXPECT_EQ(ok({"get", "gnode", node, "-o", "jsonpath={.spec.pool} {.spec.disruptionAllowed}"}), "a100-80gb-mig true");
}

}  // namespace
}  // namespace gpupool
