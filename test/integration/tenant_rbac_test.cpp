// The tenant RBAC of config/rbac on the real control plane: a tenant (a
// ServiceAccount bound to gpupool-tenant, or the group of
// tenant_rolebinding_example.yaml) writes its TenantQuotas but not their
// status, so it cannot approve itself, neither with kubectl nor with
// `gpupoolctl approve`; the built-in admin, edit and view roles get
// TenantQuota rights by aggregation (kube-controller-manager's
// clusterrole-aggregation controller) and no status rights. No controller
// or agents: nothing here needs them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "gpupool/kube/client.h"
#include "gpupool/kube/errors.h"
#include "gpupool/testenv/process.h"
#include "support/cluster_fixture.h"
#include "support/kube_test_helpers.h"

namespace gpupool::test {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

const fs::path kSourceDir = GPUPOOL_SOURCE_DIR;
const kube::ResourceRef kQuotas{{"gpupool.io", "v1alpha1", "tenantquotas"}, "", "", ""};
// The pool and policy the quotas name (cluster-scoped; shared by the tests).
constexpr const char* kPool = "tenant-rbac";
// The user of tenant_rolebinding_example.yaml's group (a static token).
constexpr const char* kGroupUser = "ml-researcher";
constexpr const char* kExampleGroup = "ml-research-team";
constexpr const char* kQuotaRes = "tenantquotas.gpupool.io";

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}
bool contains(const std::string& haystack, const std::string& needle) { return haystack.find(needle) != std::string::npos; }
std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  return s;
}

class TenantRbacTest : public ClusterTest {
 protected:
  static void SetUpTestSuite() {
    shared_cluster_options().extra_identities.push_back({kGroupUser, {kExampleGroup}});
    try {
      install_gpupool_crds(shared_cluster());
    } catch (const std::exception& e) {
      ADD_FAILURE() << "control plane: " << e.what();
    }
  }
  // The ClusterRoles of config/rbac, the pool and its policy go after the
  // last test (each test applies them; applying is idempotent).
  static void TearDownTestSuite() {
    try {
      ControlPlane& c = shared_cluster();
      c.kubectl_result({"delete", "-k", (kSourceDir / "config/rbac").string(), "--ignore-not-found"});
      c.kubectl_result({"delete", "gpupool", kPool, "--ignore-not-found", "--wait=false"});
      c.kubectl_result({"delete", "gpupolicy", kPool, "--ignore-not-found", "--wait=false"});
    } catch (const std::exception&) {
      // never started: nothing to clean up
    }
  }

  void SetUp() override {
    ClusterTest::SetUp();
    if (HasFatalFailure()) return;
    dir_ = make_temp_dir("tenant-rbac");
    admin_ = std::make_unique<kube::Client>(rest_config(cluster(), cluster().admin_token()));
    std::string out;
    ASSERT_EQ(cluster().kubectl({"apply", "-k", (kSourceDir / "config/rbac").string()}, &out), 0) << out;
    ASSERT_EQ(cluster().kubectl({"apply", "--server-side", "-f", "-"}, &out,
                                std::string("apiVersion: gpupool.io/v1alpha1\nkind: GPUPolicy\nmetadata:\n  name: ") + kPool +
                                    "\nspec:\n  quota:\n    approval: Manual\n"),
              0)
        << out;
    // A pool without nodes: enough to name in a quota.
    ASSERT_EQ(cluster().kubectl({"apply", "--server-side", "-f", "-"}, &out,
                                std::string("apiVersion: gpupool.io/v1alpha1\nkind: GPUPool\nmetadata:\n  name: ") + kPool +
                                    "\nspec:\n  nodeSelector:\n    matchLabels: {pool-test: tenant-rbac}\n  policyRef: {name: " +
                                    kPool + "}\n"),
              0)
        << out;
  }
  void TearDown() override {
    for (const auto& b : cluster_role_bindings_) {
      cluster().kubectl_result({"delete", "clusterrolebinding", b, "--ignore-not-found"});
    }
    if (!dir_.empty()) {
      if (HasFailure()) {
        std::cerr << "kubeconfigs kept in " << dir_ << "\n";
      } else {
        remove_tree(dir_);
      }
    }
    ClusterTest::TearDown();
  }

