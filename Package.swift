// swift-tools-version: 6.1
import PackageDescription

/// Upcoming language features every target opts into.
let upcomingFeatures: [SwiftSetting] = [
  .enableUpcomingFeature("ExistentialAny"),  // SE-0335
  .enableUpcomingFeature("MemberImportVisibility"),  // SE-0444
  .enableUpcomingFeature("InternalImportsByDefault"),  // SE-0409
]

/// Optional integrations, each off by default and each guarding one module's dependencies: an app that enables
/// none of them resolves, fetches and builds no package at all, and one that enables only `Hummingbird` resolves
/// no PostgresNIO and no Vapor.
let traits: Set<Trait> = [
  .trait(
    name: "Postgres",
    description: "PostgresRateLimiter (module RateLimitPostgres): one limit per key shared by every process, in "
      + "PostgreSQL, through PostgresNIO."),
  .trait(
    name: "Hummingbird",
    description: "RateLimitMiddleware for Hummingbird 2 (module RateLimitHummingbird)."),
  .trait(
    name: "Vapor",
    description: "RateLimitMiddleware for Vapor 4 (module RateLimitVapor)."),
  .default(enabledTraits: []),
]

let package = Package(
  name: "RateLimit",
  platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
  products: [
    .library(name: "RateLimit", targets: ["RateLimit"]),
    .library(name: "RateLimitHTTP", targets: ["RateLimitHTTP"]),
    .library(name: "RateLimitPostgres", targets: ["RateLimitPostgres"]),
    .library(name: "RateLimitHummingbird", targets: ["RateLimitHummingbird"]),
    .library(name: "RateLimitVapor", targets: ["RateLimitVapor"]),
    .executable(name: "rate-limit-demo", targets: ["rate-limit-demo"]),
  ],
  traits: traits,
  dependencies: [
    .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.0"),
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0"),
    .package(url: "https://github.com/vapor/vapor", from: "4.100.0"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
    .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
    .package(url: "https://github.com/apple/swift-nio", from: "2.81.0"),
    .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
    .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.1.0"),
  ],
  targets: [
    .target(name: "RateLimit", swiftSettings: upcomingFeatures),
    // HTTP without a framework: policies, the RateLimit header fields, client keys. No dependency.
    .target(name: "RateLimitHTTP", dependencies: ["RateLimit"], swiftSettings: upcomingFeatures),
    // The shared store. Without the `Postgres` trait the module is empty and PostgresNIO is never resolved.
    .target(
      name: "RateLimitPostgres",
      dependencies: [
        "RateLimit",
        .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Postgres"])),
        .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Postgres"])),
      ],
      swiftSettings: upcomingFeatures),
    // What both middlewares count and trace (ratelimit_requests, the span's attributes): package symbols only,
    // empty without either trait.
    .target(
      name: "RateLimitMiddlewareSupport",
      dependencies: [
        "RateLimit", "RateLimitHTTP",
        .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Hummingbird", "Vapor"])),
        .product(name: "Metrics", package: "swift-metrics", condition: .when(traits: ["Hummingbird", "Vapor"])),
        .product(
          name: "Tracing", package: "swift-distributed-tracing", condition: .when(traits: ["Hummingbird", "Vapor"])),
      ],
      swiftSettings: upcomingFeatures),
    // The middlewares: each a thin layer over RateLimitHTTP, empty without its trait.
    .target(
      name: "RateLimitHummingbird",
      dependencies: [
        "RateLimit", "RateLimitHTTP", "RateLimitMiddlewareSupport",
        .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Hummingbird"])),
        .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Hummingbird"])),
        .product(name: "Metrics", package: "swift-metrics", condition: .when(traits: ["Hummingbird"])),
        .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["Hummingbird"])),
        .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["Hummingbird"])),
        .product(name: "Tracing", package: "swift-distributed-tracing", condition: .when(traits: ["Hummingbird"])),
      ],
      swiftSettings: upcomingFeatures),
    .target(
      name: "RateLimitVapor",
      dependencies: [
        "RateLimit", "RateLimitHTTP", "RateLimitMiddlewareSupport",
        .product(name: "Vapor", package: "vapor", condition: .when(traits: ["Vapor"])),
        .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Vapor"])),
        .product(name: "Metrics", package: "swift-metrics", condition: .when(traits: ["Vapor"])),
        .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["Vapor"])),
        .product(name: "Tracing", package: "swift-distributed-tracing", condition: .when(traits: ["Vapor"])),
      ],
      swiftSettings: upcomingFeatures),
    // The documentation's diagrams: scenarios played on a ManualClock, drawn as text and SVG. Not a product:
    // the demo draws them (`--svg`), the tests check them.
    .target(name: "RateLimitDiagrams", dependencies: ["RateLimit"], swiftSettings: upcomingFeatures),
    .executableTarget(
      name: "rate-limit-demo",
      dependencies: [
        "RateLimit", "RateLimitDiagrams", "RateLimitHTTP",
        .target(name: "RateLimitPostgres", condition: .when(traits: ["Postgres"])),
        .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Postgres"])),
        .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Postgres"])),
        .target(name: "RateLimitHummingbird", condition: .when(traits: ["Hummingbird"])),
        .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Hummingbird"])),
        .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["Hummingbird"])),
      ],
      swiftSettings: upcomingFeatures),
    // One set of scenarios, with the SPEC's answers written out, that every store must pass: the in-process
    // KeyedRateLimiter (RateLimitTests) and PostgresRateLimiter (RateLimitPostgresTests); and the tests' one seeded
    // random generator (every test target that draws timelines). Not a product.
    .target(
      name: "RateLimitStoreKit", dependencies: ["RateLimit"], path: "Tests/RateLimitStoreKit",
      swiftSettings: upcomingFeatures),
    // The Hummingbird and Vapor suites' live-server helpers (a latch, curl). Not a product.
    .target(name: "MiddlewareTestSupport", path: "Tests/MiddlewareTestSupport", swiftSettings: upcomingFeatures),
    .testTarget(
      name: "RateLimitTests", dependencies: ["RateLimit", "RateLimitDiagrams", "RateLimitStoreKit"],
      swiftSettings: upcomingFeatures),
    .testTarget(
      name: "RateLimitHTTPTests", dependencies: ["RateLimit", "RateLimitHTTP", "RateLimitStoreKit"],
      swiftSettings: upcomingFeatures),
    // Runs against a real PostgreSQL server (RATELIMIT_POSTGRES_URL); empty without the trait.
    .testTarget(
      name: "RateLimitPostgresTests",
      dependencies: [
        "RateLimit", "RateLimitHTTP", "RateLimitStoreKit",
        .target(name: "RateLimitPostgres", condition: .when(traits: ["Postgres"])),
        .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Postgres"])),
        .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Postgres"])),
      ],
      swiftSettings: upcomingFeatures),
    // The middlewares through the frameworks' own test libraries and a live server; empty without the traits.
    .testTarget(
      name: "RateLimitHummingbirdTests",
      dependencies: [
        "RateLimit", "RateLimitHTTP", "MiddlewareTestSupport",
        .target(name: "RateLimitHummingbird", condition: .when(traits: ["Hummingbird"])),
        .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Hummingbird"])),
        .product(name: "HummingbirdTesting", package: "hummingbird", condition: .when(traits: ["Hummingbird"])),
        .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["Hummingbird"])),
        .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Hummingbird"])),
        .product(name: "Metrics", package: "swift-metrics", condition: .when(traits: ["Hummingbird"])),
        .product(name: "MetricsTestKit", package: "swift-metrics", condition: .when(traits: ["Hummingbird"])),
        .product(
          name: "InMemoryTracing", package: "swift-distributed-tracing", condition: .when(traits: ["Hummingbird"])),
        .target(name: "RateLimitPostgres", condition: .when(traits: ["Postgres"])),
        .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Postgres"])),
      ],
      swiftSettings: upcomingFeatures),
    .testTarget(
      name: "RateLimitVaporTests",
      dependencies: [
        "RateLimit", "RateLimitHTTP", "MiddlewareTestSupport",
        .target(name: "RateLimitVapor", condition: .when(traits: ["Vapor"])),
        .target(name: "RateLimitMiddlewareSupport", condition: .when(traits: ["Vapor"])),
        .product(name: "Vapor", package: "vapor", condition: .when(traits: ["Vapor"])),
        .product(name: "VaporTesting", package: "vapor", condition: .when(traits: ["Vapor"])),
        .target(name: "RateLimitPostgres", condition: .when(traits: ["Postgres"])),
        .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Postgres"])),
      ],
      swiftSettings: upcomingFeatures),
  ],
  swiftLanguageModes: [.v6]
)
