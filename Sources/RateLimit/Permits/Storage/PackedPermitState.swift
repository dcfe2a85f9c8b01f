/// A token bucket key's state in 16 bytes, as ``KeyedPermits`` keeps most keys: its credit and the instant it was
/// counted, when no booking is ahead. A state that does not fit, and only such a state, is kept whole.
///
/// 16 bytes beside a 16-byte `String` key: 32 bytes a slot, so under 96 bytes a key even when the dictionary has
/// just grown and is 3/8 full.
struct PackedPermitState: Equatable, Sendable {
  var first: Int64
  var second: Int64

  /// The state is kept whole, aside. No rule packs to this.
  static let aside = PackedPermitState(first: .min, second: .min)
}

/// A ``PermitRule`` whose states ``KeyedPermits`` keeps small: packed into a ``Packed`` value when they fit,
/// whole (aside) when they do not.
protocol PackablePermitRule: PermitRule {
  associatedtype Packed: Sendable

  /// The packed value that stands for "kept whole, aside". No state packs to it.
  static var aside: Packed { get }
  static func isAside(_ packed: Packed) -> Bool

  /// `state` packed, or `nil` if it does not fit. May first drop what no longer matters at `now`, as
  /// ``PermitRule/isFresh(_:at:)`` does, and may leave `state` empty (its storage moved into the result).
  func pack(_ state: inout State, at now: Int64) -> Packed?

  /// Makes `state` what `packed` stands for, reusing `state`'s storage; may leave `packed` empty (its storage
  /// moved into `state`), to be packed again before anyone reads it.
  func unpack(_ packed: inout Packed, into state: inout State)

  /// ``PermitRule/isFresh(_:at:)`` for a packed state, without unpacking it.
  func isFresh(_ packed: Packed, at now: Int64) -> Bool

  /// The latest instant `state` was written at, for a rule that adopts states on an update
  /// (``PermitRule/adoptsStates``): a state written before an update's instant was written before the update
  /// (``PendingUpdates``).
  func written(_ state: State) -> Int64
  /// ``written(_:)`` for a packed state.
  func written(packed: Packed) -> Int64
}

extension TokenBucket: PackablePermitRule {
  static var aside: PackedPermitState { .aside }
  static func isAside(_ packed: PackedPermitState) -> Bool { packed == .aside }

  // (credit, last). Nothing else matters without a booking ahead: `lastEvent` is read only when cancelling a
  // booking still ahead, and a booking that puts one there sets it first.
  func pack(_ state: inout State, at now: Int64) -> PackedPermitState? {
    state.ahead.removeAll(before: now)
    guard state.ahead.isEmpty, let tokens = state.tokens.exactInt64, tokens != .min else { return nil }
    return PackedPermitState(first: tokens, second: state.last)
  }

  func unpack(_ packed: inout PackedPermitState, into state: inout State) {
    state.tokens = Wide(packed.first)
    state.last = packed.second
    state.lastEvent = .min
    state.ahead.reset(to: nil)
  }

  func isFresh(_ packed: PackedPermitState, at now: Int64) -> Bool {
    tokens(at: now, in: State(tokens: Wide(packed.first), last: packed.second)) >= full
  }

  func written(_ state: State) -> Int64 { state.last }
  func written(packed: PackedPermitState) -> Int64 { packed.second }
}

extension SlidingWindow: PackablePermitRule where Log == KeyedWindowLog {
  // A keyed window's log is small already: it is its own packed form, moved in and out, never kept aside.
  static var aside: KeyedWindowLog { .empty }
  static func isAside(_ packed: KeyedWindowLog) -> Bool { false }

  func pack(_ log: inout KeyedWindowLog, at now: Int64) -> KeyedWindowLog? {
    log.removeAll(notAfter: start(of: now))
    defer { log = .empty }
    return log
  }

  func unpack(_ packed: inout KeyedWindowLog, into log: inout KeyedWindowLog) {
    log = packed
    packed = .empty
  }

  func isFresh(_ packed: KeyedWindowLog, at now: Int64) -> Bool {
    // Fresh once the latest booking has left the window.
    (packed.lastTime ?? .min) <= start(of: now)
  }

  // Never read: a window adopts no state on an update (its `floor` does the forgetting).
  func written(_ log: KeyedWindowLog) -> Int64 { .max }
  func written(packed log: KeyedWindowLog) -> Int64 { .max }
}
