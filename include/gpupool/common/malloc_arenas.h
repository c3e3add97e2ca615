// How many malloc arenas a long-running process keeps (glibc).
//
// glibc gives threads their own arenas, up to 8 per core, and memory freed
// into one arena is not reused by another. The controller's writes run on
// short-lived helper threads (common/parallel.h) and the objects they
// allocate are freed by informer and worker threads, so freed memory
// scattered across arenas: at 2,000 nodes a rollout took the controller
// from 55 to 131 MiB with --concurrency 4, and to 111 MiB with two arenas.
#pragma once

namespace gpupool::common {

// Limits the arenas to `arenas` unless MALLOC_ARENA_MAX is set (the
// operator's choice wins). Call first in main, before any thread starts.
// Does nothing where the C library is not glibc.
void limit_malloc_arenas(int arenas);

}  // namespace gpupool::common
