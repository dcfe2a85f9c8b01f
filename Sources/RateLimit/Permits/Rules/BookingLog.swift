/// Bookings in the order they were made, which is also the order of their instants (no request is booked
/// earlier than one made before it): the sliding window's log, the token bucket's bookings ahead.
///
/// A ring of entries that allocates only when it grows. Entries leave from the front as time passes; a
/// cancelled one is found by its id in O(log n) and left as a tombstone (no permits) until it reaches the front
/// (or the back, where it leaves at once). A clock's step back moves every instant at once, in O(1): an entry is
/// stored with the steps taken before it was added (``moved``), and read without them.
struct BookingLog: Sendable {
  /// One booking: `permits` at `time` (whole nanoseconds), and the id a ``RateLimiter/Reservation`` cancels it by.
  struct Entry: Sendable {
    var time: Int64
    var permits: Int
    /// Ids grow with every booking; an odd one may be cancelled (``PermitBook/newID(cancellable:)``), an even
    /// one never will be (`tryAcquire`'s), so it can be kept without its id.
    var id: UInt64

    var isCancellable: Bool { id & 1 == 1 }
  }

  private var entries: ContiguousArray<Entry> = []
  private var head = 0
  /// How far every instant has moved back since the log was last empty: the steps back, summed.
  private var moved: Int64 = 0
  /// The permits of every entry, exactly, in 128 bits (``exactTotal``): entries of up to `Int.max` permits each
  /// (charges) never make the sum wrap. Its low word and its high word, counted with every entry that comes or
  /// goes: one branch, taken only when the low word carries.
  private var totalLow: UInt64 = 0
  private var totalHigh: Int64 = 0

  /// The permits of every entry, saturating at `Int.max`: exact below it, and `Int.max` when they sum to that or
  /// more (then ``exactTotal`` counts them).
  var total: Int { totalHigh == 0 && totalLow < UInt64(Int.max) ? Int(totalLow) : .max }

  /// The permits of every entry, exactly.
  var exactTotal: Wide { Wide(high: totalHigh, low: totalLow) }

  /// Counts an entry's permits in the total.
  private mutating func count(_ permits: Int) {
    let (low, carry) = totalLow.addingReportingOverflow(UInt64(permits))
    totalLow = low
    if carry { totalHigh += 1 }
  }

  /// Takes an entry's permits off the total.
  private mutating func uncount(_ permits: Int) {
    let (low, borrow) = totalLow.subtractingReportingOverflow(UInt64(permits))
    totalLow = low
    if borrow { totalHigh -= 1 }
  }

  var isEmpty: Bool { head == entries.count }
  var count: Int { entries.count - head }
  var first: Entry? { isEmpty ? nil : read(entries[head]) }
  var last: Entry? { isEmpty ? nil : read(entries[entries.count - 1]) }

  /// The instant of the booking `offset` places from the oldest.
  func time(at offset: Int) -> Int64 { read(entries[head + offset]).time }
  /// The permits of the booking `offset` places from the oldest.
  func permits(at offset: Int) -> Int { entries[head + offset].permits }

  /// An entry as stored: its instant plus the steps already taken (the horizon stays the horizon).
  private func stored(_ entry: Entry) -> Entry {
    var entry = entry
    if entry.time != .max { entry.time = Nanoseconds.adding(entry.time, moved) }
    return entry
  }

  /// A stored entry as it is now: moved back by every step.
  private func read(_ entry: Entry) -> Entry {
    var entry = entry
    if entry.time != .max { entry.time = Nanoseconds.subtracting(entry.time, moved) }
    return entry
  }

  /// Adds a booking at the end; its time is not earlier than the last one's.
  mutating func append(_ entry: Entry) {
    if head > 0 && head == entries.count {
      entries.removeAll(keepingCapacity: true)
      head = 0
    }
    if isEmpty { moved = 0 }
    entries.append(stored(entry))
    count(entry.permits)
  }

