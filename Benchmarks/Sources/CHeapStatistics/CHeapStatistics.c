#include "CHeapStatistics.h"

#if defined(__APPLE__)
#include <malloc/malloc.h>

size_t heap_bytes_in_use(void) {
  malloc_statistics_t statistics;
  malloc_zone_statistics(NULL, &statistics);
  return statistics.size_in_use;
}
#else
#include <malloc.h>

size_t heap_bytes_in_use(void) {
  // Blocks in the arena plus those malloc mapped on their own (large ones, such as a big dictionary's storage).
  struct mallinfo2 info = mallinfo2();
  return info.uordblks + info.hblkhd;
}
#endif
