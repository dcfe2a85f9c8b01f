#if Postgres
  public import RateLimit

  /// `SharedKeyedLimiter` lives in RateLimit since 4.1; this name keeps code that found it here compiling.
  public typealias SharedKeyedLimiter = RateLimit.SharedKeyedLimiter
#endif
