/// Many keys' permit states, with no lock and no clock (``KeyedPermitStore`` adds both). Every key is 16 bytes in
/// one dictionary (``PackablePermitRule/Packed``); a key whose state does not pack is kept whole in a second one,
/// and marked ``PackablePermitRule/aside`` in the first. A key not in the first is fresh.
///
/// A key whose state is back to fresh is forgotten: every operation that brings a key examines the two oldest
/// keys of a queue of those held (and one operation in 16 of the others does too), so memory follows the keys
/// active within the last window whatever the traffic, and no operation stalls. Forgetting is invisible: a
/// missing key is a fresh one.
///
/// A sliding window's instants are kept on a time line that runs ahead of the clock by the steps back taken
/// (``PermitBook/onTimeLine(_:)``), so that a step back costs O(1) however many keys are held (SPEC 4.0.1).
struct KeyedPermits<Key: Hashable & Sendable, Rule: PackablePermitRule>: Sendable {
  private(set) var book: PermitBook<Rule>
  private var packed: [Key: Rule.Packed] = [:]
  private var aside: [Key: Aside] = [:]
  /// Where a packed state is unpacked for one operation; its storage is kept from one operation to the next.
  private var scratch: Rule.State
  /// Every key held, oldest first, for the sweep that forgets keys at rest a few at a time (a key may be in
  /// it twice after it was forgotten and came back; the copy that finds it gone is dropped).
  private var sweepQueue = KeyQueue<Key>()
  /// How many keys' states took steps back in, ever (tests that a step moves no key at once).
  private(set) var statesMoved = 0
  /// How many keys' states were brought under an update at the update itself, ever.
  private var adoptedAtOnce = 0
  /// How many keys' states were brought under an update, ever, at once or later (tests that an update visits
  /// no key at once).
  var statesAdopted: Int { adoptedAtOnce + pending.settled }
  /// How many updates some keys have not been brought under yet.
  var pendingUpdates: Int { pending.count }
  /// Operations read, wrapping: one in 16 that brings no key runs a sweep step.
  private var operations: UInt32 = 0
  /// The key last found and its index in `packed`, kept until a key is added to `packed` or removed from it
  /// (which is when a dictionary's indices stop being valid): a hot key is found without hashing it again.
  private var recent: (key: Key, index: Dictionary<Key, Rule.Packed>.Index)?
  /// Keys blocked until an instant on the rule's time line (SPEC 4.2's `block`). Few: a dictionary of their own,
  /// looked up only while it holds any, so an operation pays one `isEmpty` check for blocks. A blocked key is
  /// held (not fresh) until its block ends.
  private var blocks: [Key: Int64] = [:]
  /// A token bucket's updates that some keys have not been brought under yet (each is, when next read).
  private var pending = PendingUpdates<Rule>()
  /// Keys that arrived after the latest update kept in `pending` with nothing written (a block's, say): fresh
  /// under the rule now, though their state says "written before the update". Never more than the keys held.
  private var freshSinceUpdate: Set<Key> = []
  /// Every update visits every key at once, as before 4.2's O(1) update (a reference for tests).
  var visitsKeysAtUpdate = false

  init(rule: Rule, parameters: PermitParameters) {
    book = PermitBook(rule: rule, parameters: parameters)
    scratch = rule.fresh
  }

  var rule: Rule { book.rule }

  /// Takes in a clock reading before an operation, and returns how far the clock went back since the last one.
  /// A step back moves every key's instants back with the clock, in O(1) however many keys are held: for a rule
  /// on a time line (a sliding window) in ``PermitBook/read(_:)``; otherwise (a token bucket, whose packed keys
  /// have nothing to move) each key kept whole takes the steps in when it is next used (``Aside``). One
  /// operation in 16 runs a sweep step (a key that arrives runs its own, in ``update(_:at:_:)``): a hot key
  /// pays a sixteenth of one, and the keys held still go back to those active once arrivals stop.
  @discardableResult
  mutating func read(_ reading: Int64) -> Int64 {
    let jump = book.read(reading)
    // Below an update kept for later, a state written from now on could not be told from one written before it.
    if jump > 0, Rule.adoptsStates {
      let now = book.onTimeLine(reading)
      if pending.needsSettling(now) { settleAll(at: now) }
    }
    operations &+= 1
    if operations & 15 == 0 { sweepStep(at: book.onTimeLine(reading)) }
    return jump
  }

