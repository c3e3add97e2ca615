// check_windows: days, midnight, DST in a non-UTC zone, errors. Times are
// written as UTC instants; the comments give the local time.
#include <gtest/gtest.h>

#include "gpupool/common/rfc3339.h"
#include "gpupool/pool/maintenance_window.h"

namespace gpupool::pool {
namespace {

std::chrono::system_clock::time_point at(const char* rfc3339) {
  auto t = parse_rfc3339(rfc3339);
  EXPECT_TRUE(t.has_value()) << rfc3339;
  return to_system_clock(*t);
}

api::MaintenanceWindow window(std::vector<api::Weekday> days, std::string start, const char* duration, std::string zone) {
  api::MaintenanceWindow w;
  w.days = std::move(days);
  w.start = std::move(start);
  w.duration = api::Duration::literal(duration);
  w.time_zone = std::move(zone);
  return w;
}

using api::Weekday;

TEST(MaintenanceWindows, Table) {
  // Fri 22:00 for 6h in Berlin (UTC+1 in winter): Fri 21:00Z .. Sat 03:00Z.
  const auto fri_night = window({Weekday::fri}, "22:00", "6h", "Europe/Berlin");
  // Sun 02:30 for 1h in Berlin: on 2026-03-29 02:30 does not exist (clocks
  // jump 02:00 -> 03:00 CET -> CEST); on 2026-10-25 it happens twice.
  const auto sun_0230 = window({Weekday::sun}, "02:30", "1h", "Europe/Berlin");
  // New York, every weekday 09:00 for 30m.
  const auto ny = window({Weekday::mon, Weekday::tue, Weekday::wed, Weekday::thu, Weekday::fri}, "09:00", "30m",
                         "America/New_York");
  struct Case {
    std::string name;
    std::vector<api::MaintenanceWindow> windows;
    const char* now;
    bool open;
  };
  const std::vector<Case> cases = {
      {"no windows: always", {}, "2026-11-25T12:00:00Z", true},
      {"Fri 21:59 local: not yet", {fri_night}, "2026-11-27T20:59:00Z", false},
      {"Fri 22:00 local: opens", {fri_night}, "2026-11-27T21:00:00Z", true},
      {"Sat 01:00 local: still open past midnight", {fri_night}, "2026-11-28T00:00:00Z", true},
      {"Sat 03:59 local: open (6h)", {fri_night}, "2026-11-28T02:59:59Z", true},
      {"Sat 04:00 local: closed", {fri_night}, "2026-11-28T03:00:00Z", false},
      {"Sat 22:00 local: not a listed day", {fri_night}, "2026-11-28T21:00:00Z", false},
      // Spring forward: 02:30 never happens; the window opens at the jump
      // (01:00Z = 03:00 CEST) and lasts 1h of real time.
      {"spring forward: 00:59Z (01:59 CET) closed", {sun_0230}, "2026-03-29T00:59:00Z", false},
      {"spring forward: 01:00Z (03:00 CEST) open", {sun_0230}, "2026-03-29T01:00:00Z", true},
      {"spring forward: 01:59Z open", {sun_0230}, "2026-03-29T01:59:00Z", true},
      {"spring forward: 02:00Z closed", {sun_0230}, "2026-03-29T02:00:00Z", false},
      // Fall back: 02:30 happens at 00:30Z (CEST) and 01:30Z (CET); the first.
      {"fall back: 00:29Z closed", {sun_0230}, "2026-10-25T00:29:00Z", false},
      {"fall back: 00:30Z (first 02:30) open", {sun_0230}, "2026-10-25T00:30:00Z", true},
      {"fall back: 01:29Z open", {sun_0230}, "2026-10-25T01:29:00Z", true},
      {"fall back: 01:30Z (second 02:30) closed: 1h of real time", {sun_0230}, "2026-10-25T01:30:00Z", false},
      // Summer: Berlin is UTC+2, so a 02:30 window is 00:30Z.
      {"summer Sunday 00:45Z open", {sun_0230}, "2026-07-05T00:45:00Z", true},
      // New York: 09:00 EST = 14:00Z in November, 09:00 EDT = 13:00Z in July.
      {"NY winter 14:10Z open", {ny}, "2026-11-25T14:10:00Z", true},
      {"NY winter 13:10Z closed", {ny}, "2026-11-25T13:10:00Z", false},
      {"NY summer 13:10Z open", {ny}, "2026-07-08T13:10:00Z", true},
      {"NY Saturday closed", {ny}, "2026-11-28T14:10:00Z", false},
      {"any of several windows", {fri_night, ny}, "2026-11-25T14:10:00Z", true},
  };
  for (const auto& c : cases) {
    const auto r = check_windows(c.windows, at(c.now));
    EXPECT_EQ(r.open, c.open) << c.name;
    EXPECT_TRUE(r.errors.empty()) << c.name;
    if (!c.open) {
      EXPECT_TRUE(r.next_open.has_value()) << c.name << ": closed windows say when they open";
    }
  }
}

TEST(MaintenanceWindows, NextOpeningIsTheEarliest) {
  const auto w = window({Weekday::sat}, "01:00", "1h", "UTC");
  const auto r = check_windows({w}, at("2026-11-25T12:00:00Z"));  // a Wednesday
  ASSERT_TRUE(r.next_open.has_value());
  EXPECT_EQ(*r.next_open, at("2026-11-28T01:00:00Z"));
}

TEST(MaintenanceWindows, AnUnknownZoneOrStartIsReportedAndNeverOpens) {
  auto bad_zone = window({Weekday::wed}, "00:00", "24h", "Europe/Berlinn");
  auto bad_start = window({Weekday::wed}, "25:00", "1h", "UTC");
  const auto r = check_windows({bad_zone, bad_start}, at("2026-11-25T12:00:00Z"));
  EXPECT_FALSE(r.open);
  ASSERT_EQ(r.errors.size(), 2u);
  EXPECT_EQ(r.errors[0], "maintenanceWindows[0].timeZone: unknown time zone \"Europe/Berlinn\"");
  EXPECT_EQ(r.errors[1], "maintenanceWindows[1].start: \"25:00\" is not a time of day HH:MM");
  // A good window beside a bad one still opens, and the error is still said.
  const auto mixed = check_windows({bad_zone, window({Weekday::wed}, "11:00", "2h", "UTC")}, at("2026-11-25T12:00:00Z"));
  EXPECT_TRUE(mixed.open);
  EXPECT_EQ(mixed.errors.size(), 1u);
}

}  // namespace
}  // namespace gpupool::pool
