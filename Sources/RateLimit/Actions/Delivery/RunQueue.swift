/// A run decided by the rules and handed over, with whether `flush()` made it (a flushed run survives
/// `invalidate()`).
@usableFromInline
struct HandedRun<Value: Sendable>: Sendable {
  @usableFromInline var value: Value
  @usableFromInline var isFlushed: Bool

  @inlinable
  init(value: Value, isFlushed: Bool) {
    self.value = value
    self.isFlushed = isFlushed
  }
}

/// Runs handed to a synchronous action's queue and not started yet, first in first out: a ring buffer that
/// allocates only when it grows, so a limiter that keeps running reuses its storage.
///
/// Why a queue of its own: every block that reaches the queue (a delivery or a timer) starts the run at the
/// head, not a value of its own. However late a block runs, and however the threads that decided the runs
/// were scheduled, runs start in the order they were decided.
@usableFromInline
struct RunQueue<Value: Sendable>: Sendable {
  @usableFromInline var slots: ContiguousArray<HandedRun<Value>?> = []
  // 32-bit indices: the queue is 16 bytes in every engine, and never holds 2^31 runs.
  @usableFromInline var head: Int32 = 0
  @usableFromInline var count: Int32 = 0

  @usableFromInline
  init() {}

  /// Whether nothing is waiting.
  @inlinable var isEmpty: Bool { count == 0 }

  /// Adds `run` at the tail.
  ///
  /// - Complexity: amortized O(1); allocates only when full.
  @inlinable
  mutating func append(_ run: HandedRun<Value>) {
    if Int(count) == slots.count { grow() }
    var index = Int(head) + Int(count)
    if index >= slots.count { index -= slots.count }
    slots[index] = run
    count += 1
  }

  /// Removes and returns the run at the head.
  @inlinable
  mutating func popFirst() -> HandedRun<Value>? {
    guard count > 0 else { return nil }
    let run = slots[Int(head)].take()
    head += 1
    if Int(head) == slots.count { head = 0 }
    count -= 1
    return run
  }

  /// Keeps only the flushed runs, in order. Returns the runs it drops, to be released outside the lock.
  @usableFromInline
  mutating func keepFlushed() -> RunQueue {
    var kept = RunQueue()
    var dropped = RunQueue()
    while let run = popFirst() {
      if run.isFlushed { kept.append(run) } else { dropped.append(run) }
    }
    self = kept
    return dropped
  }

  /// Marks every run as flushed (`finish()`: they all still start after deallocation).
  @usableFromInline
  mutating func markAllFlushed() {
    for index in slots.indices { slots[index]?.isFlushed = true }
  }

  @usableFromInline
  mutating func grow() {
    var grown = ContiguousArray<HandedRun<Value>?>(repeating: nil, count: Swift.max(2, slots.count * 2))
    for offset in 0..<Int(count) {
      grown[offset] = slots[(Int(head) + offset) % slots.count]
    }
    slots = grown
    head = 0
  }
}
