// swift-tools-version: 6.1
// PostgresRateLimiter's cost per decision, beside `SELECT 1` through the same client and the in-process
// KeyedRateLimiter, in one run; and RateLimitMiddleware's cost under wrk. A package of its own, so that the other
// benchmarks build without PostgresNIO and Hummingbird. From the repository root:
//   bash scripts/with-postgres.sh swift run -c release --package-path Benchmarks/Postgres postgres-benchmark
//   bash scripts/with-postgres.sh bash Benchmarks/Postgres/http.sh
import Foundation
import PackageDescription

/// A path dependency's identity is the name of its folder, which is whatever the clone is called.
let rateLimitPackage = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
  .deletingLastPathComponent().lastPathComponent

let package = Package(
  name: "PostgresBenchmark",
  platforms: [.macOS(.v13)],
  dependencies: [
    .package(path: "../..", traits: ["Postgres", "Hummingbird"]),
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0"),
    .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.0"),
    .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
  ],
  targets: [
    .executableTarget(
      name: "postgres-benchmark",
      dependencies: [
        .product(name: "RateLimit", package: rateLimitPackage),
        .product(name: "RateLimitPostgres", package: rateLimitPackage),
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Logging", package: "swift-log"),
      ]),
    // Resident memory against the number of queries: swift run -c release --package-path Benchmarks/Postgres
    // postgres-memory
    .executableTarget(
      name: "postgres-memory",
      dependencies: [
        .product(name: "RateLimitPostgres", package: rateLimitPackage),
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Logging", package: "swift-log"),
      ]),
    // A lease (acquire + release) beside `SELECT 1`: swift run -c release --package-path Benchmarks/Postgres
    // lease-benchmark
    .executableTarget(
      name: "lease-benchmark",
      dependencies: [
        .product(name: "RateLimit", package: rateLimitPackage),
        .product(name: "RateLimitPostgres", package: rateLimitPackage),
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Logging", package: "swift-log"),
      ]),
    // A hello-world server with and without RateLimitMiddleware, for wrk: bash Benchmarks/Postgres/http.sh
    .executableTarget(
      name: "http-benchmark",
      dependencies: [
        .product(name: "RateLimit", package: rateLimitPackage),
        .product(name: "RateLimitHTTP", package: rateLimitPackage),
        .product(name: "RateLimitHummingbird", package: rateLimitPackage),
        .product(name: "RateLimitPostgres", package: rateLimitPackage),
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
        .product(name: "Logging", package: "swift-log"),
      ]),
  ],
  swiftLanguageModes: [.v6]
)
