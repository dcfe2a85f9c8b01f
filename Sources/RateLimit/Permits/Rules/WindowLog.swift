/// What the sliding window needs of its log of bookings, oldest first: ``BookingLog`` for a ``RateLimiter``,
/// ``KeyedWindowLog`` (16 bytes a key, 8 a booking) for a ``KeyedRateLimiter``.
protocol WindowLog: Sendable {
  /// A log with no booking.
  init()

  var isEmpty: Bool { get }
  /// The bookings.
  var count: Int { get }
  /// The permits of every booking, saturating: exact below `Int.max`, `Int.max` when they sum to that or more.
  var total: Int { get }
  /// The permits of every booking, exactly (charges of up to `Int.max` each may sum past it).
  var exactTotal: Wide { get }
  /// The instant of the latest booking.
  var lastTime: Int64? { get }
  /// The instant of the booking `offset` places from the oldest.
  func time(at offset: Int) -> Int64
  /// The permits of the booking `offset` places from the oldest.
  func permits(at offset: Int) -> Int

  /// Adds a booking at the end; its time is not earlier than the last one's.
  mutating func append(_ entry: BookingLog.Entry)
  /// Removes every booking at or before `time`.
  mutating func removeAll(notAfter time: Int64)
  /// Removes the booking `id`, if it is here.
  mutating func removeBooking(id: UInt64)
  /// Adds `permits` taken at `now`, never cancelled, behind the bookings at or before now and ahead of those
  /// after it (``BookingLog/insert(_:newID:at:)``).
  mutating func insertTaken(_ permits: Int, newID: UInt64, at now: Int64)
  /// Gives back up to `permits` of the bookings at or before `now`, the latest first
  /// (``BookingLog/refundLatest(_:notAfter:)``).
  mutating func refund(_ permits: Int, notAfter now: Int64)
  /// A copy that shares no storage a change to it could reach.
  func independentCopy() -> Self
}

extension BookingLog: WindowLog {
  var lastTime: Int64? { last?.time }
  mutating func removeBooking(id: UInt64) { _ = remove(id: id) }
  mutating func insertTaken(_ permits: Int, newID: UInt64, at now: Int64) {
    insert(Entry(time: now, permits: permits, id: newID), newID: newID, at: now)
  }
  mutating func refund(_ permits: Int, notAfter now: Int64) { refundLatest(permits, notAfter: now) }
  /// A value, copied on write.
  func independentCopy() -> BookingLog { self }
}
