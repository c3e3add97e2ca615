// Properties every MIG model of the built-in catalog must have, whatever
// models the catalog holds: enumerated layouts are valid, maximal and
// plannable; single profiles plan up to their max count; limits are refused
// with the user-facing messages.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <tuple>

#include "gpu_fixtures.h"
#include "gpupool/gpu/mig_planner.h"

namespace gpupool::gpu {
namespace {

using testing::error_of;
using testing::ok;
using testing::value_of;

std::vector<const GpuModel*> mig_models(const Catalog& c) {
  std::vector<const GpuModel*> out;
  for (const GpuModel& m : c.models()) {
    if (m.mig) out.push_back(&m);
  }
  return out;
}

std::vector<const GpuModel*> all_mig_models() {
  std::vector<const GpuModel*> out = mig_models(Catalog::builtin());
  for (const GpuModel* m : mig_models(testing::fixture_catalog())) out.push_back(m);
  return out;
}

ProfileCounts counts_of(const Layout& layout) {
  ProfileCounts c;
  for (const PlacedInstance& i : layout) ++c[i.profile];
  return c;
}

// The planner's order: larger compute, then larger memory, then name.
std::vector<const MigProfile*> largest_first(const MigCapability& mig) {
  std::vector<const MigProfile*> out;
  for (const MigProfile& p : mig.profiles) out.push_back(&p);
  std::sort(out.begin(), out.end(), [](const MigProfile* a, const MigProfile* b) {
    return std::tuple(-a->compute_slices, -a->memory_mib, -a->memory_slices, a->name) <
           std::tuple(-b->compute_slices, -b->memory_mib, -b->memory_slices, b->name);
  });
  return out;
}

TEST(MigPlannerEveryModel, BuiltinHasMigModels) { EXPECT_FALSE(mig_models(Catalog::builtin()).empty()); }

TEST(MigPlannerEveryModel, EnumeratedLayoutsAreValidMaximalAndPlannable) {
  for (const GpuModel* m : all_mig_models()) {
    SCOPED_TRACE(m->id);
    const std::vector<EnumeratedLayout> layouts = enumerate_maximal_layouts(*m);
    ASSERT_FALSE(layouts.empty());
    std::set<ProfileCounts> seen;
    for (const EnumeratedLayout& l : layouts) {
      SCOPED_TRACE(format_profile_counts(l.counts, m));
      EXPECT_TRUE(seen.insert(l.counts).second) << "listed twice";
      EXPECT_EQ(counts_of(l.placement), l.counts);
      EXPECT_TRUE(std::is_sorted(l.placement.begin(), l.placement.end(),
                                 [](const PlacedInstance& a, const PlacedInstance& b) { return a.start < b.start; }));
      const auto checked = check_layout(*m, l.placement);
      EXPECT_TRUE(ok(checked)) << error_of(checked);
      EXPECT_EQ(counts_of(value_of(plan(*m, l.counts))), l.counts);
      for (const MigProfile& p : m->mig->profiles) {
        // No placement of one more instance is valid next to this one...
        for (const MigPlacement& pl : p.placements) {
          Layout more = l.placement;
          more.push_back({p.name, pl.start, pl.size});
          EXPECT_FALSE(ok(check_layout(*m, more))) << "room for " << p.name << " at " << pl.start;
        }
        // ...nor does any other arrangement hold one more.
        ProfileCounts more = l.counts;
        ++more[p.name];
        EXPECT_TRUE(std::holds_alternative<PlanError>(plan(*m, more))) << "plannable with another " << p.name;
      }
    }
    EXPECT_EQ(layouts.size(), enumerate_maximal_layouts(*m).size());
    EXPECT_TRUE(layouts.front().counts == enumerate_maximal_layouts(*m).front().counts);
  }
}

TEST(MigPlannerEveryModel, EverySingleProfileUpToItsMaximum) {
  for (const GpuModel* m : all_mig_models()) {
    SCOPED_TRACE(m->id);
    for (const MigProfile& p : m->mig->profiles) {
      SCOPED_TRACE(p.name);
      for (int n = 1; n <= p.max_count; ++n) {
        const Layout layout = value_of(plan(*m, {{p.name, n}}));
        EXPECT_EQ(layout.size(), static_cast<std::size_t>(n));
        EXPECT_TRUE(ok(check_layout(*m, layout)));
        for (const PlacedInstance& i : layout) EXPECT_EQ(i.profile, p.name);
      }
      // Past the slices, that is the reason given; else the maximum.
      const int n = p.max_count + 1;
      const std::string request = std::to_string(n) + " x " + p.name;
      const std::string expected =
          n * p.compute_slices > m->mig->compute_slices
              ? request + " need " + std::to_string(n * p.compute_slices) + " compute slices; " + short_name(*m) +
                    " has " + std::to_string(m->mig->compute_slices)
          : n * p.memory_slices > m->mig->memory_slices
              ? request + " need " + std::to_string(n * p.memory_slices) + " memory slices; " + short_name(*m) +
                    " has " + std::to_string(m->mig->memory_slices)
              : request + " exceed the maximum of " + std::to_string(p.max_count) + " for " + short_name(*m);
      EXPECT_EQ(error_of(plan(*m, {{p.name, n}})), expected);
    }
  }
}

TEST(MigPlannerEveryModel, ComputeOverflowIsRefused) {
  for (const GpuModel* m : all_mig_models()) {
    SCOPED_TRACE(m->id);
    // Largest profiles first, within their max counts, until past the compute slices.
    ProfileCounts request;
    std::vector<std::string> terms;
    int compute = 0;
    for (const MigProfile* p : largest_first(*m->mig)) {
      int n = 0;
      while (n < p->max_count && compute <= m->mig->compute_slices) {
        ++n;
        compute += p->compute_slices;
      }
      if (n == 0) break;
      request[p->name] = n;
      terms.push_back(n == 1 ? p->name : std::to_string(n) + " x " + p->name);
      if (compute > m->mig->compute_slices) break;
    }
    ASSERT_GT(compute, m->mig->compute_slices);
    std::string expected;
    for (const std::string& t : terms) expected += (expected.empty() ? "" : " + ") + t;
    EXPECT_EQ(error_of(plan(*m, request)), expected + " need " + std::to_string(compute) + " compute slices; " +
                                               short_name(*m) + " has " + std::to_string(m->mig->compute_slices));
  }
}

TEST(MigPlannerEveryModel, UnknownProfileAndEmptyRequest) {
  for (const GpuModel* m : all_mig_models()) {
    SCOPED_TRACE(m->id);
    const std::string message = error_of(plan(*m, {{"99g.1tb", 1}}));
    EXPECT_EQ(message.rfind("unknown profile 99g.1tb for " + short_name(*m) + " (known: ", 0), 0U) << message;
    for (const MigProfile& p : m->mig->profiles) GPUPOOL_EXPECT_CONTAINS(message, p.name);
    EXPECT_TRUE(value_of(plan(*m, {})).empty());
    EXPECT_TRUE(value_of(plan(*m, {{m->mig->profiles.front().name, 0}})).empty());
  }
}

TEST(MigPlannerEveryModel, CountsRoundTrip) {
  for (const GpuModel* m : all_mig_models()) {
    SCOPED_TRACE(m->id);
    for (const EnumeratedLayout& l : enumerate_maximal_layouts(*m)) {
      EXPECT_EQ(value_of(parse_profile_counts(format_profile_counts(l.counts, m))), l.counts);
      EXPECT_EQ(value_of(parse_profile_counts(format_profile_counts(l.counts))), l.counts);
    }
  }
}

TEST(MigPlannerEveryModel, ChangesBetweenMaximalLayouts) {
  for (const GpuModel* m : all_mig_models()) {
    SCOPED_TRACE(m->id);
    const std::vector<EnumeratedLayout> layouts = enumerate_maximal_layouts(*m);
    const std::size_t n = layouts.size();
    for (std::size_t i = 0; i < n; ++i) {
      const EnumeratedLayout& from = layouts[i];
      const LayoutChange same = value_of(plan_change(*m, from.placement, from.counts));
      EXPECT_EQ(same.keep.size(), from.placement.size());
      EXPECT_TRUE(same.destroy.empty());
      EXPECT_TRUE(same.create.empty());
      // To a few others (all pairs grow with the square of the layouts).
      for (std::size_t step : {std::size_t{1}, n / 3, n / 2, n - 1}) {
        const EnumeratedLayout& to = layouts[(i + step) % n];
        SCOPED_TRACE(format_profile_counts(from.counts, m) + " -> " + format_profile_counts(to.counts, m));
        const LayoutChange c = value_of(plan_change(*m, from.placement, to.counts));
        EXPECT_EQ(counts_of(c.result), to.counts);
        EXPECT_TRUE(ok(check_layout(*m, c.result)));
        EXPECT_EQ(c.keep.size() + c.destroy.size(), from.placement.size());
        EXPECT_EQ(c.keep.size() + c.create.size(), c.result.size());
      }
    }
  }
}

}  // namespace
}  // namespace gpupool::gpu