  /// Empties the log, keeping its storage, and adds `entry` if there is one.
  mutating func reset(to entry: Entry?) {
    entries.removeAll(keepingCapacity: true)
    head = 0
    (totalLow, totalHigh) = (0, 0)
    moved = 0
    if let entry { append(entry) }
  }

  /// Removes the first booking.
  mutating func removeFirst() {
    uncount(entries[head].permits)
    head += 1
    // Compact once the dead front is half the storage: amortized O(1).
    if head >= 32 && head * 2 >= entries.count {
      entries.removeFirst(head)
      head = 0
    }
  }

  /// Removes every booking at or before `time`, and the emptied ones (tombstones) that are then first: each
  /// leaves once, so a decision that reads from the front never passes over them again.
  mutating func removeAll(notAfter time: Int64) {
    while let first, first.time <= time || first.permits == 0 { removeFirst() }
  }

  /// Removes every booking before `time`.
  mutating func removeAll(before time: Int64) {
    while let first, first.time < time { removeFirst() }
  }

  /// Removes the booking `id`, if it is still here. Returns it.
  mutating func remove(id: UInt64) -> Entry? {
    var low = head
    var high = entries.count
    while low < high {
      let middle = (low + high) / 2
      if entries[middle].id < id { low = middle + 1 } else { high = middle }
    }
    guard low < entries.count, entries[low].id == id, entries[low].permits > 0 else { return nil }
    // A tombstone (no permits) where it is, instead of moving every later entry: O(log n). It leaves from the
    // front as time passes; the back never holds one, so `last` is always a live booking.
    let entry = read(entries[low])
    entries[low].permits = 0
    uncount(entry.permits)
    while let last = entries.last, last.permits == 0, entries.count > head { entries.removeLast() }
    return entry
  }

  /// The permits of the bookings after `now` (the bookings ahead), from the latest back, exactly (bookings of a
  /// huge burst may sum past `Int.max`): O(bookings ahead).
  func permits(after now: Int64) -> Wide {
    var sum = Wide.zero
    var index = entries.count - 1
    while index >= head, read(entries[index]).time > now {
      sum = sum + Wide(Int64(entries[index].permits))
      index -= 1
    }
    return sum
  }

  /// Adds `entry` (at `now`, never cancelled) behind every booking at or before now and ahead of every booking
  /// after it: a charge, taken at now, behind no one and ahead of no one (SPEC 4.2). Its id keeps the ids in
  /// order: `newID` when it goes last, else the id before it rounded up to even (never cancellable, below the
  /// bookings ahead, which are all cancellable, so odd).
  mutating func insert(_ entry: Entry, newID: UInt64, at now: Int64) {
    var position = entries.count
    while position > head, read(entries[position - 1]).time > now { position -= 1 }
    var entry = entry
    if position == entries.count {
      entry.id = newID
      append(entry)
      return
    }
    let before = position > head ? entries[position - 1].id : 0
    entry.id = (before &+ 1) & ~1
    entries.insert(stored(entry), at: position)
    count(entry.permits)
  }

  /// Gives back up to `permits` of the bookings at or before `now`, the latest first, each shrinking or going
  /// (a booking that goes is a tombstone until it reaches the front); never more than they hold. Returns how
  /// many it gave back.
  @discardableResult
  mutating func refundLatest(_ permits: Int, notAfter now: Int64) -> Int {
    var left = permits
    var index = entries.count - 1
    while index >= head, read(entries[index]).time > now { index -= 1 }
    while left > 0, index >= head {
      let taken = Swift.min(left, entries[index].permits)
      entries[index].permits -= taken
      uncount(taken)
      left -= taken
      index -= 1
    }
    // The back never holds a tombstone.
    while let last = entries.last, last.permits == 0, entries.count > head { entries.removeLast() }
    if head == entries.count { reset(to: nil) }
    return permits - left
  }

  /// Moves every instant back by `jump` (the clock went back): O(1).
  mutating func shift(back jump: Int64) {
    moved = Nanoseconds.adding(moved, jump)
  }
}
