// Whether new disruptive work may start now, by the maintenance windows of an
// upgrade strategy. A window opens on each of its `days` at `start` local
// time in `timeZone` (IANA, from the OS time zone database) and stays open
// for `duration` of real time, so a window may run past midnight into the
// next day ("Fri 22:00 for 6h" is open Sat 03:00). Across daylight-saving
// changes: a start that falls into the hour the clocks skip opens when they
// jump (02:30 on the spring-forward night opens at 03:00 new time); a start
// that happens twice (fall back) opens at the first. The day is the local day
// the window opens on. Work already started is not stopped by a window closing
// (the caller's concern). Pure apart from reading the zone database.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "gpupool/api/common_types.h"

namespace gpupool::pool {

struct WindowCheck {
  bool open = false;
  // When closed: the next opening within 8 days, for the status message.
  std::optional<std::chrono::system_clock::time_point> next_open;
  // A window that cannot be read: "maintenanceWindows[1].timeZone: unknown
  // time zone \"Europe/Berlinn\"". Such a window never opens.
  std::vector<std::string> errors;
};

// Empty `windows`: always open.
WindowCheck check_windows(const std::vector<api::MaintenanceWindow>& windows, std::chrono::system_clock::time_point now);

}  // namespace gpupool::pool