  /// Runs `body` on `key`'s state (fresh if it has none) and keeps what it leaves: packed if it fits, whole if
  /// not. One hash lookup for a packed key; none for the key last found (`recent`).
  mutating func update<Result>(
    _ key: Key, at now: Int64, _ body: (inout PermitBook<Rule>, inout Rule.State) -> Result
  ) -> Result {
    guard let index = index(of: key) else {
      scratch = rule.fresh
      let result = body(&book, &scratch)
      // Fresh under the rule now, though it reads "written before the latest update" if `body` wrote nothing.
      if Rule.adoptsStates, pending.needsSettling(rule.written(scratch)) { freshSinceUpdate.insert(key) }
      let state = keepScratch(for: key, at: now)
      recent = nil
      packed[key] = state
      sweepQueue.append(key)
      sweepStep(at: now)  // a key in, two examined: forgetting outpaces arrivals
      return result
    }
    return update(at: index, now: now, body)
  }

  /// ``update(_:at:_:)`` for the key at `index`; the dictionary's indices stay valid.
  private mutating func update<Result>(
    at index: Dictionary<Key, Rule.Packed>.Index, now: Int64,
    _ body: (inout PermitBook<Rule>, inout Rule.State) -> Result
  ) -> Result {
    guard Rule.isAside(packed.values[index]) else {
      rule.unpack(&packed.values[index], into: &scratch)
      if Rule.adoptsStates, pending.needsSettling(rule.written(scratch)), !isFreshSinceUpdate(packed.keys[index]) {
        pending.settle(&scratch, under: rule, counted: true)
      }
      let result = body(&book, &scratch)
      packed.values[index] = keepScratch(for: packed.keys[index], at: now)
      return result
    }
    let key = packed.keys[index]
    catchUp(key)
    if Rule.adoptsStates, pending.needsSettling(rule.written(aside[key]!.state)), !isFreshSinceUpdate(key) {
      pending.settle(&aside[key]!.state, under: rule, counted: true)
    }
    let result = body(&book, &aside[key]!.state)
    if let state = rule.pack(&aside[key]!.state, at: now) {
      aside[key] = nil
      packed.values[index] = state
    }
    return result
  }

  /// Runs `body` on `key`'s state, for reading only; a key with none stays without.
  mutating func peek<Result>(_ key: Key, at now: Int64, _ body: (PermitBook<Rule>, Rule.State) -> Result) -> Result {
    guard let index = index(of: key) else { return body(book, rule.fresh) }
    return update(at: index, now: now) { book, state in body(book, state) }
  }

  /// Whether `key` arrived after the latest update with nothing written (so nothing to bring under it).
  private func isFreshSinceUpdate(_ key: Key) -> Bool {
    !freshSinceUpdate.isEmpty && freshSinceUpdate.contains(key)
  }

  /// `scratch` packed, or moved aside whole (the next operation then starts a new scratch).
  private mutating func keepScratch(for key: Key, at now: Int64) -> Rule.Packed {
    if let state = rule.pack(&scratch, at: now) { return state }
    aside[key] = Aside(state: scratch, stepsBack: book.stepsBack)
    scratch = rule.fresh
    return Rule.aside
  }

  /// `key`'s index in `packed`, `nil` if it has none: `recent`'s if it is that key (no hashing).
  private mutating func index(of key: Key) -> Dictionary<Key, Rule.Packed>.Index? {
    if let recent, recent.key == key { return recent.index }
    guard let index = packed.index(forKey: key) else { return nil }
    recent = (key, index)
    return index
  }

  /// The instant `key` is blocked until; `.min` if it is not.
  @inline(__always)
  func blockedUntil(_ key: Key) -> Int64 {
    blocks.isEmpty ? .min : blocks[key] ?? .min
  }

  /// Blocks `key` until `end`, unless a block already ends later; the key is held while blocked.
  mutating func block(_ key: Key, until end: Int64, at now: Int64) {
    guard end > now, end > blockedUntil(key) else { return }
    // Recorded first: adding the key runs a sweep step, which must not find it fresh.
    blocks[key] = end
    update(key, at: now) { _, _ in }
  }

  /// Lifts `key`'s block (`reset`).
  mutating func unblock(_ key: Key) {
    if !blocks.isEmpty { blocks[key] = nil }
  }

