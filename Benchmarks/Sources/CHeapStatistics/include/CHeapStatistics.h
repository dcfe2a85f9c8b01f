#ifndef C_HEAP_STATISTICS_H
#define C_HEAP_STATISTICS_H

#include <stddef.h>

/// Bytes the allocator has handed out and not taken back, including its own per-block overhead.
size_t heap_bytes_in_use(void);

#endif
