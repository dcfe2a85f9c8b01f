#if canImport(Darwin)
  public import Darwin
#elseif canImport(Glibc)
  public import Glibc
#elseif canImport(Musl)
  public import Musl
#elseif canImport(Bionic)
  public import Bionic
#else
  #error("RateLimit needs pthreads on this platform.")
#endif

// The imports above are `public` only because `withLock` is `@inlinable` (so that `call` specializes in the
// caller); no libc type appears in the public API.

/// A non-recursive mutual-exclusion lock around a heap-allocated `pthread_mutex_t`, and the same operations on a
/// mutex stored elsewhere.
///
/// Why this lock: it is cheap when uncontended, available on every platform the package supports, and
/// ThreadSanitizer understands it (`Synchronization.Mutex` is invisible to TSan on Linux and needs
/// macOS 15 / iOS 18). The mutex lives on the heap so its address never moves, as pthreads requires.
///
/// It is `~Copyable` so that exactly one owner destroys the mutex.
@usableFromInline
struct Lock: ~Copyable, @unchecked Sendable {
  // @unchecked Sendable: a mutex exists to be shared between threads. `mutex` never changes after `init`, and the
  // memory it points to is only touched through the pthread functions, which synchronize it themselves.

  /// The platform's mutex, named here so that code keeping one elsewhere need not import libc itself.
  @usableFromInline typealias Mutex = pthread_mutex_t

  @usableFromInline let mutex: UnsafeMutablePointer<Mutex>

  init() {
    mutex = .allocate(capacity: 1)
    Self.initialize(mutex)
  }

  deinit {
    Self.destroy(mutex)
    mutex.deallocate()
  }

  /// Runs `body` with the lock held. `body` must not call back into code that takes the same lock.
  @inlinable @inline(__always)
  func withLock<Result: ~Copyable, Failure: Error>(
    _ body: () throws(Failure) -> Result
  ) throws(Failure) -> Result {
    try Self.withLock(mutex, body)
  }

  // The same three operations on a mutex that lives elsewhere, at an address that never moves: the engine keeps
  // its mutex in its own allocation, next to the state it guards.

  /// Initializes the uninitialized memory at `mutex` as a mutex.
  static func initialize(_ mutex: UnsafeMutablePointer<Mutex>) {
    mutex.initialize(to: Mutex())
    let status = pthread_mutex_init(mutex, nil)
    precondition(status == 0, "pthread_mutex_init failed with \(status)")
  }

  /// Destroys the mutex at `mutex`, leaving the memory uninitialized.
  static func destroy(_ mutex: UnsafeMutablePointer<Mutex>) {
    pthread_mutex_destroy(mutex)
    mutex.deinitialize(count: 1)
  }

  /// Runs `body` with the mutex at `mutex` locked.
  @inlinable @inline(__always)
  static func withLock<Result: ~Copyable, Failure: Error>(
    _ mutex: UnsafeMutablePointer<Mutex>, _ body: () throws(Failure) -> Result
  ) throws(Failure) -> Result {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return try body()
  }
}