  // kubectl as whoever `kubeconfig` names.
  testenv::CommandResult as(const std::string& kubeconfig, std::vector<std::string> args, const std::string& stdin_data = "") {
    args.insert(args.begin(), "--kubeconfig=" + kubeconfig);
    return testenv::run_command(cluster().kubectl_path(), args, stdin_data, 60s);
  }
  testenv::CommandResult approve(const std::string& kubeconfig, const std::string& quota) {
    return testenv::run_command(GPUPOOL_GPUPOOLCTL_BIN, {"approve", ns() + "/" + quota, "--kubeconfig", kubeconfig}, "", 60s);
  }
  // `kubectl auth can-i` in the test's namespace: "yes" or "no".
  std::string can_i(const std::string& kubeconfig, const std::string& verb, const std::string& resource,
                    const std::string& subresource = "") {
    std::vector<std::string> args = {"auth", "can-i", verb, resource, "-n", ns()};
    if (!subresource.empty()) args.push_back("--subresource=" + subresource);
    return trim(as(kubeconfig, args).out);
  }
  // Waits until `can-i` answers `want` (RBAC objects reach the authorizer
  // through its informers; aggregated rules through kube-controller-manager).
  [[nodiscard]] bool wait_can_i(const std::string& kubeconfig, const std::string& verb, const std::string& resource,
                                const std::string& want, std::chrono::milliseconds deadline, const std::string& why) {
    std::string last;
    const bool ok = testenv::wait_until([&] { return (last = can_i(kubeconfig, verb, resource)) == want; }, deadline);
    if (!ok) ADD_FAILURE() << "`kubectl auth can-i " << verb << " " << resource << "` still \"" << last << "\" after "
                           << deadline.count() << " ms, not \"" << want << "\": " << why;
    return ok;
  }

