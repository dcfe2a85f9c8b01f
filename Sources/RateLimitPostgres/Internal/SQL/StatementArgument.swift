#if Postgres
  import PostgresNIO

  /// A value a prepared statement is sent with. A statement's `makeBindings()` lists its values in the order of
  /// their `$n`, once: `PostgresBindings(key, permits, now, …)`; a statement of one column decodes it by default.
  protocol StatementArgument {
    func append(to bindings: inout PostgresBindings)
  }

  extension StatementArgument where Self: PostgresDynamicTypeEncodable {
    func append(to bindings: inout PostgresBindings) { bindings.append(self) }
  }

  extension Int64: StatementArgument {}
  extension Int32: StatementArgument {}
  extension Bool: StatementArgument {}
  extension String: StatementArgument {}
  extension ByteBuffer: StatementArgument {}
  extension Array: StatementArgument where Element: PostgresArrayEncodable & PostgresNonThrowingEncodable {}

  /// `NULL` when `nil`.
  extension Optional: StatementArgument where Wrapped: PostgresDynamicTypeEncodable {
    func append(to bindings: inout PostgresBindings) { bindings.append(self) }
  }

  extension PostgresPreparedStatement where Row: PostgresDecodable {
    /// A statement of one column (`Int32`, `Int64`): its value.
    func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
  }

  extension PostgresBindings {
    /// `arguments`, in order: `$1`, `$2`, …
    init(_ arguments: any StatementArgument...) {
      self.init(capacity: arguments.count)
      for argument in arguments { argument.append(to: &self) }
    }
  }
#endif
