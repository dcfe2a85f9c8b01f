/// What ``Throttler`` and ``Debouncer`` have in common: you call them as often as events arrive, and they decide
/// when the action really runs.
///
/// Write code against `some ActionLimiter<Value>` when it should not care which of the two it drives, and use it
/// with ``Keyed`` to keep one per key. Every method is safe to call from any thread at once, and from inside the
/// action. (In 2.0 this protocol was named `RateLimiter`; that name now belongs to the permit limiter,
/// ``RateLimiter``.)
public protocol ActionLimiter<Value>: AnyObject, Sendable {
  /// The value each call reports and a run delivers.
  associatedtype Value: Sendable

  /// Reports an event with `value`; the mode decides whether and when the action runs with it. Never runs the
  /// action synchronously.
  ///
  /// - Complexity: O(1): one lock, one clock read.
  func call(_ value: Value)

  /// Runs held-back work now: if a value is held, hands it over at once (it starts even if ``invalidate()``
  /// follows, and `invalidate()` does not cancel it) and goes on as if that run had happened at its deadline.
  ///
  /// - Returns: `true` if a held value was handed over, `false` if nothing was held.
  @discardableResult func flush() -> Bool

  /// Drops the held value and all timing state; the next call behaves like the very first. A run handed over
  /// whose action has not started yet does not start, flushed or not (the latest intent wins); a run already
  /// executing finishes, and an async one is cancelled.
  func cancel()

  /// Drops everything for good: from its return on, no run starts, the action and its captures are released,
  /// and later calls are ignored. Idempotent; deallocation does the same.
  ///
  /// A run already executing finishes (an async one is cancelled); a flushed run still starts. Called on the
  /// action's queue (or actor), nothing starts after it returns; from another thread, at most the one run whose
  /// start the queue had already begun. It never blocks: `await` ``waitUntilIdle()`` to wait for that run.
  func invalidate()

  /// Whether a value is held back waiting for a deadline.
  var isPending: Bool { get }

  /// Whether a run was handed over (a synchronous one to the queue, an async one started or waiting) and its
  /// action has not returned.
  var isRunning: Bool { get }

  /// Teardown that loses nothing: from its return on, later calls (and `flush()`, `cancel()`) are ignored, but a
  /// held value is flushed (subject to ``Overlap``), a running run is not cancelled, a waiting run still starts,
  /// and the action, with its captures, is released once the last of them has returned.
  ///
  /// It never blocks, so `deinit { uploader.finish() }` is the whole teardown: deallocation after `finish()` stops
  /// nothing. `await` ``waitUntilIdle()`` to know when the work is done; ``invalidate()`` after it cancels
  /// everything not yet returned, the flushed value included.
  ///
  /// ```swift
  /// final class Analytics {
  ///   let upload = Debouncer<[Event]>(
  ///     interval: .seconds(2), overlap: .waitForPrevious,
  ///     reducing: { $0 += $1 }
  ///   ) { batch in await client.upload(batch) }
  ///   deinit { upload.finish() }  // the last batch still goes out
  /// }
  /// ```
  func finish()

  /// Nothing pending, nothing running, and a call now would be treated as the very first call: the rules hold no
  /// timing state that could change what the next call does (a leading throttler is at rest once T has passed
  /// since its last run). A limiter at rest can be replaced by a fresh one without anyone noticing, which is
  /// what ``Keyed`` does. An invalidated or finished limiter is at rest once nothing it let go on is running.
  var isAtRest: Bool { get }

  /// Returns once ``isRunning`` is false; at once if it already is, or if the calling task is cancelled.
  ///
  /// It does not wait for held values: their deadlines need the clock to move. Do not await it from inside the
  /// action: the action would wait for itself.
  func waitUntilIdle() async
}

extension ActionLimiter {
  /// Same as ``call(_:)``, so a limiter can be called like a function: `limiter(value)`.
  ///
  /// - Complexity: O(1).
  @inlinable
  public func callAsFunction(_ value: Value) {
    call(value)
  }
}

extension ActionLimiter where Value == Void {
  /// Reports an event; the mode decides whether and when the action runs.
  ///
  /// - Complexity: O(1).
  @inlinable
  public func call() {
    call(())
  }

  /// Same as ``call()``: `limiter()`.
  ///
  /// - Complexity: O(1).
  @inlinable
  public func callAsFunction() {
    call(())
  }
}