  std::string write_kubeconfig(const std::string& user, const std::string& token) {
    const std::string path = dir_ + "/" + user + ".kubeconfig";
    std::ofstream(path) << "apiVersion: v1\nkind: Config\nclusters:\n- name: test\n  cluster:\n    server: " << cluster().server()
                        << "\n    certificate-authority: " << cluster().ca_file() << "\nusers:\n- name: " << user
                        << "\n  user:\n    token: " << token
                        << "\ncontexts:\n- name: test\n  context: {cluster: test, user: " << user
                        << "}\ncurrent-context: test\n";
    fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write);
    return path;
  }
  // A ServiceAccount of the test's namespace bound there (RoleBinding) to the
  // ClusterRole `role`, with a kubeconfig holding a token of it (TokenRequest).
  std::string service_account(const std::string& name, const std::string& role) {
    std::string out;
    EXPECT_EQ(cluster().kubectl({"create", "serviceaccount", name, "-n", ns()}, &out), 0) << out;
    EXPECT_EQ(cluster().kubectl({"create", "rolebinding", name, "-n", ns(), "--clusterrole=" + role,
                                 "--serviceaccount=" + ns() + ":" + name},
                                &out),
              0)
        << out;
    auto token = cluster().kubectl_result({"create", "token", name, "-n", ns(), "--duration=1h"});
    EXPECT_EQ(token.status, 0) << token.err;
    tokens_[name] = trim(token.out);
    const std::string kubeconfig = write_kubeconfig(name, tokens_[name]);
    // The token authenticates once the apiserver's informers have the account.
    std::string last;
    EXPECT_TRUE(testenv::wait_until([&] {
      auto r = as(kubeconfig, {"auth", "whoami", "-o", "name"});
      last = r.out + r.err;
      return r.status == 0;
    }, 30s)) << name << " never authenticated: " << last;
    return kubeconfig;
  }
  void bind_cluster_role(const std::string& binding, const std::string& role, const std::string& service_account) {
    cluster_role_bindings_.push_back(binding);
    std::string out;
    ASSERT_EQ(cluster().kubectl({"create", "clusterrolebinding", binding, "--clusterrole=" + role,
                                 "--serviceaccount=" + ns() + ":" + service_account},
                                &out),
              0)
        << out;
  }

  // A TenantQuota asking 2 GPUs of the pool, carrying a forged approval of
  // them (which the API server must drop: status is a subresource).
  std::string quota_yaml(const std::string& name) {
    return "apiVersion: gpupool.io/v1alpha1\nkind: TenantQuota\nmetadata:\n  name: " + name + "\n  namespace: " + ns() +
           "\nspec:\n  poolRef: {name: " + kPool + "}\n  resources: {nvidia.com/gpu: 2}\nstatus:\n  approved:\n"
           "    resources: {nvidia.com/gpu: 2}\n    generation: 1\n    approvedAt: \"2030-01-01T00:00:00Z\"\n";
  }
  rapidjson::Document get_quota(const std::string& name) { return admin_->get(kube::ResourceRef{kQuotas.gvr, ns(), name, ""}); }
  bool approved(const std::string& name) {
    auto q = get_quota(name);
    return q.HasMember("status") && q["status"].IsObject() && q["status"].HasMember("approved");
  }
  static std::string gpus(const rapidjson::Value& quota) {
    const auto& v = quota["spec"]["resources"]["nvidia.com/gpu"];
    return v.IsString() ? v.GetString() : v.IsInt64() ? std::to_string(v.GetInt64()) : kube::to_json(v);
  }

  // The ways to write status, as the identity of `kubeconfig` / `token`:
  // each must be refused by RBAC, and no approval may appear.
  void expect_status_forbidden(const std::string& kubeconfig, const std::string& token, const std::string& quota) {
    const std::string forged =
        R"({"status":{"approved":{"resources":{"nvidia.com/gpu":"64"},"generation":1,"approvedAt":"2030-01-01T00:00:00Z"}}})";
    // kubectl reads the status subresource before patching it: refused there.
    auto patch = as(kubeconfig, {"patch", "tenantquota", quota, "-n", ns(), "--subresource=status", "--type=merge", "-p", forged});
    EXPECT_NE(patch.status, 0) << patch.out;
    EXPECT_TRUE(contains(patch.err, "forbidden") && contains(patch.err, R"(resource "tenantquotas/status")")) << patch.err;

    // PATCH and PUT on the status subresource itself (what gpupoolctl approve
    // and the controller send).
    kube::Client as_identity(rest_config(cluster(), token));
    const kube::ResourceRef status{kQuotas.gvr, ns(), quota, "status"};
    try {
      as_identity.patch(status, kube::PatchType::MergePatch, forged);
      ADD_FAILURE() << "PATCH " << quota << "/status was allowed";
    } catch (const kube::ApiError& e) {
      EXPECT_TRUE(e.is_forbidden()) << e.what();
      EXPECT_TRUE(contains(e.status_message(), R"(cannot patch resource "tenantquotas/status")")) << e.what();
    }
    rapidjson::Document doc = as_identity.get(kube::ResourceRef{kQuotas.gvr, ns(), quota, ""});
    rapidjson::Document forged_status;
    forged_status.Parse(forged.c_str());
    doc.RemoveMember("status");
    doc.AddMember("status", rapidjson::Value(forged_status["status"], doc.GetAllocator()), doc.GetAllocator());
    try {
      as_identity.update(status, kube::to_json(doc));
      ADD_FAILURE() << "PUT " << quota << "/status was allowed";
    } catch (const kube::ApiError& e) {
      EXPECT_TRUE(e.is_forbidden()) << e.what();
      EXPECT_TRUE(contains(e.status_message(), R"(cannot update resource "tenantquotas/status")")) << e.what();
    }

    EXPECT_EQ(can_i(kubeconfig, "patch", kQuotaRes, "status"), "no");
    EXPECT_EQ(can_i(kubeconfig, "update", kQuotaRes, "status"), "no");

    auto self = approve(kubeconfig, quota);
    EXPECT_NE(self.status, 0) << self.out;
    EXPECT_TRUE(contains(lower(self.err), "forbidden")) << self.out << self.err;
    EXPECT_TRUE(contains(self.err, R"(cannot patch resource "tenantquotas/status")")) << self.err;
    EXPECT_TRUE(contains(self.err, "gpupool-quota-approver")) << "the error names the role that may: " << self.err;
    EXPECT_FALSE(approved(quota)) << kube::to_json(get_quota(quota));
  }

  std::string dir_;
  std::unique_ptr<kube::Client> admin_;
  std::vector<std::string> cluster_role_bindings_;
  std::map<std::string, std::string> tokens_;  // ServiceAccount -> token
};

