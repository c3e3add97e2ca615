// The informer's cache: objects of one kind keyed by "namespace/name", with
// secondary indexes (pods by node, objects by namespace or label value).
// Objects are immutable once stored and shared by pointer, so readers never
// copy them and never see one change under them. Thread-safe: many readers,
// one writer (the informer).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace gpupool::runtime {

template <class T>
class Store {
 public:
  using Ptr = std::shared_ptr<const T>;
  // The values an object has in one index (none: not indexed there).
  using IndexFunc = std::function<std::vector<std::string>(const T&)>;

  // Adds an index (or replaces the one of that name), indexing the objects
  // stored already.
  void add_index(const std::string& name, IndexFunc fn) {
    std::unique_lock lock(mu_);
    Index& idx = indexes_[name];
    idx.fn = std::move(fn);
    idx.keys_by_value.clear();
    for (const auto& [key, obj] : items_) {
      for (const auto& v : idx.fn(*obj)) idx.keys_by_value[v].insert(key);
    }
  }

  // Whether an index of that name was added.
  bool has_index(const std::string& name) const {
    std::shared_lock lock(mu_);
    return indexes_.count(name) > 0;
  }

  Ptr get(const std::string& key) const {
    std::shared_lock lock(mu_);
    auto it = items_.find(key);
    return it == items_.end() ? nullptr : it->second;
  }

  std::vector<Ptr> list() const {
    std::shared_lock lock(mu_);
    std::vector<Ptr> out;
    out.reserve(items_.size());
    for (const auto& [key, obj] : items_) out.push_back(obj);
    return out;
  }

  std::vector<std::string> keys() const {
    std::shared_lock lock(mu_);
    std::vector<std::string> out;
    out.reserve(items_.size());
    for (const auto& [key, obj] : items_) out.push_back(key);
    return out;
  }

  // Objects whose index `name` contains `value`. Throws std::out_of_range for an unknown index.
  std::vector<Ptr> by_index(const std::string& name, const std::string& value) const {
    std::shared_lock lock(mu_);
    const auto& index = indexes_.at(name);
    std::vector<Ptr> out;
    auto it = index.keys_by_value.find(value);
    if (it == index.keys_by_value.end()) return out;
    for (const auto& key : it->second) {
      if (auto obj = items_.find(key); obj != items_.end()) out.push_back(obj->second);
    }
    return out;
  }

  std::size_t size() const {
    std::shared_lock lock(mu_);
    return items_.size();
  }

  // Counts the writes (upserts and erases) so far: equal counts mean no
  // object changed between two readings, so a reader may skip its walk.
  std::uint64_t revision() const {
    std::shared_lock lock(mu_);
    return revision_;
  }

  // Writer side (the informer). Returns the object replaced or removed, if any.
  Ptr upsert(const std::string& key, Ptr obj) {
    std::unique_lock lock(mu_);
    ++revision_;
    Ptr old;
    if (auto it = items_.find(key); it != items_.end()) {
      old = it->second;
      unindex(key, *old);
      it->second = obj;
    } else {
      items_.emplace(key, obj);
    }
    index(key, *obj);
    return old;
  }

  Ptr erase(const std::string& key) {
    std::unique_lock lock(mu_);
    auto it = items_.find(key);
    if (it == items_.end()) return nullptr;
    ++revision_;
    Ptr old = it->second;
    unindex(key, *old);
    items_.erase(it);
    return old;
  }

 private:
  struct Index {
    IndexFunc fn;
    std::unordered_map<std::string, std::set<std::string>> keys_by_value;
  };

  void index(const std::string& key, const T& obj) {
    for (auto& [name, idx] : indexes_) {
      for (const auto& v : idx.fn(obj)) idx.keys_by_value[v].insert(key);
    }
  }
  void unindex(const std::string& key, const T& obj) {
    for (auto& [name, idx] : indexes_) {
      for (const auto& v : idx.fn(obj)) {
        auto it = idx.keys_by_value.find(v);
        if (it == idx.keys_by_value.end()) continue;
        it->second.erase(key);
        if (it->second.empty()) idx.keys_by_value.erase(it);
      }
    }
  }

  mutable std::shared_mutex mu_;
  std::unordered_map<std::string, Ptr> items_;
  std::map<std::string, Index> indexes_;
  std::uint64_t revision_ = 0;
};

}  // namespace gpupool::runtime
