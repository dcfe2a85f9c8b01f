/// Permits held while work runs. `release()` gives them back: the first call does, later calls do nothing.
/// A lease that nobody released is released when it is deallocated, so a lease never leaks.
///
/// A lease comes from a ``ConcurrencyLimiter``, a ``KeyedConcurrencyLimiter`` or a shared one
/// (`PostgresConcurrencyLimiter`); an app's own limiter can hand out leases too, with ``init(permits:release:)``.
///
/// ```
/// let lease = limiter.tryAcquire()   // inUse 1
/// lease?.release()                    // inUse 0, at once
/// lease?.release()                    // nothing
/// ```
public final class Lease: Sendable {
  /// How many permits the lease holds.
  public let permits: Int
  /// Whoever gives the permits back: the limiter that granted them.
  let owner: any LeaseOwner
  /// The owner's own record of where the permits are held (one key's line), if it keeps one.
  let holder: (any AnyObject & Sendable)?
  /// Whether the lease was released.
  // nonisolated(unsafe): read and written only by `owner.release(_:)`, under the owner's lock (``LeaseOwner``),
  // so that a release costs one lock in all.
  nonisolated(unsafe) var isReleased = false

  /// A lease whose `release()` (or deallocation) calls `release` once: for an app's own limiter.
  ///
  /// - Parameters:
  ///   - permits: How many permits the lease holds, as ``permits`` reports them.
  ///   - release: Called once, by the first `release()` or when the lease is deallocated unreleased.
  public init(permits: Int, release: @escaping @Sendable () -> Void) {
    self.permits = permits
    self.owner = ClosureLeaseOwner(release)
    self.holder = nil
  }

  init(permits: Int, owner: any LeaseOwner, holder: (any AnyObject & Sendable)?) {
    self.permits = permits
    self.owner = owner
    self.holder = holder
  }

  /// Gives the permits back, at once. The first call does; later calls do nothing.
  public func release() {
    owner.release(self)
  }

  deinit {
    owner.release(self)
  }
}

/// Whatever granted a lease and takes its permits back.
///
/// `release(_:)` reads and sets ``Lease/isReleased`` under a lock of its own, and gives the permits back only the
/// first time: every access to the flag goes through one owner, under that owner's lock.
protocol LeaseOwner: AnyObject, Sendable {
  func release(_ lease: Lease)
}

/// The owner of a lease made with ``Lease/init(permits:release:)``: calls the closure once.
final class ClosureLeaseOwner: LeaseOwner {
  private let lock = Lock()
  private let work: @Sendable () -> Void

  init(_ work: @escaping @Sendable () -> Void) { self.work = work }

  func release(_ lease: Lease) {
    let first = lock.withLock {
      if lease.isReleased { return false }
      lease.isReleased = true
      return true
    }
    if first { work() }
  }
}
