// swift-tools-version: 6.1
import PackageDescription

/// Upcoming language features every target opts into.
let upcomingFeatures: [SwiftSetting] = [
  .enableUpcomingFeature("ExistentialAny"),  // SE-0335
  .enableUpcomingFeature("MemberImportVisibility"),  // SE-0444
  .enableUpcomingFeature("InternalImportsByDefault"),  // SE-0409
]

/// Optional integrations, each off by default and each guarding one module's dependency: an app that enables
/// none of them resolves, fetches and builds no package at all.
let traits: Set<Trait> = [
  .trait(
    name: "Postgres",
    description: "PostgresRateLimiter (module RateLimitPostgres): one limit per key shared by every process, in "
      + "PostgreSQL, through PostgresNIO."),
  .default(enabledTraits: []),
]

let package = Package(
  name: "RateLimit",
  platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
  products: [
    .library(name: "RateLimit", targets: ["RateLimit"]),
    .library(name: "RateLimitPostgres", targets: ["RateLimitPostgres"]),
    .executable(name: "rate-limit-demo", targets: ["rate-limit-demo"]),
  ],
  traits: traits,
  dependencies: [
    .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.0")
  ],
  targets: [
    .target(name: "RateLimit", swiftSettings: upcomingFeatures),
    // The shared store. Without the `Postgres` trait the module is empty and PostgresNIO is never resolved.
    .target(
      name: "RateLimitPostgres",
      dependencies: [
        "RateLimit",
        .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Postgres"])),
      ],
      swiftSettings: upcomingFeatures),
    // The documentation's diagrams: scenarios played on a ManualClock, drawn as text and SVG. Not a product:
    // the demo draws them (`--svg`), the tests check them.
    .target(name: "RateLimitDiagrams", dependencies: ["RateLimit"], swiftSettings: upcomingFeatures),
    .executableTarget(
      name: "rate-limit-demo",
      dependencies: [
        "RateLimit", "RateLimitDiagrams",
        .target(name: "RateLimitPostgres", condition: .when(traits: ["Postgres"])),
        .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Postgres"])),
      ],
      swiftSettings: upcomingFeatures),
    .testTarget(
      name: "RateLimitTests", dependencies: ["RateLimit", "RateLimitDiagrams"], swiftSettings: upcomingFeatures),
    // Runs against a real PostgreSQL server (RATELIMIT_POSTGRES_URL); empty without the trait.
    .testTarget(
      name: "RateLimitPostgresTests",
      dependencies: [
        "RateLimit",
        .target(name: "RateLimitPostgres", condition: .when(traits: ["Postgres"])),
        .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Postgres"])),
      ],
      swiftSettings: upcomingFeatures),
  ],
  swiftLanguageModes: [.v6]
)
