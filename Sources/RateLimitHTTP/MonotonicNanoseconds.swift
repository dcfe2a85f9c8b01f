#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A monotonic clock reading in nanoseconds, for the middlewares' `ratelimit_decision_duration` timer: one
/// `clock_gettime`, a fifth of what `DispatchTime.now()` costs (two of them a request, on the hot path).
@usableFromInline package func monotonicNanoseconds() -> UInt64 {
  #if canImport(Darwin)
    return clock_gettime_nsec_np(CLOCK_UPTIME_RAW)
  #else
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
  #endif
}