// A tenant bound to gpupool-tenant creates and changes its TenantQuota, but
// cannot write its status: not with a create/update carrying status, not
// through the status subresource, not with `gpupoolctl approve`, which the
// administrator can run.
TEST_F(TenantRbacTest, TenantWritesItsQuotaButCannotApproveIt) {
  const std::string tenant = service_account("tenant-a", "gpupool-tenant");
  ASSERT_FALSE(HasFailure());
  ASSERT_TRUE(wait_can_i(tenant, "create", kQuotaRes, "yes", 30s, "the RoleBinding to gpupool-tenant"));

  // create, carrying a forged approval: created, the approval dropped.
  auto created = as(tenant, {"create", "-f", "-"}, quota_yaml("train"));
  ASSERT_EQ(created.status, 0) << created.err;
  EXPECT_FALSE(approved("train")) << kube::to_json(get_quota("train"));

  // patch and update of the object (spec).
  auto patched = as(tenant, {"patch", "tenantquota", "train", "-n", ns(), "--type=merge", "-p",
                             R"({"spec":{"resources":{"nvidia.com/gpu":4}},"status":{"approved":{"resources":{"nvidia.com/gpu":4},"generation":2,"approvedAt":"2030-01-01T00:00:00Z"}}})"});
  ASSERT_EQ(patched.status, 0) << patched.err;
  EXPECT_EQ(gpus(get_quota("train")), "4");
  auto got = as(tenant, {"get", "tenantquota", "train", "-n", ns(), "-o", "json"});
  ASSERT_EQ(got.status, 0) << got.err;
  rapidjson::Document doc;
  doc.Parse(got.out.c_str());
  ASSERT_FALSE(doc.HasParseError()) << got.out;
  doc["spec"].AddMember("priority", 7, doc.GetAllocator());
  auto updated = as(tenant, {"replace", "-f", "-"}, kube::to_json(doc));
  ASSERT_EQ(updated.status, 0) << updated.err;
  auto quota = get_quota("train");
  EXPECT_EQ(quota["spec"]["priority"].GetInt(), 7);
  EXPECT_EQ(quota["metadata"]["generation"].GetInt64(), 3);
  EXPECT_FALSE(approved("train")) << kube::to_json(quota);
  auto listed = as(tenant, {"get", "tenantquotas", "-n", ns(), "-o", "name"});
  EXPECT_EQ(listed.out, "tenantquota.gpupool.io/train\n") << listed.err;

  ASSERT_NO_FATAL_FAILURE(expect_status_forbidden(tenant, tokens_["tenant-a"], "train"));
  EXPECT_EQ(can_i(tenant, "delete", kQuotaRes), "yes");
  EXPECT_EQ(trim(as(tenant, {"auth", "can-i", "list", kQuotaRes, "--all-namespaces"}).out), "no");
  auto elsewhere = as(tenant, {"get", "tenantquotas", "-n", "default"});
  EXPECT_NE(elsewhere.status, 0);
  EXPECT_TRUE(contains(elsewhere.err, "forbidden")) << elsewhere.err;

  // The administrator (system:masters) may, and gpupoolctl approve works.
  EXPECT_EQ(trim(cluster().kubectl_result({"auth", "can-i", "patch", kQuotaRes, "--subresource=status", "-n", ns()}).out), "yes");
  auto admin = approve(cluster().kubeconfig_path(), "train");
  ASSERT_EQ(admin.status, 0) << admin.out << admin.err;
  quota = get_quota("train");
  ASSERT_TRUE(approved("train")) << kube::to_json(quota);
  EXPECT_EQ(quota["status"]["approved"]["generation"].GetInt64(), 3);

  // Nor can the tenant take the approval away or change it.
  auto drop = as(tenant, {"patch", "tenantquota", "train", "-n", ns(), "--subresource=status", "--type=merge", "-p",
                          R"({"status":{"approved":null}})"});
  EXPECT_NE(drop.status, 0);
  EXPECT_TRUE(contains(drop.err, "forbidden")) << drop.err;
  EXPECT_TRUE(approved("train"));
}

