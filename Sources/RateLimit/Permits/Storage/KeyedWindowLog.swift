/// A sliding window's log for one key of a ``KeyedRateLimiter``: 16 bytes in the key's slot, and 8 bytes a booking
/// for the usual bookings (one permit, by `tryAcquire`, so never cancelled). A log that holds anything else, a
/// booking that may be cancelled or one of several permits, is a whole ``BookingLog`` (24 bytes a booking) until
/// it is down to one booking again.
///
/// ```
/// .empty                     no booking: the key is fresh
/// .one(time, permits)        one booking, never cancelled
/// .times([head, t0, t1, …])  one-permit bookings, never cancelled
/// .whole(log)                anything else
/// ```
enum KeyedWindowLog: WindowLog {
  case empty
  case one(time: Int64, permits: UInt32)
  case times(TimeQueue)
  case whole(BookingLogBox)

  init() { self = .empty }

  var isEmpty: Bool { count == 0 }

  var count: Int {
    switch self {
    case .empty: 0
    case .one: 1
    case .times(let times): times.count
    case .whole(let box): box.log.count
    }
  }

  var total: Int {
    switch self {
    case .empty: 0
    case .one(_, let permits): Int(permits)
    case .times(let times): times.count
    case .whole(let box): box.log.total
    }
  }

  var exactTotal: Wide {
    guard case .whole(let box) = self else { return Wide(Int64(total)) }
    return box.log.exactTotal
  }

  var lastTime: Int64? {
    switch self {
    case .empty: nil
    case .one(let time, _): time
    case .times(let times): times.last
    case .whole(let box): box.log.lastTime
    }
  }

  func time(at offset: Int) -> Int64 {
    switch self {
    case .empty: preconditionFailure("no booking")
    case .one(let time, _): time
    case .times(let times): times[offset]
    case .whole(let box): box.log.time(at: offset)
    }
  }

  func permits(at offset: Int) -> Int {
    switch self {
    case .empty: preconditionFailure("no booking")
    case .one(_, let permits): Int(permits)
    case .times: 1
    case .whole(let box): box.log.permits(at: offset)
    }
  }

  mutating func append(_ entry: BookingLog.Entry) {
    let plain = !entry.isCancellable && entry.permits == 1
    // Outside the `switch`: a case with a `where` clause keeps a second reference to the queue while it runs.
    if plain, case .times = self { return modifyTimes { $0.append(entry.time) } }
    switch self {
    case .empty where !entry.isCancellable && entry.permits <= UInt32.max:
      self = .one(time: entry.time, permits: UInt32(entry.permits))
    case .one(let time, 1) where plain:
      self = .times(TimeQueue(time, entry.time))
    case .whole(let box):
      box.log.append(entry)
    default:
      let box = BookingLogBox(whole: self)
      box.log.append(entry)
      self = .whole(box)
    }
  }

  mutating func removeAll(notAfter time: Int64) {
    // Outside the `switch`: a case that binds the queue keeps a second reference to it while it runs.
    if case .times = self {
      modifyTimes { $0.removeAll(notAfter: time) }
      if count == 0 { self = .empty }
      return
    }
    switch self {
    case .empty: break
    case .one(let first, _): if first <= time { self = .empty }
    case .times: break  // above
    case .whole(let box):
      box.log.removeAll(notAfter: time)
      settle(box)
    }
  }

  mutating func removeBooking(id: UInt64) {
    // Only a whole log holds bookings that may be cancelled.
    guard case .whole(let box) = self else { return }
    box.log.removeBooking(id: id)
    settle(box)
  }

  mutating func insertTaken(_ permits: Int, newID: UInt64, at now: Int64) {
    // Nothing ahead: the usual append keeps the log small. Bookings ahead are cancellable: the log is whole.
    guard let last = lastTime, last > now else {
      return append(BookingLog.Entry(time: now, permits: permits, id: newID))
    }
    let box = whole()
    box.log.insert(BookingLog.Entry(time: now, permits: permits, id: newID), newID: newID, at: now)
  }

  mutating func refund(_ permits: Int, notAfter now: Int64) {
    guard !isEmpty else { return }
    let box = whole()
    box.log.refundLatest(permits, notAfter: now)
    settle(box)
  }

  /// A whole log is a box, shared by copies of the enum: its copy gets a box of its own.
  func independentCopy() -> KeyedWindowLog {
    guard case .whole(let box) = self else { return self }
    let copy = BookingLogBox(whole: .empty)
    copy.log = box.log
    return .whole(copy)
  }

  /// The log as a whole ``BookingLog`` (made one if it is not), for the rare operations a small log lacks.
  private mutating func whole() -> BookingLogBox {
    if case .whole(let box) = self { return box }
    let box = BookingLogBox(whole: self)
    self = .whole(box)
    return box
  }

  /// Changes the queue of instants in place: moved out of `self` first, so that it holds the only reference to its
  /// storage (before, every change copied the whole queue).
  private mutating func modifyTimes(_ body: (inout TimeQueue) -> Void) {
    guard case .times(var times) = self else { preconditionFailure("not a queue of instants") }
    self = .empty
    body(&times)
    self = .times(times)
  }

  /// A whole log down to one booking, or none, becomes small again.
  private mutating func settle(_ box: BookingLogBox) {
    switch box.log.count {
    case 0: self = .empty
    case 1:
      let entry = box.log.first!
      if !entry.isCancellable, entry.permits <= UInt32.max {
        self = .one(time: entry.time, permits: UInt32(entry.permits))
      }
    default: break
    }
  }
}

extension KeyedWindowLog {
  /// Where the queue of instants is stored (`nil` unless `.times`), for tests that it changes in place.
  var storageAddress: UnsafeRawPointer? {
    guard case .times(let times) = self else { return nil }
    return times.storageAddress
  }
}

/// A ``BookingLog`` by reference, so that ``KeyedWindowLog`` stays 16 bytes.
final class BookingLogBox: @unchecked Sendable {
  // @unchecked Sendable: a box belongs to one key's slot in a `KeyedPermits`, which is only read and written
  // under its store's lock; it is never shared.
  var log = BookingLog()

  /// A whole log with the bookings of `small`.
  init(whole small: KeyedWindowLog) {
    for offset in 0..<small.count {
      // Id 0: never cancelled, and below every id to come.
      log.append(BookingLog.Entry(time: small.time(at: offset), permits: small.permits(at: offset), id: 0))
    }
  }
}

/// Instants in a queue: one array whose first element is the offset of the oldest instant, so that the queue is
/// 8 bytes and allocates only when it grows. Leaving from the front is O(1) amortized.
struct TimeQueue: Sendable {
  private var storage: ContiguousArray<Int64>

  init(_ first: Int64, _ second: Int64) {
    storage = [1, first, second]
  }

  private var head: Int { Int(storage[0]) }

  var count: Int { storage.count - head }
  var isEmpty: Bool { count == 0 }
  var first: Int64? { isEmpty ? nil : storage[head] }
  var last: Int64? { isEmpty ? nil : storage[storage.count - 1] }
  subscript(offset: Int) -> Int64 { storage[head + offset] }

  mutating func append(_ time: Int64) { storage.append(time) }

  mutating func removeAll(notAfter time: Int64) {
    var head = self.head
    while head < storage.count, storage[head] <= time { head += 1 }
    // Compact once the dead front is half the storage: amortized O(1).
    if head > 1, head * 2 >= storage.count {
      storage.removeSubrange(1..<head)
      head = 1
    }
    storage[0] = Int64(head)
  }

  var storageAddress: UnsafeRawPointer? { storage.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) } }
}
