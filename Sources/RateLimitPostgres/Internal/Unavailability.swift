#if Postgres
  import PostgresNIO

  /// Whether `error` means "the database cannot answer now" (the policy decides) rather than "this statement is
  /// wrong" (a bug, thrown as it is).
  ///
  /// | error | unavailable |
  /// |---|---|
  /// | the timeout passed | yes |
  /// | refused, lost or closed connection; the pool shut down | yes |
  /// | SQLSTATE class 08 (connection), 53 (resources), 57 (operator: `57P01` shutdown, `57P03` starting), 58 (system), and `25006` (read-only: a standby after failover) | yes |
  /// | any other SQLSTATE (a missing table, a privilege, a syntax error), a row that does not decode | no |
  func isUnavailable(_ error: any Error) -> Bool {
    if error is DecisionTimedOut { return true }
    if error is PostgresDecodingError { return false }
    guard let error = error as? PSQLError else {
      // NIO's own (a refused connect, a reset): the connection, never the statement.
      return true
    }
    if error.code == .server {
      guard let state = error.serverInfo?[.sqlState] else { return false }
      // The server's transient refusals: never thrown raw, the policy decides.
      if transientStates.contains(state) { return true }
      return ["08", "53", "57", "58"].contains(String(state.prefix(2))) || state == "25006"
    }
    return unavailableCodes.contains(error.code)
  }

  /// Deadlock, serialization failure, a row a repeatable-read snapshot missed, lock not available
  /// (`lock_timeout`), statement or query cancelled, an operation too late.
  /// `RLLT1`: an operation that ran after its deadline changed nothing (`ratelimit_in_time_v1`).
  private let transientStates: Set<String> = ["40P01", "40001", "23505", "55P03", "57014", "RLLT1"]

  /// A refusal worth retrying at once, while time is left: a deadlock, a serialization failure, or a key's
  /// row inserted by a decision this one's snapshot could not see (23505 on `ratelimit_keys_pkey`), all three
  /// under `default_transaction_isolation` of repeatable read or serializable, whose snapshot is taken before
  /// the key's lock.
  func isRetryable(_ error: any Error) -> Bool {
    guard let error = error as? PSQLError, error.code == .server else { return false }
    return ["40P01", "40001", "23505"].contains(error.serverInfo?[.sqlState] ?? "")
  }

  /// A refusal that concerns one key (its lock held elsewhere, a transient conflict, an operation past its
  /// deadline), not the database: it does not start the outage back-off (the database answered).
  func isOneKeysRefusal(_ error: any Error) -> Bool {
    guard let error = error as? PSQLError, error.code == .server else { return false }
    return ["40P01", "40001", "23505", "55P03", "RLLT1"].contains(error.serverInfo?[.sqlState] ?? "")
  }

  /// Whether `error` (or the error it wraps) says the client was shut down: a background statement (a release,
  /// a revocation) stops at once rather than trying a closed pool until its lease would have expired.
  func isClientGone(_ error: any Error) -> Bool {
    switch error {
    case let error as PostgresPermitStore.Unavailable: return isClientGone(error.error)
    case PostgresRateLimiterError.unavailable(let underlying): return isClientGone(underlying)
    case let error as PSQLError: return [.poolClosed, .clientClosedConnection].contains(error.code)
    // `PostgresClient.execute` throws the pool's own error, of a module PostgresNIO does not export
    // (`_ConnectionPoolModule`): known by its case's name (LeaseClientTests shows it still is).
    default: return "\(error)".hasSuffix(".poolShutdown)")
    }
  }

  private let unavailableCodes: Set<PSQLError.Code> = [
    .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed,
    .queryCancelled, .sslUnsupported, .failedToAddSSLHandler,
  ]
#endif
