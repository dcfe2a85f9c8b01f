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
      return ["08", "53", "57", "58"].contains(String(state.prefix(2))) || state == "25006"
    }
    return unavailableCodes.contains(error.code)
  }

  private let unavailableCodes: Set<PSQLError.Code> = [
    .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed,
    .queryCancelled, .sslUnsupported, .failedToAddSSLHandler,
  ]
#endif
