/// One action limiter per key, made on first use and released once it is at rest again: autosave per document,
/// a debounced reload per table cell, a throttled alert per client.
///
/// ```swift
/// // Each open document saved 1 s after its last edit,
/// // one save at a time per document.
/// let autosave = Keyed<DocumentID, Debouncer<Document>> { _ in
///   Debouncer<Document>(
///     interval: .seconds(1), overlap: .waitForPrevious
///   ) { doc in await store.save(doc) }
/// }
/// autosave.call(document, for: document.id)
/// ```
///
/// `call(_:for:)` calls the key's limiter, made by `makeLimiter` (outside the container's lock) on the key's
/// first call, or its first call after the previous limiter was released. A limiter is released (invalidated
/// and let go) once it is *at rest* (``ActionLimiter/isAtRest``): a library limiter that comes to rest when its
/// last run returns is released then; one that comes to rest by time passing (a leading mode's window running
/// out) during later operations: every new limiter examines two held ones, and every 4,096 calls examine 16,
/// so no call examines more than 16 whatever the traffic, and limiters at rest never pile up. Release is
/// invisible: the key's next call goes to a fresh limiter, which behaves exactly as the released one would
/// have. No call is lost to a release, and calls for one key reach its limiters in the order they were made.
/// Memory is proportional to the limiters held.
///
/// `Keyed` works for every ``ActionLimiter``: throttlers and debouncers, synchronous and async. A limiter of your
/// own must answer `isAtRest` without calling back into the container.
public final class Keyed<Key: Hashable & Sendable, Limiter: ActionLimiter>: Sendable {
  @usableFromInline let limiters: KeyedLimiters<Key, Limiter>

  /// Creates an empty container.
  ///
  /// - Parameter makeLimiter: Makes the limiter of a key; called on the key's first call, and again after a
  ///   release. Runs outside the container's lock.
  public init(_ makeLimiter: @escaping @Sendable (Key) -> Limiter) {
    limiters = KeyedLimiters(makeLimiter)
  }

  deinit {
    limiters.invalidate()
  }

  /// Calls `key`'s limiter with `value`, making it first if there is none. Ignored after ``invalidate()``.
  ///
  /// - Complexity: O(1) amortized: one lock, one hash lookup, then the limiter's own `call`.
  @inlinable
  public func call(_ value: Limiter.Value, for key: Key) {
    _ = limiters.withLimiter(key, creating: true, mayRest: false) { $0.call(value) }
  }

  /// Flushes `key`'s limiter (``ActionLimiter/flush()``).
  ///
  /// - Returns: Whether a held value was handed over; `false` if no limiter is held for `key`.
  @discardableResult
  public func flush(_ key: Key) -> Bool {
    limiters.withLimiter(key, creating: false) { $0.flush() } ?? false
  }

  /// Flushes every held limiter: call it when the app goes to the background.
  public func flushAll() {
    limiters.forEachLimiter { _ = $0.flush() }
  }

  /// Cancels `key`'s limiter (``ActionLimiter/cancel()``), if one is held.
  public func cancel(_ key: Key) {
    _ = limiters.withLimiter(key, creating: false) { $0.cancel() }
  }

  /// Invalidates every held limiter, for good (their flushed runs still start, as for one limiter), and ignores
  /// later calls, which never call `makeLimiter`. ``waitUntilIdle()`` still waits for runs already handed over,
  /// and ``count`` counts their limiters until those return. Deallocation does the same.
  public func invalidate() {
    limiters.invalidate()
  }

  /// Whether `key`'s limiter holds a value back; `false` if none is held.
  public func isPending(_ key: Key) -> Bool {
    limiters.withLimiter(key, creating: false) { $0.isPending } ?? false
  }

  /// Whether `key`'s limiter has a run handed over that has not returned; `false` if none is held.
  public func isRunning(_ key: Key) -> Bool {
    limiters.withLimiter(key, creating: false) { $0.isRunning } ?? false
  }

  /// The limiters not at rest, now. Reading it first releases every held limiter at rest.
  ///
  /// - Complexity: O(limiters held).
  public var count: Int { limiters.count }

  /// Returns once no held limiter is running (every key's runs have returned); at once if the calling task is
  /// cancelled. Held values are not waited for: their deadlines need the clock to move.
  public func waitUntilIdle() async {
    while !Task.isCancelled {
      let held = limiters.held
      guard held.contains(where: \.isRunning) else { return }
      for limiter in held { await limiter.waitUntilIdle() }
    }
  }

  /// Returns once `key`'s limiter, if one is held, is not running; at once if none is held or the calling task
  /// is cancelled. Other keys never delay it. Held values are not waited for: call ``flush(_:)`` first.
  ///
  /// ```swift
  /// func close(_ document: Document) async {
  ///   autosave.flush(document.id)  // save what is held back now
  ///   // Wait for this document's save only:
  ///   await autosave.waitUntilIdle(document.id)
  /// }
  /// ```
  public func waitUntilIdle(_ key: Key) async {
    while !Task.isCancelled {
      // A run that returns may release the limiter, and a call meanwhile may start a new one: wait for that too.
      guard let limiter = limiters.withLimiter(key, creating: false, { $0 }), limiter.isRunning else { return }
      await limiter.waitUntilIdle()
    }
  }
}
