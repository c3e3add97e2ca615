#include "gpupool/common/malloc_arenas.h"

#include <cstdlib>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace gpupool::common {

void limit_malloc_arenas(int arenas) {
#if defined(__GLIBC__)
  if (std::getenv("MALLOC_ARENA_MAX") != nullptr) return;
  mallopt(M_ARENA_MAX, arenas);
#else
  (void)arenas;
#endif
}

}  // namespace gpupool::common
