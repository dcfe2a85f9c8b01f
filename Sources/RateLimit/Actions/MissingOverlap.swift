public import Dispatch

// An async closure given without `overlap:` would otherwise fail with a message about closure types that never
// mentions `overlap:`. These initializers exist only to say what is missing; being unavailable, they never win
// over an available one, so every synchronous call site still picks the initializer it always did.

extension Throttler {
  /// Not available: an async action needs `overlap:`. Only here so that the compiler says so.
  @available(
    *, unavailable, message: "an async action needs 'overlap:' (.waitForPrevious, .cancelPrevious or .dropNew)"
  )
  public convenience init(
    interval: Duration, mode: ThrottleMode = .leading, clock: some RateLimitClock = .dispatch,
    reducing: (@Sendable (inout Value, Value) -> Void)? = nil,
    action: @escaping @isolated(any) @Sendable (Value) async -> Void
  ) { fatalError("unavailable") }

  /// Not available: an async action needs `overlap:`, and runs where it is isolated, not on a queue.
  @available(*, unavailable, message: "an async action needs 'overlap:' and runs where it is isolated, not on a queue")
  public convenience init(
    interval: Duration, mode: ThrottleMode = .leading, queue: DispatchQueue, clock: some RateLimitClock = .dispatch,
    reducing: (@Sendable (inout Value, Value) -> Void)? = nil,
    action: @escaping @isolated(any) @Sendable (Value) async -> Void
  ) { fatalError("unavailable") }
}

extension Throttler where Value == Void {
  /// Not available: an async action needs `overlap:`. Only here so that the compiler says so.
  @available(
    *, unavailable, message: "an async action needs 'overlap:' (.waitForPrevious, .cancelPrevious or .dropNew)"
  )
  public convenience init(
    interval: Duration, mode: ThrottleMode = .leading, clock: some RateLimitClock = .dispatch,
    action: @escaping @isolated(any) @Sendable () async -> Void
  ) { fatalError("unavailable") }
}

extension Debouncer {
  /// Not available: an async action needs `overlap:`. Only here so that the compiler says so.
  @available(
    *, unavailable, message: "an async action needs 'overlap:' (.waitForPrevious, .cancelPrevious or .dropNew)"
  )
  public convenience init(
    interval: Duration, mode: DebounceMode = .trailing, maxWait: Duration? = nil,
    clock: some RateLimitClock = .dispatch, reducing: (@Sendable (inout Value, Value) -> Void)? = nil,
    action: @escaping @isolated(any) @Sendable (Value) async -> Void
  ) { fatalError("unavailable") }

  /// Not available: an async action needs `overlap:`, and runs where it is isolated, not on a queue.
  @available(*, unavailable, message: "an async action needs 'overlap:' and runs where it is isolated, not on a queue")
  public convenience init(
    interval: Duration, mode: DebounceMode = .trailing, maxWait: Duration? = nil, queue: DispatchQueue,
    clock: some RateLimitClock = .dispatch, reducing: (@Sendable (inout Value, Value) -> Void)? = nil,
    action: @escaping @isolated(any) @Sendable (Value) async -> Void
  ) { fatalError("unavailable") }
}

extension Debouncer where Value == Void {
  /// Not available: an async action needs `overlap:`. Only here so that the compiler says so.
  @available(
    *, unavailable, message: "an async action needs 'overlap:' (.waitForPrevious, .cancelPrevious or .dropNew)"
  )
  public convenience init(
    interval: Duration, mode: DebounceMode = .trailing, maxWait: Duration? = nil,
    clock: some RateLimitClock = .dispatch, action: @escaping @isolated(any) @Sendable () async -> Void
  ) { fatalError("unavailable") }
}
