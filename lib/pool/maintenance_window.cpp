#include "gpupool/pool/maintenance_window.h"

#include <date/tz.h>

#include "gpupool/api/enum_names.h"

namespace gpupool::pool {
namespace {

using std::chrono::minutes;
using std::chrono::system_clock;

// date's weekday: Sunday = 0.
unsigned weekday_number(api::Weekday d) {
  switch (d) {
    case api::Weekday::sun: return 0;
    case api::Weekday::mon: return 1;
    case api::Weekday::tue: return 2;
    case api::Weekday::wed: return 3;
    case api::Weekday::thu: return 4;
    case api::Weekday::fri: return 5;
    case api::Weekday::sat: return 6;
  }
  return 7;
}

std::optional<minutes> parse_start(const std::string& s) {
  // "HH:MM", 00:00 .. 23:59 (the CRD's pattern)
  if (s.size() != 5 || s[2] != ':') return std::nullopt;
  for (int i : {0, 1, 3, 4}) {
    if (s[i] < '0' || s[i] > '9') return std::nullopt;
  }
  const int h = (s[0] - '0') * 10 + (s[1] - '0');
  const int m = (s[3] - '0') * 10 + (s[4] - '0');
  if (h > 23 || m > 59) return std::nullopt;
  return minutes(h * 60 + m);
}

// The moment local time `local` happens in `zone`: the first if twice, the
// end of the gap if never.
date::sys_seconds opening(const date::time_zone* zone, date::local_seconds local) {
  const date::local_info info = zone->get_info(local);
  switch (info.result) {
    case date::local_info::unique:
      return date::sys_seconds{local.time_since_epoch() - info.first.offset};
    case date::local_info::ambiguous:
      return date::sys_seconds{local.time_since_epoch() - info.first.offset};
    case date::local_info::nonexistent:
      return info.first.end;  // the clocks jump at the end of the first period
  }
  return date::sys_seconds{local.time_since_epoch() - info.first.offset};
}

}  // namespace

WindowCheck check_windows(const std::vector<api::MaintenanceWindow>& windows, system_clock::time_point now) {
  WindowCheck out;
  if (windows.empty()) {
    out.open = true;
    return out;
  }
  const auto now_s = std::chrono::time_point_cast<std::chrono::seconds>(now);
  for (std::size_t i = 0; i < windows.size(); ++i) {
    const auto& w = windows[i];
    const std::string at = "maintenanceWindows[" + std::to_string(i) + "]";
    const date::time_zone* zone = nullptr;
    try {
      zone = date::locate_zone(w.time_zone.empty() ? "UTC" : w.time_zone);
    } catch (const std::exception&) {
      out.errors.push_back(at + ".timeZone: unknown time zone \"" + w.time_zone + "\"");
      continue;
    }
    const auto start = parse_start(w.start);
    if (!start) {
      out.errors.push_back(at + ".start: \"" + w.start + "\" is not a time of day HH:MM");
      continue;
    }
    const auto length = std::chrono::duration_cast<std::chrono::seconds>(w.duration.value());
    // Windows last at most a day: ones that opened yesterday may still be
    // open; the next opening is at most a week and a day ahead.
    const auto today = date::floor<date::days>(zone->to_local(now_s));
    for (int offset = -2; offset <= 8; ++offset) {
      const date::local_days day = today + date::days(offset);
      const unsigned wd = date::weekday(day).c_encoding();
      bool listed = false;
      for (auto d : w.days) listed = listed || weekday_number(d) == wd;
      if (!listed) continue;
      const auto opens = opening(zone, date::local_seconds(day.time_since_epoch()) + *start);
      const auto closes = opens + length;
      if (opens <= now_s && now_s < closes) {
        out.open = true;  // the other windows are still read, for their errors
        break;
      }
      if (opens > now_s) {
        const auto t = system_clock::time_point(opens.time_since_epoch());
        if (!out.next_open || t < *out.next_open) out.next_open = t;
      }
    }
  }
  if (out.open) out.next_open.reset();
  return out;
}

}  // namespace gpupool::pool
