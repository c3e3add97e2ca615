#include "apiserver_load.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "exposition_samples.h"

namespace gpupool::bench {
namespace {

struct Scrape {
  double cpu_s = 0;
  std::map<std::string, double> requests;  // "VERB resource[/subresource]" -> count
};

Scrape read_scrape(std::string_view exposition) {
  Scrape s;
  for_each_sample(exposition, [&](std::string_view metric, std::string_view labels, double v) {
    if (metric == "process_cpu_seconds_total") s.cpu_s = v;
    if (metric != "apiserver_request_total") return;
    std::string what = label_value(labels, "verb") + " " + label_value(labels, "resource");
    const std::string sub = label_value(labels, "subresource");
    // Non-resource paths (/healthz, /metrics) have their path as the subresource.
    if (!sub.empty()) what += (sub.front() == '/' ? "" : "/") + sub;
    s.requests[what] += v;
  });
  return s;
}

double increase(double before, double after) { return after >= before ? after - before : after; }

}  // namespace

ApiserverLoad apiserver_load(std::string_view before, std::string_view after, std::size_t top) {
  const Scrape a = read_scrape(before), b = read_scrape(after);
  ApiserverLoad out;
  out.cpu_s = increase(a.cpu_s, b.cpu_s);
  std::vector<RequestCount> all;
  for (const auto& [what, count] : b.requests) {
    auto was = a.requests.find(what);
    const double n = increase(was == a.requests.end() ? 0 : was->second, count);
    if (n <= 0) continue;
    out.requests += n;
    all.push_back({what, n});
  }
  std::sort(all.begin(), all.end(), [](const RequestCount& x, const RequestCount& y) {
    return x.count != y.count ? x.count > y.count : x.what < y.what;
  });
  if (all.size() > top) all.resize(top);
  out.top = std::move(all);
  return out;
}

std::string describe_requests(const ApiserverLoad& load) {
  std::string out;
  for (const auto& r : load.top) {
    char count[32];
    std::snprintf(count, sizeof count, "%.0f", r.count);
    out += (out.empty() ? "" : ", ") + std::string(count) + " " + r.what;
  }
  return out;
}

}  // namespace gpupool::bench
