#include "gpupool/kube/micro_time.h"

#include <cstdio>

namespace gpupool::kube {

namespace {

std::string format(std::chrono::system_clock::time_point t, bool micros) {
  using namespace std::chrono;
  const auto us = time_point_cast<microseconds>(t);
  const auto day = floor<days>(us);
  const year_month_day ymd{day};
  const hh_mm_ss hms{floor<microseconds>(us - day)};
  char buf[40];
  const int y = static_cast<int>(ymd.year());
  const auto mo = static_cast<unsigned>(ymd.month());
  const auto d = static_cast<unsigned>(ymd.day());
  const auto h = static_cast<long>(hms.hours().count());
  const auto mi = static_cast<long>(hms.minutes().count());
  const auto s = static_cast<long>(hms.seconds().count());
  if (micros) {
    std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02ld:%02ld:%02ld.%06ldZ", y, mo, d, h, mi, s,
                  static_cast<long>(hms.subseconds().count()));
  } else {
    std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02ld:%02ld:%02ldZ", y, mo, d, h, mi, s);
  }
  return buf;
}

}  // namespace

std::string format_micro_time(std::chrono::system_clock::time_point t) { return format(t, true); }
std::string format_time(std::chrono::system_clock::time_point t) { return format(t, false); }

}  // namespace gpupool::kube
