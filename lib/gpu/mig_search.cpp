// Backtracking over placements: where a request goes, and how much of it
// fits when all of it does not.
#include "mig_internal.h"
#include "text.h"

namespace gpupool::gpu::detail {

namespace {

// One instance per wanted count, largest profile first.
std::vector<const MigProfile*> expand(const MigCapability& mig, const ProfileCounts& wanted) {
  std::vector<const MigProfile*> items;
  for (const MigProfile* p : profiles_largest_first(mig)) {
    const auto it = wanted.find(p->name);
    for (int n = 0; it != wanted.end() && n < it->second; ++n) items.push_back(p);
  }
  return items;
}

class ExactSearch {
 public:
  explicit ExactSearch(std::vector<const MigProfile*> items) : items_(std::move(items)) {}

  bool run(std::size_t i, SliceMask used) {
    if (i == items_.size()) return true;
    const MigProfile& p = *items_[i];
    // Instances of one profile take ascending starts: no permutation is tried twice.
    const int min_start = (i > 0 && items_[i - 1] == items_[i]) ? layout_.back().start + 1 : 0;
    for (const MigPlacement& pl : p.placements) {
      const SliceMask m = mask_of(pl.start, pl.size);
      if (pl.start < min_start || (used & m) != 0) continue;
      layout_.push_back({p.name, pl.start, pl.size});
      if (run(i + 1, used | m)) return true;
      layout_.pop_back();
    }
    return false;
  }

  Layout layout() const { return layout_; }

 private:
  std::vector<const MigProfile*> items_;
  Layout layout_;
};

// The largest part of a request that fits together (the request's sums are
// within bounds, so only positions matter).
class LargestSubset {
 public:
  LargestSubset(const MigCapability& mig, const ProfileCounts& wanted) {
    for (const MigProfile* p : profiles_largest_first(mig)) {
      const auto it = wanted.find(p->name);
      if (it != wanted.end() && it->second > 0) profiles_.emplace_back(p, it->second);
    }
  }

  void run(std::size_t k, int placed, int min_start, SliceMask used) {
    if (layout_.size() > best_.size()) best_ = layout_;
    if (k == profiles_.size()) return;
    const auto [p, count] = profiles_[k];
    if (placed < count) {
      for (const MigPlacement& pl : p->placements) {
        const SliceMask m = mask_of(pl.start, pl.size);
        if (pl.start < min_start || (used & m) != 0) continue;
        layout_.push_back({p->name, pl.start, pl.size});
        run(k, placed + 1, pl.start + 1, used | m);
        layout_.pop_back();
      }
    }
    run(k + 1, 0, 0, used);
  }

  const Layout& best() const { return best_; }

 private:
  std::vector<std::pair<const MigProfile*, int>> profiles_;
  Layout layout_;
  Layout best_;
};

}  // namespace

std::optional<Layout> place(const MigCapability& mig, const ProfileCounts& wanted, SliceMask occupied) {
  ExactSearch search(expand(mig, wanted));
  if (!search.run(0, occupied)) return std::nullopt;
  Layout layout = search.layout();
  sort_layout(layout);
  return layout;
}

std::string why_no_placement(const GpuModel& model, const ProfileCounts& wanted) {
  const MigCapability& mig = *model.mig;
  LargestSubset search(mig, wanted);
  search.run(0, 0, 0, 0);
  int total = 0;
  for (const auto& [name, count] : wanted) total += count;
  std::vector<std::string> starts;
  for (const auto& [name, count] : largest_first(wanted, &model)) {
    std::vector<std::string> s;
    for (const MigPlacement& pl : known_profile(mig, name).placements) s.push_back(std::to_string(pl.start));
    starts.push_back(name + " at " + text::join(s, ", "));
  }
  const Layout& best = search.best();
  return "at most " + std::to_string(best.size()) + " of the " + std::to_string(total) +
         " instances fit together, e.g. " + describe_counts(counts_of(best), &model) +
         " (memory slices where each may start: " + text::join(starts, "; ") + ")";
}

}  // namespace gpupool::gpu::detail