  /// `update` at `now` (SPEC 4.2): the rule with `parameters` from now on. Every key keeps its state, brought
  /// under the new rule: a sliding window's logs need nothing; a token bucket's credit is converted when the key
  /// is next read (``PendingUpdates``), so an update is O(1) however many keys are held. Two cases visit every
  /// key at once instead: a clock reading at or after `now` was taken before (the clock stepped back, or read
  /// the same instant: a key written at `now` could then be from before the update or after it), and no limiting
  /// before or after (every key starts fresh; blocks stay). `highestReading`: the highest clock reading before
  /// this update's.
  mutating func update(to parameters: PermitParameters, at now: Int64, highestReading: Int64) {
    let (old, startsFresh) = book.update(to: parameters, at: now)
    recent = nil
    scratch = rule.fresh
    guard Rule.adoptsStates || startsFresh else { return }
    if Rule.adoptsStates, !startsFresh, highestReading < now, !visitsKeysAtUpdate,
      pending.count < PendingUpdates<Rule>.most
    {
      // Later: every state held was written before `now`, but a blocked key's (written up to its block's end).
      var blocked = 0
      for key in blocks.keys {
        guard let index = packed.index(forKey: key) else { continue }
        adopt(at: index, from: old, at: now, startsFresh: false)
        blocked += 1
      }
      // Those that arrived fresh since the last update are held now, and settle as any other.
      freshSinceUpdate.removeAll()
      pending.add(at: now, from: old, to: rule, unsettled: packed.count - blocked)
      return
    }
    // At once: every key under the updates kept, then under this one.
    settleAll(at: now, under: old)
    var index = packed.startIndex
    while index != packed.endIndex {
      adopt(at: index, from: old, at: now, startsFresh: startsFresh)
      packed.formIndex(after: &index)
    }
  }

  /// Brings the key at `index` under this update at `now` from `old` (or makes it fresh).
  private mutating func adopt(
    at index: Dictionary<Key, Rule.Packed>.Index, from old: Rule, at now: Int64, startsFresh: Bool
  ) {
    adoptedAtOnce += 1
    let rule = self.rule
    withState(at: index, now: now, readBy: old) { state in
      if startsFresh { state = rule.fresh } else { rule.adopt(&state, from: old, at: now) }
    }
  }

  /// Brings every key under every update kept (``PendingUpdates``), and keeps none. `current`: the rule the
  /// states are read under (the rule before an update being made).
  private mutating func settleAll(at now: Int64, under current: Rule? = nil) {
    guard Rule.adoptsStates, !pending.isEmpty else { return }
    let reader = current ?? rule
    var pending = self.pending
    var index = packed.startIndex
    while index != packed.endIndex {
      // One that arrived fresh since the latest update is under the rule now: nothing to bring.
      if !isFreshSinceUpdate(packed.keys[index]) {
        withState(at: index, now: now, readBy: reader) { state in
          if pending.needsSettling(reader.written(state)) { pending.settle(&state, under: reader, counted: false) }
        }
      }
      packed.formIndex(after: &index)
    }
    pending.removeAll()
    self.pending = pending
    freshSinceUpdate.removeAll()
  }

  /// Runs `body` on the state of the key at `index` (unpacked by `reader`), and keeps what it leaves: packed if
  /// it fits, whole if not. For the visits of every key; an operation's own path is ``update(at:now:_:)``.
  private mutating func withState(
    at index: Dictionary<Key, Rule.Packed>.Index, now: Int64, readBy reader: Rule, _ body: (inout Rule.State) -> Void
  ) {
    let key = packed.keys[index]
    if Rule.isAside(packed.values[index]) {
      catchUp(key)
      body(&aside[key]!.state)
      return
    }
    var state = reader.fresh
    reader.unpack(&packed.values[index], into: &state)
    body(&state)
    if let repacked = reader.pack(&state, at: now) {
      packed.values[index] = repacked
    } else {
      aside[key] = Aside(state: state, stepsBack: book.stepsBack)
      packed.values[index] = Rule.aside
    }
  }

  /// Whether `key` holds any state (a key that does not is fresh).
  func holds(_ key: Key) -> Bool { packed[key] != nil }