// gpupool-quota-approver: an approver who is not a cluster admin approves
// with gpupoolctl, and can do nothing else to the quota.
TEST_F(TenantRbacTest, TheApproverRoleApprovesAndNothingMore) {
  const std::string tenant = service_account("tenant-a", "gpupool-tenant");
  const std::string approver = service_account("approver", "gpupool-quota-approver");
  ASSERT_FALSE(HasFailure());
  ASSERT_TRUE(wait_can_i(tenant, "create", kQuotaRes, "yes", 30s, "the RoleBinding to gpupool-tenant"));
  ASSERT_EQ(as(tenant, {"create", "-f", "-"}, quota_yaml("train")).status, 0);
  ASSERT_TRUE(wait_can_i(approver, "get", kQuotaRes, "yes", 30s, "the RoleBinding to gpupool-quota-approver"));
  auto approved_now = approve(approver, "train");
  ASSERT_EQ(approved_now.status, 0) << approved_now.out << approved_now.err;
  EXPECT_TRUE(approved("train")) << kube::to_json(get_quota("train"));
  EXPECT_EQ(can_i(approver, "patch", kQuotaRes), "no") << "the spec is the tenant's";
  EXPECT_EQ(can_i(approver, "delete", kQuotaRes), "no");
}

// GPUPools and GPUPolicies are cluster-scoped: gpupool-tenant (a RoleBinding)
// does not show them; gpupool-viewer (a ClusterRoleBinding) does, read only.
TEST_F(TenantRbacTest, TenantReadsPoolsAndPoliciesThroughGpupoolViewerOnly) {
  const std::string tenant = service_account("tenant-a", "gpupool-tenant");
  ASSERT_FALSE(HasFailure());
  ASSERT_TRUE(wait_can_i(tenant, "create", kQuotaRes, "yes", 30s, "the RoleBinding to gpupool-tenant"));
  auto before = as(tenant, {"get", "gpupool", kPool});
  EXPECT_NE(before.status, 0);
  EXPECT_TRUE(contains(before.err, "forbidden")) << before.err;

  ASSERT_NO_FATAL_FAILURE(bind_cluster_role("gpupool-viewer-" + ns(), "gpupool-viewer", "tenant-a"));
  ASSERT_TRUE(wait_can_i(tenant, "list", "gpupools.gpupool.io", "yes", 30s, "the ClusterRoleBinding to gpupool-viewer"));
  for (const char* kind : {"gpupool", "gpupolicy"}) {
    auto r = as(tenant, {"get", kind, kPool, "-o", "name"});
    EXPECT_EQ(r.status, 0) << r.err;
    auto w = as(tenant, {"label", kind, kPool, "tenant=was-here"});
    EXPECT_NE(w.status, 0) << kind;
    EXPECT_TRUE(contains(w.err, "forbidden")) << w.err;
  }
  EXPECT_EQ(can_i(tenant, "get", "gpupolicies.gpupool.io"), "yes");
  EXPECT_EQ(can_i(tenant, "create", "gpupolicies.gpupool.io"), "no");
  EXPECT_EQ(can_i(tenant, "delete", "gpupools.gpupool.io"), "no");
  EXPECT_EQ(can_i(tenant, "get", "gpunodes.gpupool.io"), "no");
}

