#if Postgres
  /// The one place where "the database cannot answer" (``PostgresPermitStore/Unavailable``) meets what is done
  /// about it: `body`'s answer, or `policy`'s when the database could not give one. The limiters' doors answer
  /// by their ``PostgresRateLimiter/WhenUnavailable`` policy here; a statement that carried bookings revokes them
  /// here and rethrows.
  ///
  /// ```swift
  /// try await answering {
  ///   try await store.ask(…)
  /// } whenUnavailable: { error in
  ///   try answer(error, allow: true, deny: false) {
  ///     $0.tryAcquire(permits, for: key)
  ///   }
  /// }
  /// ```
  func answering<Answer>(
    _ body: () async throws -> Answer,
    whenUnavailable policy: (PostgresPermitStore.Unavailable) async throws -> Answer
  ) async throws -> Answer {
    do {
      return try await body()
    } catch let error as PostgresPermitStore.Unavailable {
      return try await policy(error)
    }
  }
#endif