  /// Forgets `key` if it is fresh at `now` (after a cancel gave permits back).
  mutating func forgetIfFresh(_ key: Key, at now: Int64) {
    guard let index = index(of: key) else { return }
    if isFresh(at: index, now) { forget(key, at: index) }
  }

  /// Forgets `key`, found at `index` in `packed`: its state, whole or packed, and `recent`, whose index a removal
  /// makes stale.
  private mutating func forget(_ key: Key, at index: Dictionary<Key, Rule.Packed>.Index) {
    aside[key] = nil
    if !blocks.isEmpty { blocks[key] = nil }
    if !freshSinceUpdate.isEmpty { freshSinceUpdate.remove(key) }
    recent = nil
    packed.remove(at: index)
  }

  /// Whether the key at `index` is fresh at `now`.
  private mutating func isFresh(at index: Dictionary<Key, Rule.Packed>.Index, _ now: Int64) -> Bool {
    if !blocks.isEmpty, let end = blocks[packed.keys[index]], end > now { return false }
    // Under the updates made since it was written, first (which it may leave aside).
    if Rule.adoptsStates, pending.needsSettling(rule.written(packed: packed.values[index])) {
      update(at: index, now: now) { _, _ in }
    }
    let state = packed.values[index]
    guard Rule.isAside(state) else { return rule.isFresh(state, at: now) }
    let key = packed.keys[index]
    catchUp(key)
    return rule.isFresh(&aside[key]!.state, at: now)
  }

  /// A key kept whole, with the steps back the clock had taken when its instants were last moved: a step moves
  /// no key at once, each takes the steps since in when it is next used (the moves add up, so it is the same).
  struct Aside: Sendable {
    var state: Rule.State
    var stepsBack: Int64
  }

  /// Moves `key`'s instants (kept whole) back by the steps the clock took since they were last moved.
  private mutating func catchUp(_ key: Key) {
    let steps = book.stepsBack
    guard aside[key]!.stepsBack != steps else { return }
    rule.clockWentBack(by: Nanoseconds.subtracting(steps, aside[key]!.stepsBack), in: &aside[key]!.state)
    aside[key]!.stepsBack = steps
    statesMoved += 1
  }

  /// Examines the two oldest keys of the queue: forgets each at rest, sends the others to the back. Every key
  /// that arrives runs this, so forgetting outpaces arrivals whatever the traffic: a key at rest is forgotten
  /// within a round of the queue, so the keys held are at most about twice those active, and no operation
  /// does more than two steps (SPEC 4.0.1: no stall).
  private mutating func sweepStep(at now: Int64) {
    // Two keys, or the one held (examined once).
    for _ in 0..<Swift.min(2, sweepQueue.count) {
      guard let key = sweepQueue.popFirst() else { break }
      guard let index = packed.index(forKey: key) else { continue }
      if isFresh(at: index, now) {
        forget(key, at: index)
      } else {
        sweepQueue.append(key)
      }
    }
    if sweepQueue.count > 2 * Swift.max(packed.count, 16) { sweepQueue.removeAll(where: { packed[$0] == nil }) }
    if packed.capacity > 8 * Swift.max(packed.count, 64) {
      recent = nil
      Self.shrink(&packed)
    }
  }

  /// Forgets every key that is fresh at `now`, and gives back storage the dictionaries no longer need. O(keys).
  mutating func sweep(at now: Int64) {
    var fresh: [Key] = []
    var index = packed.startIndex
    while index != packed.endIndex {
      if isFresh(at: index, now) { fresh.append(packed.keys[index]) }
      packed.formIndex(after: &index)
    }
    recent = nil
    for key in fresh {
      packed[key] = nil
      aside[key] = nil
      if !blocks.isEmpty { blocks[key] = nil }
      if !freshSinceUpdate.isEmpty { freshSinceUpdate.remove(key) }
    }
    Self.shrink(&packed)
    Self.shrink(&aside)
    Self.shrink(&blocks)
  }

  private static func shrink<Value>(_ dictionary: inout [Key: Value]) {
    guard dictionary.capacity > 4 * Swift.max(dictionary.count, 8) else { return }
    var shrunk = [Key: Value](minimumCapacity: dictionary.count)
    for (key, value) in dictionary { shrunk[key] = value }
    dictionary = shrunk
  }

  /// The keys not known to be fresh (exact right after a sweep).
  var count: Int { packed.count }
}
