#if Postgres
  import NIOCore

  /// A key as the database compares it: checked and turned into its UTF-8 bytes once, at a limiter's door, then
  /// passed down. Keys are bytes: any string of up to 1,024 UTF-8 bytes, NUL and all.
  struct DatabaseKey: Sendable {
    /// The key as the caller gave it (a fallback limiter compares Swift strings).
    let string: String
    /// Its UTF-8 bytes, sent with every statement on it and kept by the local refusals.
    let bytes: ByteBuffer

    /// - Throws: ``PostgresRateLimiterError/invalidKey(reason:)`` for more than
    ///   ``PostgresRateLimiter/maximumKeyLength`` UTF-8 bytes.
    init(_ key: String) throws {
      let length = key.utf8.count
      guard length <= PostgresRateLimiter.maximumKeyLength else {
        throw PostgresRateLimiterError.invalidKey(
          reason: "a key is at most \(PostgresRateLimiter.maximumKeyLength) UTF-8 bytes; this one has \(length)")
      }
      (string, bytes) = (key, ByteBuffer(string: key))
    }
  }
#endif
