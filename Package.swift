// swift-tools-version: 6.0
import PackageDescription

/// Upcoming language features every target opts into.
let upcomingFeatures: [SwiftSetting] = [
  .enableUpcomingFeature("ExistentialAny"),  // SE-0335
  .enableUpcomingFeature("MemberImportVisibility"),  // SE-0444
  .enableUpcomingFeature("InternalImportsByDefault"),  // SE-0409
]

let package = Package(
  name: "RateLimit",
  platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
  products: [
    .library(name: "RateLimit", targets: ["RateLimit"]),
    .executable(name: "rate-limit-demo", targets: ["rate-limit-demo"]),
  ],
  targets: [
    .target(name: "RateLimit", swiftSettings: upcomingFeatures),
    // The documentation's diagrams: scenarios played on a ManualClock, drawn as text and SVG. Not a product:
    // the demo draws them (`--svg`), the tests check them.
    .target(name: "RateLimitDiagrams", dependencies: ["RateLimit"], swiftSettings: upcomingFeatures),
    .executableTarget(
      name: "rate-limit-demo", dependencies: ["RateLimit", "RateLimitDiagrams"], swiftSettings: upcomingFeatures),
    .testTarget(
      name: "RateLimitTests", dependencies: ["RateLimit", "RateLimitDiagrams"], swiftSettings: upcomingFeatures),
  ],
  swiftLanguageModes: [.v6]
)
