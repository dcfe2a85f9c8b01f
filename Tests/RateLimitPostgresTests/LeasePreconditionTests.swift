#if Postgres
  import PostgresNIO
  import RateLimitPostgres
  import Testing

  /// `PostgresConcurrencyLimiter`'s bad parameters trap with a message naming the parameter and the value; each
  /// case runs in its own process, and none needs a round trip.
  @Suite struct LeasePreconditionTests {
    @Test(arguments: ["limit", "leaseTimeout", "timeout", "name", "permits", "maxWait", "update"])
    func aBadParameterTraps(_ parameter: String) async {
      let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [parameter] in
        let client = PostgresPreconditionTests.client()
        func make(name: String = "n", limit: Int = 1, leaseTimeout: Duration = .seconds(1), timeout: Duration = .zero)
          -> PostgresConcurrencyLimiter
        {
          PostgresConcurrencyLimiter(
            client: client, name: name, limit: limit, leaseTimeout: leaseTimeout, timeout: timeout)
        }
        switch parameter {
        case "limit": _ = make(limit: 0)
        case "leaseTimeout": _ = make(leaseTimeout: .milliseconds(999))
        case "timeout": _ = make(timeout: .milliseconds(-1))
        case "name": _ = make(name: String(repeating: "n", count: 1_025))
        case "permits": _ = try? await make().tryAcquire(0, for: "k")
        case "maxWait": _ = try? await make().acquire(for: "k", within: .seconds(-1))
        default: _ = try? await make().update(limit: -2)
        }
      }
      let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
      let expected = [
        "limit": "limit: 0", "leaseTimeout": "leaseTimeout: 0.999 seconds", "timeout": "timeout: -0.001 seconds",
        "name": "name", "permits": "permits: 0", "maxWait": "maxWait: -1.0 seconds", "update": "limit: -2",
      ]
      #expect(message.contains("PostgresConcurrencyLimiter") && message.contains(expected[parameter]!), "\(message)")
    }
  }
#endif
