// runtime::Store's indexes (include/gpupool/runtime/store.h): an index added
// to a filled store covers what it holds, and one added again under the same
// name replaces the old one.
#include "gpupool/runtime/store.h"

#include <gtest/gtest.h>

namespace gpupool::runtime {
namespace {

struct Item {
  std::string name, color;
};

std::vector<std::string> names(const std::vector<Store<Item>::Ptr>& items) {
  std::vector<std::string> out;
  for (const auto& i : items) out.push_back(i->name);
  std::sort(out.begin(), out.end());
  return out;
}

TEST(Store, AnIndexAddedLateCoversWhatIsStoredAndFollowsChanges) {
  Store<Item> store;
  store.upsert("a", std::make_shared<const Item>(Item{"a", "red"}));
  store.upsert("b", std::make_shared<const Item>(Item{"b", "blue"}));
  EXPECT_FALSE(store.has_index("color"));
  store.add_index("color", [](const Item& i) { return std::vector<std::string>{i.color}; });
  EXPECT_TRUE(store.has_index("color"));
  EXPECT_EQ(names(store.by_index("color", "red")), (std::vector<std::string>{"a"}));
  store.upsert("b", std::make_shared<const Item>(Item{"b", "red"}));
  EXPECT_EQ(names(store.by_index("color", "red")), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(store.by_index("color", "blue").empty());
  store.erase("a");
  EXPECT_EQ(names(store.by_index("color", "red")), (std::vector<std::string>{"b"}));
}

TEST(Store, AddingAnIndexAgainReplacesIt) {
  Store<Item> store;
  store.upsert("a", std::make_shared<const Item>(Item{"a", "red"}));
  store.add_index("i", [](const Item& i) { return std::vector<std::string>{i.color}; });
  store.add_index("i", [](const Item& i) { return std::vector<std::string>{"name:" + i.name}; });
  EXPECT_TRUE(store.by_index("i", "red").empty()) << "no value of the old function is left";
  EXPECT_EQ(names(store.by_index("i", "name:a")), (std::vector<std::string>{"a"}));
  EXPECT_THROW(store.by_index("unknown", "x"), std::out_of_range);
}

TEST(Store, RevisionCountsTheWrites) {
  Store<Item> store;
  EXPECT_EQ(store.revision(), 0u);
  store.upsert("a", std::make_shared<const Item>(Item{"a", "red"}));
  store.upsert("a", std::make_shared<const Item>(Item{"a", "red"}));  // the same again is still a write
  EXPECT_EQ(store.revision(), 2u);
  store.add_index("color", [](const Item& i) { return std::vector<std::string>{i.color}; });
  (void)store.list();
  EXPECT_EQ(store.revision(), 2u) << "an index and reads write no object";
  store.erase("missing");
  EXPECT_EQ(store.revision(), 2u) << "nothing erased";
  store.erase("a");
  EXPECT_EQ(store.revision(), 3u);
}

}  // namespace
}  // namespace gpupool::runtime
