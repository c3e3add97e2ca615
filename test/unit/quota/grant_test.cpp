// decide_grants against tables worked out by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "gpupool/quota/grant.h"

namespace gpupool::quota {
namespace {

constexpr const char* kGpu = "nvidia.com/gpu";

Amounts gpus(std::int64_t n) { return {{kGpu, n * kMicro}}; }

QuotaAsk ask(const std::string& key, std::int64_t requested, std::int32_t priority = 0, std::int32_t weight = 1,
             std::int64_t created = 0) {
  QuotaAsk a;
  a.key = key;
  a.tenant = key.substr(0, key.find('/'));
  a.priority = priority;
  a.weight = weight;
  a.created = created;
  a.requested = gpus(requested);
  return a;
}

GrantRules pool(std::int64_t capacity) {
  GrantRules r;
  r.pool = "training-a100";
  r.capacity = gpus(capacity);
  return r;
}

std::int64_t granted(const PoolGrants& g, const std::string& key, const std::string& resource = kGpu) {
  for (const auto& q : g.quotas) {
    if (q.key != key) continue;
    auto it = q.granted.find(resource);
    return it == q.granted.end() ? 0 : it->second / (resource == kGpu ? kMicro : 1);
  }
  ADD_FAILURE() << "no quota " << key;
  return -1;
}

const QuotaGrant& quota(const PoolGrants& g, const std::string& key) {
  return *std::find_if(g.quotas.begin(), g.quotas.end(), [&](const QuotaGrant& q) { return q.key == key; });
}

struct Row {
  std::string name;
  GrantRules rules;
  std::vector<QuotaAsk> asks;
  std::map<std::string, std::int64_t> expected;  // key -> whole GPUs granted
};

TEST(DecideGrants, ContentionTable) {
  auto with = [](GrantRules r, auto f) {
    f(r);
    return r;
  };
  auto held = [](QuotaAsk a, std::int64_t n) {
    a.held = gpus(n);
    return a;
  };
  auto tenant = [](QuotaAsk a, const std::string& t) {
    a.tenant = t;
    return a;
  };
  const std::vector<Row> rows = {
      {"priority first", pool(8), {ask("a/q", 6, 10), ask("b/q", 6, 0)}, {{"a/q", 6}, {"b/q", 2}}},
      // 10 by weights 3:1 -> 7 and 2, the last one to the least per weight (b: 2/1 < a: 7/3).
      {"weighted fair share", pool(10), {ask("a/q", 10, 0, 3), ask("b/q", 10, 0, 1)}, {{"a/q", 7}, {"b/q", 3}}},
      // 10 / 3 = 3 each; a needs 2, so its third goes to b and c.
      {"unneeded share goes to the others", pool(10), {ask("a/q", 2), ask("b/q", 10), ask("c/q", 10)},
       {{"a/q", 2}, {"b/q", 4}, {"c/q", 4}}},
      {"age breaks the last tie", pool(3), {ask("b/q", 2, 0, 1, 200), ask("a/q", 2, 0, 1, 100)}, {{"a/q", 2}, {"b/q", 1}}},
      {"reserve kept back", with(pool(8), [](GrantRules& r) { r.reserve = gpus(2); }), {ask("a/q", 8)}, {{"a/q", 6}}},
      // All or nothing: smallest first (c 2, b 4), a's 6 no longer fits; a does not block them.
      {"no partial grants", with(pool(8), [](GrantRules& r) { r.partial = false; }),
       {ask("a/q", 6, 0, 1, 1), ask("b/q", 4, 0, 1, 2), ask("c/q", 2, 0, 1, 3)}, {{"a/q", 0}, {"b/q", 4}, {"c/q", 2}}},
      {"no partial grants, priority wins", with(pool(8), [](GrantRules& r) { r.partial = false; }),
       {ask("a/q", 6, 5), ask("b/q", 4), ask("c/q", 2)}, {{"a/q", 6}, {"b/q", 0}, {"c/q", 2}}},
      // Tenant t may hold 4: its higher-priority quota takes 3 of it first.
      {"maxPerTenant across a tenant's quotas", with(pool(16), [](GrantRules& r) { r.max_per_tenant = gpus(4); }),
       {tenant(ask("x/q1", 3, 5), "t"), tenant(ask("y/q2", 3, 0), "t"), ask("z/q", 3)},
       {{"x/q1", 3}, {"y/q2", 1}, {"z/q", 3}}},
      {"held grants are kept against a newer higher priority", pool(8), {held(ask("b/q", 4), 4), ask("a/q", 8, 10)},
       {{"b/q", 4}, {"a/q", 4}}},
      {"capacity falls: lowest priority shrinks first", pool(8), {held(ask("a/q", 6, 5), 6), held(ask("b/q", 4, 0), 4)},
       {{"a/q", 6}, {"b/q", 2}}},
      {"capacity falls: newest shrinks first at equal priority", pool(5),
       {held(ask("a/q", 3, 0, 1, 1), 3), held(ask("b/q", 3, 0, 1, 2), 3)}, {{"a/q", 3}, {"b/q", 2}}},
      {"a lowered request releases the rest", pool(8), {held(ask("a/q", 2), 6), ask("b/q", 6)}, {{"a/q", 2}, {"b/q", 6}}},
  };
  for (const auto& row : rows) {
    const PoolGrants g = decide_grants(row.asks, row.rules);
    for (const auto& [key, n] : row.expected) EXPECT_EQ(granted(g, key), n) << row.name << ": " << key;
    std::int64_t total = 0;
    for (const auto& [key, n] : row.expected) total += n;
    EXPECT_LE(total * kMicro, row.rules.capacity.at(kGpu)) << row.name;
  }
}

TEST(DecideGrants, OutcomesAndMessagesInNumbers) {
  GrantRules rules = pool(8);
  rules.max_per_tenant = gpus(6);
  QuotaAsk rejected = ask("r/q", 2);
  rejected.rejected = "namespace r may not request quota from pool training-a100 (GPUPolicy default: namespaces)";
  QuotaAsk expired = ask("e/q", 4, 100);
  expired.expired = true;
  const PoolGrants g = decide_grants({ask("a/q", 4, 10), ask("b/q", 8), rejected, expired, ask("c/q", 1, 0, 1, 99)}, rules);
  EXPECT_EQ(quota(g, "a/q").outcome, GrantOutcome::granted);
  EXPECT_EQ(quota(g, "a/q").message, "granted 4 nvidia.com/gpu");
  // b and c share 4: 2 each by weight, then c needs only 1.
  EXPECT_EQ(granted(g, "b/q"), 3);
  EXPECT_EQ(quota(g, "b/q").outcome, GrantOutcome::partially_granted);
  EXPECT_EQ(quota(g, "b/q").message, "granted 3 of 8 nvidia.com/gpu: pool training-a100 has 0 unreserved");
  EXPECT_EQ(quota(g, "r/q").outcome, GrantOutcome::rejected);
  EXPECT_EQ(quota(g, "r/q").message, *rejected.rejected);
  EXPECT_TRUE(quota(g, "r/q").granted.empty());
  EXPECT_EQ(quota(g, "e/q").outcome, GrantOutcome::expired) << "its capacity went back to the pool";
  EXPECT_TRUE(quota(g, "e/q").granted.empty());
  EXPECT_EQ(g.granted, gpus(8));
  EXPECT_EQ(g.unreserved, gpus(0));

  // Capped by the tenant maximum; nothing fits at all; a resource the pool lacks.
  GrantRules small = pool(2);
  small.max_per_tenant = gpus(1);
  QuotaAsk mixed = ask("m/q", 3);
  mixed.requested["amd.com/gpu"] = 2 * kMicro;
  const PoolGrants s = decide_grants({mixed, ask("n/q", 4, 0, 1, 5)}, small);
  EXPECT_EQ(quota(s, "m/q").message,
            "granted 0 of 2 amd.com/gpu: pool training-a100 has no amd.com/gpu; "
            "granted 1 of 3 nvidia.com/gpu: maxPerTenant allows 1 per tenant and tenant m asks more");
  EXPECT_EQ(quota(s, "n/q").outcome, GrantOutcome::partially_granted);
  GrantRules none = pool(0);
  EXPECT_EQ(quota(decide_grants({ask("a/q", 1)}, none), "a/q").outcome, GrantOutcome::pending);
}

TEST(DecideGrants, CapacityFallingIsSaid) {
  QuotaAsk a = ask("a/q", 6, 5);
  a.held = gpus(6);
  QuotaAsk b = ask("b/q", 4);
  b.held = gpus(4);
  const PoolGrants g = decide_grants({a, b}, pool(7));
  EXPECT_FALSE(quota(g, "a/q").capacity_reduced);
  EXPECT_TRUE(quota(g, "b/q").capacity_reduced);
  EXPECT_EQ(quota(g, "b/q").message,
            "the pool's capacity fell below the grants: granted 1 of 4 nvidia.com/gpu: pool training-a100 has 0 unreserved");
}

TEST(DecideGrants, ManualApprovalBindsToWhatWasApproved) {
  GrantRules rules = pool(16);
  rules.manual_approval = true;
  QuotaAsk fresh = ask("ml/train", 8);
  QuotaAsk raised = ask("ml/raised", 8);
  raised.approved = gpus(6);  // approved at 6, then raised to 8
  QuotaAsk lowered = ask("ml/lowered", 2);
  lowered.approved = gpus(4);
  const PoolGrants g = decide_grants({fresh, raised, lowered}, rules);
  EXPECT_EQ(quota(g, "ml/train").outcome, GrantOutcome::waiting_for_approval);
  EXPECT_EQ(quota(g, "ml/train").message, "waiting for an administrator: `gpupoolctl approve ml/train`");
  EXPECT_TRUE(quota(g, "ml/train").granted.empty());
  EXPECT_EQ(granted(g, "ml/raised"), 6);
  EXPECT_EQ(quota(g, "ml/raised").outcome, GrantOutcome::partially_granted);
  EXPECT_EQ(quota(g, "ml/raised").message,
            "granted 6 of 8 nvidia.com/gpu: 6 approved; an administrator approves the rest with `gpupoolctl approve ml/raised`");
  EXPECT_EQ(granted(g, "ml/lowered"), 2);
  EXPECT_EQ(quota(g, "ml/lowered").outcome, GrantOutcome::granted);
  // Automatic approval ignores the record.
  rules.manual_approval = false;
  EXPECT_EQ(granted(decide_grants({fresh, raised}, rules), "ml/raised"), 8);
}

// gpupool.io/gpu moves in thousandths of a GPU.
TEST(DecideGrants, NormalisedUnitIsGrantedInThousandths) {
  GrantRules rules;
  rules.pool = "mixed";
  rules.capacity = {{std::string(kGpuUnit), 2'500'000}};
  QuotaAsk a = ask("a/q", 0);
  a.requested = {{std::string(kGpuUnit), 1'750'000}};
  QuotaAsk b = ask("b/q", 0);
  b.requested = {{std::string(kGpuUnit), 2'000'000}};
  QuotaAsk c = ask("c/q", 0);
  c.requested = {{std::string(kGpuUnit), 1'000'000}};
  const PoolGrants g = decide_grants({a, b, c}, rules);
  // 2500 thousandths / 3 = 833 each, one left: to the oldest (all created at 0: by key, a).
  EXPECT_EQ(granted(g, "a/q", std::string(kGpuUnit)), 834'000);
  EXPECT_EQ(granted(g, "b/q", std::string(kGpuUnit)), 833'000);
  EXPECT_EQ(granted(g, "c/q", std::string(kGpuUnit)), 833'000);
  EXPECT_EQ(quota(g, "b/q").message, "granted 0.833 of 2 gpupool.io/gpu: pool mixed has 0 unreserved");
}

// Devices and gpupool.io/gpu are one set of GPUs: together never more than the pool has.
TEST(DecideGrants, DeviceGrantsUseUpTheNormalisedUnit) {
  const std::string unit(kGpuUnit);
  GrantRules rules = pool(4);
  rules.capacity[unit] = 4 * kMicro;
  rules.capacity["nvidia.com/mig-1g.10gb"] = 7 * kMicro;  // and one more GPU cut in seven
  rules.capacity[unit] += kMicro;
  rules.unit_costs = {{kGpu, kMicro}, {"nvidia.com/mig-1g.10gb", 142857}};
  QuotaAsk devices = ask("a/q", 3);
  devices.requested["nvidia.com/mig-1g.10gb"] = 7 * kMicro;
  QuotaAsk units = ask("b/q", 0, 10);
  units.requested = {{unit, 2 * kMicro}};
  // b's higher priority is served first: 2 of the 5 GPUs' worth. a then gets
  // the 3 whole GPUs it asks (3 left), and no slice fits in what remains.
  const PoolGrants g = decide_grants({devices, units}, rules);
  EXPECT_EQ(granted(g, "b/q", unit), 2 * kMicro);
  EXPECT_EQ(quota(g, "b/q").outcome, GrantOutcome::granted);
  EXPECT_EQ(granted(g, "a/q"), 3);
  EXPECT_EQ(granted(g, "a/q", "nvidia.com/mig-1g.10gb"), 0);
  EXPECT_EQ(quota(g, "a/q").message,
            "granted 0 of 7 nvidia.com/mig-1g.10gb: pool training-a100 has 0 unreserved");
  // With b at the same priority as a, a's devices come first, then b gets what they leave:
  // 5 - 3 - 7 x 1/7 (0.999999) = 1.000001, one GPU in thousandths.
  units.priority = 0;
  const PoolGrants same = decide_grants({devices, units}, rules);
  EXPECT_EQ(granted(same, "a/q", "nvidia.com/mig-1g.10gb"), 7 * kMicro);
  EXPECT_EQ(granted(same, "b/q", unit), kMicro);
  EXPECT_EQ(quota(same, "b/q").message, "granted 1 of 2 gpupool.io/gpu: pool training-a100 has 0.000001 unreserved");
  units.priority = 10;

  // All or nothing: the units quota (higher priority) goes first and the devices no longer fit.
  rules.partial = false;
  const PoolGrants whole = decide_grants({devices, units}, rules);
  EXPECT_EQ(granted(whole, "b/q", unit), 2 * kMicro);
  EXPECT_TRUE(quota(whole, "a/q").granted.empty()) << "3 GPUs + 7 slices need 3.999999 of the 3 left";
  // A device without a known cost counts as a whole GPU.
  rules.partial = true;
  rules.unit_costs.clear();
  const PoolGrants unknown = decide_grants({devices, units}, rules);
  EXPECT_EQ(granted(unknown, "b/q", unit), 2 * kMicro);
  EXPECT_EQ(granted(unknown, "a/q"), 3);
  EXPECT_EQ(granted(unknown, "a/q", "nvidia.com/mig-1g.10gb"), 0) << "each slice would count as a whole GPU: none is left";
}

// Random asks in both currencies: devices plus gpupool.io/gpu never guarantee more GPUs than there are.
TEST(DecideGrants, BothCurrenciesTogetherStayWithinTheGpus) {
  std::mt19937 rng(11);
  const std::string unit(kGpuUnit), mig("nvidia.com/mig-3g.40gb");
  for (int round = 0; round < 50; ++round) {
    GrantRules rules = pool(1 + static_cast<std::int64_t>(rng() % 8));
    rules.capacity[mig] = static_cast<std::int64_t>(rng() % 6) * kMicro;
    rules.capacity[unit] = rules.capacity[kGpu] + rules.capacity[mig] / 2;  // two 3g per GPU
    rules.unit_costs = {{kGpu, kMicro}, {mig, 428571}};
    rules.partial = rng() % 2 == 0;
    std::vector<QuotaAsk> asks;
    for (int i = 0; i < 8; ++i) {
      QuotaAsk a = ask("ns" + std::to_string(i) + "/q", static_cast<std::int64_t>(rng() % 4),
                       static_cast<std::int32_t>(rng() % 3));
      a.requested[mig] = static_cast<std::int64_t>(rng() % 3) * kMicro;
      a.requested[unit] = static_cast<std::int64_t>(rng() % 3000) * 1000;
      if (rng() % 3 == 0) a.held = {{unit, static_cast<std::int64_t>(rng() % 2000) * 1000}, {kGpu, kMicro}};
      asks.push_back(a);
    }
    const PoolGrants g = decide_grants(asks, rules);
    const auto get_or_zero = [&](const std::string& r) { return g.granted.count(r) ? g.granted.at(r) : 0; };
    const std::int64_t spent = get_or_zero(unit) + get_or_zero(kGpu) + get_or_zero(mig) / kMicro * 428571;
    EXPECT_LE(spent, rules.capacity[unit]) << "round " << round;
    EXPECT_LE(get_or_zero(kGpu), rules.capacity[kGpu]);
    EXPECT_LE(get_or_zero(mig), rules.capacity[mig]);
  }
}

// The same asks in any order give the same grants; the sum never exceeds capacity.
TEST(DecideGrants, DeterministicAndWithinCapacityForAnyOrder) {
  std::mt19937 rng(7);
  std::vector<QuotaAsk> asks;
  for (int i = 0; i < 40; ++i) {
    QuotaAsk a = ask("ns" + std::to_string(i) + "/q", 1 + static_cast<std::int64_t>(rng() % 9),
                     static_cast<std::int32_t>(rng() % 3), 1 + static_cast<std::int32_t>(rng() % 4),
                     static_cast<std::int64_t>(rng() % 5));
    if (i % 7 == 0) a.held = gpus(static_cast<std::int64_t>(rng() % 4));
    asks.push_back(a);
  }
  for (bool partial : {true, false}) {
    GrantRules rules = pool(61);
    rules.reserve = gpus(3);
    rules.partial = partial;
    const PoolGrants first = decide_grants(asks, rules);
    EXPECT_LE(first.granted.at(kGpu), 58 * kMicro);
    for (int round = 0; round < 5; ++round) {
      std::vector<QuotaAsk> shuffled = asks;
      std::shuffle(shuffled.begin(), shuffled.end(), rng);
      const PoolGrants again = decide_grants(shuffled, rules);
      for (const auto& q : first.quotas) EXPECT_EQ(quota(again, q.key).granted, q.granted) << q.key;
    }
  }
}

}  // namespace
}  // namespace gpupool::quota
