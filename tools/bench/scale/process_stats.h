// What /proc says of a process: its memory and CPU time (Linux).
#pragma once

#include <sys/types.h>

#include <optional>

namespace gpupool::bench {

struct ProcessStats {
  double rss_mib = 0;       // VmRSS
  double peak_rss_mib = 0;  // VmHWM: the most it has held resident
  double cpu_seconds = 0;   // utime + stime
};

// nullopt when the process is gone.
std::optional<ProcessStats> process_stats(pid_t pid);

}  // namespace gpupool::bench
