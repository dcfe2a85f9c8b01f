#if Postgres
  import NIOCore
  import RateLimit

  /// A refused key answered locally: once the database says a key cannot grant even one permit before an
  /// instant X, this process refuses that key until X without a round trip (unless it cancels a booking of the
  /// key meanwhile, or any process resets or refunds the key or updates the name: ``RefusalListener``; while
  /// this process cannot hear those, it keeps no refusal). Instants are on the limiter's local clock (`c` with `.clock(c)`, a `ContinuousClock`
  /// otherwise), taken when the decision was *sent*, so a local refusal never outlasts the database's. A clock
  /// that has gone back behind the instant a refusal was made voids it: the database moves the key's instants back
  /// with the clock (no time passing), which a refusal's `until`, on the clock as it was, cannot follow.
  ///
  /// Keys are their UTF-8 bytes, as the database compares them: never Swift's `String` equality, under which
  /// "caf\u{E9}" and "cafe\u{301}" are one key (4.1: exhausting one spelling refused the other).
  ///
  /// Bounded: at most ``capacity`` keys; a full table first forgets the refusals that have passed, and refuses
  /// no new key locally if none has — and then looks again only once the earliest refusal it holds has passed,
  /// so a full table costs O(1) a decision, not a walk over every key.
  final class LocalRefusals: Sendable {
    struct Refusal {
      /// When one permit can be granted again.
      var until: Duration
      /// When the key is at rest.
      var restAt: Duration
      /// When the refused decision was sent.
      var madeAt: Duration
      /// Whether the key was blocked (`block`, a penalty) when the database refused it: a penalty needs no
      /// round trip to learn that a block is in force.
      var isBlock = false

      /// Whether it still holds at `now`: before `until`, and not before the clock went back behind `madeAt`.
      func holds(at now: Duration) -> Bool { now < until && now >= madeAt }
    }

    static let capacity = 65_536

    private struct State {
      var refusals: [ByteBuffer: Refusal] = [:]
      /// While full: the earliest `until` held, before which no refusal can be forgotten.
      var nextForget: Duration = .zero
      /// Whether this process hears other processes' operations (``RefusalListener``): without it, no refusal
      /// is kept (SPEC 4.3.1).
      var isListening = false
      /// Counts the operations heard: a refusal answered by a statement sent before one of them may be stale.
      var epoch: UInt64 = 0
    }

    private let state = LockedValue(State())

    /// What a statement is sent at, to remember its refusal by (``refuse(_:answeredAt:time:restAt:sent:epoch:isBlock:)``):
    /// an operation heard meanwhile voids it.
    var epoch: UInt64 { state.withLock { $0.epoch } }

    /// The refusal in force for `key` at `now`, if any.
    func refusal(for key: ByteBuffer, at now: Duration) -> Refusal? {
      state.withLock { state in
        guard let refusal = state.refusals[key] else { return nil }
        if refusal.holds(at: now) { return refusal }
        state.refusals[key] = nil
        return nil
      }
    }

    /// Remembers that `key` grants no permit before `until`.
    func refuse(
      _ key: ByteBuffer, until: Duration, restAt: Duration, now: Duration, epoch: UInt64? = nil, isBlock: Bool = false
    ) {
      guard now < until else { return }
      state.withLock { state in
        guard state.isListening, epoch.map({ $0 == state.epoch }) ?? true else { return }
        if state.refusals.count >= Self.capacity {
          if now < state.nextForget { return }
          state.refusals = state.refusals.filter { $0.value.holds(at: now) }
          if state.refusals.count >= Self.capacity {
            state.nextForget = state.refusals.values.lazy.map(\.until).min() ?? now
            return
          }
        }
        state.refusals[key] = Refusal(until: until, restAt: restAt, madeAt: now, isBlock: isBlock)
      }
    }

    /// Remembers a refusal the database answered for a request sent at `sent` (on this process's clock): it
    /// grants no permit for `time − now` from then, and is at rest `restAt − now` from then (the database's
    /// instants, turned into this process's).
    /// A refusal is not remembered if an operation was heard since `epoch` (read when the request was sent).
    func refuse(
      _ key: ByteBuffer, answeredAt now: Int64, time: Int64, restAt: Int64, sent: Duration, epoch: UInt64,
      isBlock: Bool = false
    ) {
      refuse(
        key, until: sent + .nanoseconds(time &- now), restAt: sent + .nanoseconds(max(0, restAt &- now)), now: sent,
        epoch: epoch, isBlock: isBlock)
    }

    /// This process cancelled a booking of `key`, or operated it: ask the database again.
    func forget(_ key: ByteBuffer) {
      _ = state.withLock { $0.refusals.removeValue(forKey: key) }
    }

    /// The name's rule changed (`update`): ask the database again for every key.
    func forgetAll() {
      state.withLock { $0.refusals.removeAll() }
    }

    /// Another process (or this one) reset or refunded `key`, committed: its refusal ends now, and none answered
    /// before this is remembered.
    func ended(for key: ByteBuffer) {
      state.withLock { state in
        state.epoch &+= 1
        state.refusals[key] = nil
      }
    }

    /// Another process updated the name's rule: every refusal ends now.
    func endedForEveryKey() {
      state.withLock { state in
        state.epoch &+= 1
        state.refusals.removeAll()
      }
    }

    /// Whether this process hears other processes' operations: when it stops, every refusal ends, and none is
    /// kept until it hears them again.
    func listening(_ isListening: Bool) {
      state.withLock { state in
        // Either way, a refusal answered before now may have missed an operation (made while not listening).
        state.isListening = isListening
        state.epoch &+= 1
        state.refusals.removeAll()
      }
    }
  }
#endif
