// The tenant of each namespace for the agent's GPU metrics: the namespace's
// gpupool.io/tenant label, else its name, cached for a TTL; failed reads keep
// the last tenant and are logged once per streak; entries not asked for are
// forgotten. Then the agent's fetcher against a scripted API server.
#include "gpupool/node/namespace_tenants.h"

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <sstream>
#include <stdexcept>

#include "gpupool/kube/client.h"
#include "gpupool/kube/errors.h"
#include "support/scripted_client.h"
#include "support/scripted_server.h"

namespace gpupool::node {
namespace {

using namespace std::chrono_literals;
using Labels = NamespaceTenants::Labels;
using Tenants = std::map<std::string, std::string>;

// The default logger's lines ("warning message") while it lives.
class LogCapture {
 public:
  LogCapture() : previous_(spdlog::default_logger()) {
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out_);
    sink->set_pattern("%l %v");
    auto logger = std::make_shared<spdlog::logger>("capture", sink);
    logger->set_level(spdlog::level::trace);
    spdlog::set_default_logger(logger);
  }
  ~LogCapture() { spdlog::set_default_logger(previous_); }
  // Lines at `level` ("warning", "info") since the last call, then forgets them all.
  std::vector<std::string> take(const std::string& level) {
    std::vector<std::string> got;
    std::istringstream lines(out_.str());
    for (std::string l; std::getline(lines, l);) {
      if (l.rfind(level + " ", 0) == 0) got.push_back(l.substr(level.size() + 1));
    }
    return got;
  }
  void clear() { out_.str(""); }

