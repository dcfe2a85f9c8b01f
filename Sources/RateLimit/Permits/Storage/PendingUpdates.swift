/// The updates that some of a token bucket's keys have not been brought under yet: what makes
/// ``KeyedRateLimiter``'s `update` O(1) however many keys are held (SPEC 4.2: "keys settle when next used").
///
/// An update at U is kept with the rules before and after it. A key's state is brought under every update made
/// after it was last written, in order and each at its own instant, when the key is next read: exactly what
/// the update would have done to it at U, since nothing touched the key in between.
///
/// ```
/// keys written   a   b   │ U: update   c
/// a and b: brought under it, at U, when next read
/// c: written under the new rule already
/// ```
///
/// What tells them apart is the instant a state was last written (``PackablePermitRule/written(_:)``): before
/// U for a key written before the update, U or later for one written after it. ``KeyedPermits`` keeps that
/// true: an update is kept here only if every clock reading before it was earlier than U; a blocked key (whose
/// state may be written at its block's end, later than the reading) is brought under the update at once; and a
/// clock that steps back below U brings every key under the updates at once.
struct PendingUpdates<Rule: PackablePermitRule>: Sendable {
  /// An update at `instant`, from `old` to `new`.
  struct Update: Sendable {
    let instant: Int64
    let old: Rule
    let new: Rule
  }

  private var updates: [Update] = []
  /// The keys held at the latest update, written before it and not brought under it yet.
  private var unsettled = 0
  /// The latest update's instant; `.min` with none (so that no state needs settling, in one comparison).
  private(set) var latest: Int64 = .min
  /// How many states were brought under updates here, ever (tests).
  private(set) var settled = 0

  /// At most this many kept: an update past it brings every key under them first (so that a limiter updated
  /// many times with no traffic keeps no more).
  static var most: Int { 32 }

  var isEmpty: Bool { updates.isEmpty }
  var count: Int { updates.count }

  /// Whether a state last written at `written` must be brought under an update before it is read.
  @inline(__always)
  func needsSettling(_ written: Int64) -> Bool { written < latest }

  /// Keeps an update at `instant` from `old` to `new`, which `unsettled` keys held have yet to be brought under.
  mutating func add(at instant: Int64, from old: Rule, to new: Rule, unsettled: Int) {
    updates.append(Update(instant: instant, old: old, new: new))
    latest = instant
    self.unsettled = unsettled
    if unsettled == 0 { removeAll() }
  }

  /// Brings `state` under every update made after it was written. `counted`: a key that was held at the latest
  /// update (not one that arrived after it, fresh); once every such key is settled, none is kept.
  mutating func settle(_ state: inout Rule.State, under rule: Rule, counted: Bool) {
    let written = rule.written(state)
    settled += 1
    for update in updates where update.instant > written {
      update.new.adopt(&state, from: update.old, at: update.instant)
    }
    guard counted else { return }
    unsettled -= 1
    if unsettled == 0 { removeAll() }
  }

  /// Every key is under every update (``KeyedPermits`` brought them all at once).
  mutating func removeAll() {
    updates.removeAll()
    unsettled = 0
    latest = .min
  }
}
