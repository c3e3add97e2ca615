// enumerate_maximal_layouts(): every combination of profiles to which no
// further instance fits.
#include <algorithm>
#include <map>
#include <tuple>

#include "mig_internal.h"

namespace gpupool::gpu {

namespace {

struct Candidate {
  const MigProfile* profile;
  std::size_t rank;  // index in largest-first order
  MigPlacement placement;
};

// Every valid layout, each set of placements once (candidates are added in
// ascending candidate order), recorded by its counts with the first placement
// found for them.
class FeasibleLayouts {
 public:
  explicit FeasibleLayouts(const MigCapability& mig) : mig_(mig), ranked_(detail::profiles_largest_first(mig)) {
    for (std::size_t r = 0; r < ranked_.size(); ++r) {
      for (const MigPlacement& pl : ranked_[r]->placements) candidates_.push_back({ranked_[r], r, pl});
    }
    std::sort(candidates_.begin(), candidates_.end(), [](const Candidate& a, const Candidate& b) {
      return std::tie(a.placement.start, a.rank) < std::tie(b.placement.start, b.rank);
    });
    counts_.assign(ranked_.size(), 0);
  }

  void run(std::size_t from, detail::SliceMask used, int compute) {
    found_.emplace(counts_, layout_);
    for (std::size_t c = from; c < candidates_.size(); ++c) {
      const Candidate& cand = candidates_[c];
      const detail::SliceMask m = detail::mask_of(cand.placement.start, cand.placement.size);
      if ((used & m) != 0 || compute + cand.profile->compute_slices > mig_.compute_slices ||
          counts_[cand.rank] >= cand.profile->max_count || (media_used_ && cand.profile->media_extensions)) {
        continue;
      }
      ++counts_[cand.rank];
      const bool media_before = media_used_;
      media_used_ = media_used_ || cand.profile->media_extensions;
      layout_.push_back({cand.profile->name, cand.placement.start, cand.placement.size});
      run(c + 1, used | m, compute + cand.profile->compute_slices);
      layout_.pop_back();
      media_used_ = media_before;
      --counts_[cand.rank];
    }
  }

  // Counts (by rank) -> one layout realising them.
  const std::map<std::vector<int>, Layout>& found() const { return found_; }
  const std::vector<const MigProfile*>& ranked() const { return ranked_; }

 private:
  const MigCapability& mig_;
  std::vector<const MigProfile*> ranked_;
  std::vector<Candidate> candidates_;
  std::vector<int> counts_;
  bool media_used_ = false;  // an instance holds the GPU's one set of media extensions
  Layout layout_;
  std::map<std::vector<int>, Layout> found_;
};

}  // namespace

std::vector<EnumeratedLayout> enumerate_maximal_layouts(const GpuModel& model) {
  if (!model.mig) return {};
  FeasibleLayouts feasible(*model.mig);
  feasible.run(0, 0, 0);
  const auto& found = feasible.found();

  // Maximal: one more instance of any profile gives counts no layout has.
  std::vector<std::pair<std::vector<int>, const Layout*>> maximal;
  for (const auto& [counts, layout] : found) {
    bool extendable = false;
    for (std::size_t r = 0; r < counts.size() && !extendable; ++r) {
      std::vector<int> more = counts;
      ++more[r];
      extendable = found.count(more) > 0;
    }
    if (!extendable) maximal.emplace_back(counts, &layout);
  }
  // Largest profiles first: 7g.40gb before 1g.5gb x 7.
  std::sort(maximal.begin(), maximal.end(), [](const auto& a, const auto& b) { return a.first > b.first; });

  std::vector<EnumeratedLayout> out;
  for (const auto& [counts, layout] : maximal) {
    EnumeratedLayout e;
    for (std::size_t r = 0; r < counts.size(); ++r) {
      if (counts[r] > 0) e.counts[feasible.ranked()[r]->name] = counts[r];
    }
    e.placement = *layout;
    detail::sort_layout(e.placement);
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace gpupool::gpu