 private:
  std::shared_ptr<spdlog::logger> previous_;
  std::ostringstream out_;
};

// What the API server says of a namespace.
struct Ns {
  enum Kind { labelled, missing, failing, failing_oddly } kind = labelled;
  Labels labels;
};
Ns with(Labels l) { return {Ns::labelled, std::move(l)}; }
const Ns kMissing{Ns::missing, {}};
const Ns kForbidden{Ns::failing, {}};

// One call: the clock at `at`, after `changes` to the world.
struct Call {
  const char* what;
  std::chrono::seconds at;
  std::map<std::string, Ns> changes;
  std::set<std::string> ask;
  Tenants want;
  std::vector<std::string> want_fetched;  // namespaces read during the call, in order
  int want_warns = 0;                     // warnings logged during the call
  int want_infos = 0;
  std::size_t want_size = 0;  // entries cached after the call
};

struct Script {
  const char* name;
  std::vector<Call> calls;
};

void play(const Script& script) {
  SCOPED_TRACE(script.name);
  LogCapture log;
  std::map<std::string, Ns> world;
  std::vector<std::string> fetched;
  const auto start = std::chrono::steady_clock::time_point{} + 1h;
  auto now = start;
  NamespaceTenantsOptions options;
  options.ttl = 300s;
  options.retry = 30s;
  options.forget_after = 900s;
  NamespaceTenants tenants(
      [&](const std::string& ns) -> std::optional<Labels> {
        fetched.push_back(ns);
        const auto it = world.find(ns);
        if (it == world.end() || it->second.kind == Ns::missing) return std::nullopt;
        if (it->second.kind == Ns::failing) {
          throw kube::ApiError(403, kube::StatusReason::Forbidden,
                               "namespaces \"" + ns + "\" is forbidden: User \"system:serviceaccount:gpupool-system:gpupool-agent\" "
                               "cannot get resource \"namespaces\"");
        }
        if (it->second.kind == Ns::failing_oddly) throw 42;
        return it->second.labels;
      },
      options, [&] { return now; });
  for (const auto& c : script.calls) {
    SCOPED_TRACE(c.what);
    for (const auto& [ns, state] : c.changes) world[ns] = state;
    fetched.clear();
    log.clear();
    now = start + c.at;
    EXPECT_EQ(tenants.tenants(c.ask), c.want);
    EXPECT_EQ(fetched, c.want_fetched);
    const auto warns = log.take("warning");
    EXPECT_EQ(static_cast<int>(warns.size()), c.want_warns) << ::testing::PrintToString(warns);
    for (const auto& w : warns) {
      EXPECT_NE(w.find("cannot read namespace"), std::string::npos) << w;
      EXPECT_NE(w.find("is forbidden"), std::string::npos) << "names the error: " << w;
    }
    EXPECT_EQ(static_cast<int>(log.take("info").size()), c.want_infos);
    EXPECT_EQ(tenants.size(), c.want_size);
  }
}

TEST(NamespaceTenants, TheLabelElseTheName) {
  play({"one call",
        {{"label, no label, an empty label, another label, a missing namespace",
          0s,
          {{"ml", with({{"gpupool.io/tenant", "team-a"}, {"app", "x"}})},
           {"plain", with({{"app", "y"}})},
           {"empty", with({{"gpupool.io/tenant", ""}})},
           {"ml-2", with({{"gpupool.io/tenant", "team-a"}})}},
          {"ml", "plain", "empty", "ml-2", "gone"},
          {{"ml", "team-a"}, {"plain", "plain"}, {"empty", "empty"}, {"ml-2", "team-a"}, {"gone", "gone"}},
          {"empty", "gone", "ml", "ml-2", "plain"},
          0, 0, 5},
         {"nothing asked: nothing read", 1s, {}, {}, {}, {}, 0, 0, 5}}});
}

TEST(NamespaceTenants, ReadAgainAfterTheTtl) {
  play({"label changes",
        {{"first read", 0s, {{"ml", with({{"gpupool.io/tenant", "team-a"}})}}, {"ml"}, {{"ml", "team-a"}}, {"ml"}, 0, 0, 1},
         {"cached within the TTL, though the label changed", 299s, {{"ml", with({{"gpupool.io/tenant", "team-b"}})}},
          {"ml"}, {{"ml", "team-a"}}, {}, 0, 0, 1},
         {"read again at the TTL", 300s, {}, {"ml"}, {{"ml", "team-b"}}, {"ml"}, 0, 0, 1},
         {"a new namespace is read, the cached one not", 310s, {}, {"ml", "new"}, {{"ml", "team-b"}, {"new", "new"}},
          {"new"}, 0, 0, 2},
         {"label removed, seen after the TTL", 600s, {{"ml", with({})}}, {"ml"}, {{"ml", "ml"}}, {"ml"}, 0, 0, 2},
         {"a missing namespace is asked again after the TTL and now exists", 610s,
          {{"new", with({{"gpupool.io/tenant", "team-c"}})}}, {"new"}, {{"new", "team-c"}}, {"new"}, 0, 0, 2}}});
}

TEST(NamespaceTenants, FailuresKeepTheLastTenantAndAreLoggedOncePerStreak) {
  play({"403 then fixed",
        {{"forbidden from the start: the name, one warning", 0s, {{"ml", kForbidden}}, {"ml"}, {{"ml", "ml"}}, {"ml"}, 1, 0, 1},
         {"not retried before `retry`", 29s, {}, {"ml"}, {{"ml", "ml"}}, {}, 0, 0, 1},
         {"retried after `retry`, still failing: no second warning", 30s, {}, {"ml"}, {{"ml", "ml"}}, {"ml"}, 0, 0, 1},
         {"RBAC fixed: the label, the recovery logged", 60s, {{"ml", with({{"gpupool.io/tenant", "team-a"}})}}, {"ml"},
          {{"ml", "team-a"}}, {"ml"}, 0, 1, 1},
         {"failing again at the TTL: the last tenant kept, a new streak warned", 360s, {{"ml", kForbidden}}, {"ml"},
          {{"ml", "team-a"}}, {"ml"}, 1, 0, 1},
         {"any exception is caught", 390s, {{"ml", Ns{Ns::failing_oddly, {}}}}, {"ml"}, {{"ml", "team-a"}}, {"ml"}, 0, 0, 1},
         {"a second namespace failing has its own warning", 420s, {{"other", kForbidden}}, {"ml", "other"},
          {{"ml", "team-a"}, {"other", "other"}}, {"ml", "other"}, 1, 0, 2},
         {"back", 450s, {{"ml", with({{"gpupool.io/tenant", "team-b"}})}, {"other", kMissing}}, {"ml", "other"},
          {{"ml", "team-b"}, {"other", "other"}}, {"ml", "other"}, 0, 2, 2}}});
}

TEST(NamespaceTenants, ForgetsNamespacesNotAskedFor) {
  play({"pods leave",
        {{"two namespaces", 0s, {{"a", with({})}, {"b", with({})}}, {"a", "b"}, {{"a", "a"}, {"b", "b"}}, {"a", "b"}, 0, 0, 2},
         {"only a, within forget_after: b kept", 900s, {}, {"a"}, {{"a", "a"}}, {"a"}, 0, 0, 2},
         {"only a, past forget_after for b: b dropped", 901s, {}, {"a"}, {{"a", "a"}}, {}, 0, 0, 1},
         {"nobody holds a GPU for long: all dropped", 1802s, {}, {}, {}, {}, 0, 0, 0},
         {"b again: read anew", 1803s, {{"b", with({{"gpupool.io/tenant", "t"}})}}, {"b"}, {{"b", "t"}}, {"b"}, 0, 0, 1}}});
}

// The agent's fetcher over HTTP.
TEST(NamespaceLabelFetcher, ReadsTheNamespacesLabels) {
  test::ScriptedServer server;
  const auto fetch = namespace_label_fetcher(std::make_shared<kube::Client>(test::scripted_config(server, 2s)));
  struct Case {
    const char* name;
    test::Step answer;
    std::optional<Labels> want;
    bool throws = false;
  };
  const std::vector<Case> cases = {
      {"labels",
       test::json_step(200, R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"ml","labels":)"
                            R"({"gpupool.io/tenant":"team-a","kubernetes.io/metadata.name":"ml"}}})"),
       Labels{{"gpupool.io/tenant", "team-a"}, {"kubernetes.io/metadata.name", "ml"}}},
      {"no labels", test::json_step(200, R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"ml"}})"), Labels{}},
      {"not found", test::status_step(404, "NotFound", "namespaces \"ml\" not found"), std::nullopt},
      {"forbidden", test::status_step(403, "Forbidden", "namespaces \"ml\" is forbidden"), std::nullopt, true},
      {"server error", test::status_step(500, "InternalError", "etcd is down"), std::nullopt, true},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    server.enqueue(c.answer);
    const auto before = server.requests().size();
    if (c.throws) {
      EXPECT_THROW(fetch("ml"), kube::ApiError);
    } else {
      EXPECT_EQ(fetch("ml"), c.want);
    }
    const auto requests = server.requests();
    ASSERT_EQ(requests.size(), before + 1);
    EXPECT_EQ(requests.back().method, "GET");
    EXPECT_EQ(requests.back().path, "/api/v1/namespaces/ml");
  }
}

}  // namespace
}  // namespace gpupool::node