// The built-in roles get TenantQuota rights by aggregation: a namespace
// editor or admin manages TenantQuotas without another binding and cannot
// approve them; a viewer reads them.
TEST_F(TenantRbacTest, BuiltInAdminEditAndViewRolesAggregateQuotaRightsButNoStatus) {
  const std::string editor = service_account("editor", "edit");
  const std::string admin = service_account("ns-admin", "admin");
  const std::string viewer = service_account("viewer", "view");
  ASSERT_FALSE(HasFailure());
  const char* why = "aggregation of gpupool-tenant / gpupool-tenantquota-view into the built-in roles, done by "
                    "kube-controller-manager's clusterrole-aggregation controller";
  ASSERT_TRUE(wait_can_i(editor, "create", kQuotaRes, "yes", 60s, why));
  ASSERT_TRUE(wait_can_i(admin, "create", kQuotaRes, "yes", 60s, why));
  ASSERT_TRUE(wait_can_i(viewer, "list", kQuotaRes, "yes", 60s, why));

  auto created = as(editor, {"create", "-f", "-"}, quota_yaml("edited"));
  ASSERT_EQ(created.status, 0) << created.err;
  EXPECT_FALSE(approved("edited"));
  auto patched = as(editor, {"patch", "tenantquota", "edited", "-n", ns(), "--type=merge", "-p", R"({"spec":{"priority":3}})"});
  EXPECT_EQ(patched.status, 0) << patched.err;
  ASSERT_NO_FATAL_FAILURE(expect_status_forbidden(editor, tokens_["editor"], "edited"));

  auto by_admin = as(admin, {"create", "-f", "-"}, quota_yaml("administered"));
  ASSERT_EQ(by_admin.status, 0) << by_admin.err;
  ASSERT_NO_FATAL_FAILURE(expect_status_forbidden(admin, tokens_["ns-admin"], "administered"));
  EXPECT_EQ(can_i(admin, "delete", kQuotaRes), "yes");

  auto read = as(viewer, {"get", "tenantquota", "edited", "-n", ns(), "-o", "name"});
  EXPECT_EQ(read.status, 0) << read.err;
  EXPECT_EQ(can_i(viewer, "create", kQuotaRes), "no");
  EXPECT_EQ(can_i(viewer, "patch", kQuotaRes), "no");
  EXPECT_EQ(can_i(viewer, "patch", kQuotaRes, "status"), "no");
  auto forged = approve(viewer, "edited");
  EXPECT_NE(forged.status, 0);
  EXPECT_TRUE(contains(lower(forged.err), "forbidden")) << forged.err;
  EXPECT_FALSE(approved("edited"));
}

// tenant_rolebinding_example.yaml, pointed at the test's namespace, gives its
// group TenantQuotas there and the pools to read, and nothing more.
TEST_F(TenantRbacTest, ExampleBindingsGiveTheGroupItsNamespace) {
  std::ifstream in(kSourceDir / "config/rbac/tenant_rolebinding_example.yaml");
  std::stringstream s;
  s << in.rdbuf();
  std::string example = s.str();
  auto replace = [&](const std::string& from, const std::string& to) {
    const auto at = example.find(from);
    ASSERT_NE(at, std::string::npos) << "the example has no \"" << from << "\"";
    example.replace(at, from.size(), to);
  };
  ASSERT_NO_FATAL_FAILURE(replace("namespace: ml-research", "namespace: " + ns()));
  const std::string binding = "gpupool-viewer-" + ns();
  ASSERT_NO_FATAL_FAILURE(replace("name: gpupool-viewer-ml-research", "name: " + binding));
  ASSERT_TRUE(contains(example, std::string("name: ") + kExampleGroup));
  cluster_role_bindings_.push_back(binding);
  std::string out;
  ASSERT_EQ(cluster().kubectl({"apply", "-f", "-"}, &out, example), 0) << out;

  const std::string member = cluster().kubeconfig_for(kGroupUser);
  ASSERT_TRUE(wait_can_i(member, "create", kQuotaRes, "yes", 30s, "the example RoleBinding"));
  ASSERT_TRUE(wait_can_i(member, "list", "gpupools.gpupool.io", "yes", 30s, "the example ClusterRoleBinding"));
  auto created = as(member, {"create", "-f", "-"}, quota_yaml("research"));
  ASSERT_EQ(created.status, 0) << created.err;
  auto pool = as(member, {"get", "gpupool", kPool, "-o", "name"});
  EXPECT_EQ(pool.status, 0) << pool.err;
  ASSERT_NO_FATAL_FAILURE(expect_status_forbidden(member, cluster().token_for(kGroupUser), "research"));
  auto elsewhere = as(member, {"create", "-n", "default", "-f", "-"},
                      "apiVersion: gpupool.io/v1alpha1\nkind: TenantQuota\nmetadata:\n  name: research\nspec:\n  poolRef: {name: " +
                          std::string(kPool) + "}\n  resources: {nvidia.com/gpu: 1}\n");
  EXPECT_NE(elsewhere.status, 0);
  EXPECT_TRUE(contains(elsewhere.err, "forbidden")) << elsewhere.err;
}

}  // namespace
}  // namespace gpupool::test
