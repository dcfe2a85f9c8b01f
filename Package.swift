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
    .executableTarget(name: "rate-limit-demo", dependencies: ["RateLimit"], swiftSettings: upcomingFeatures),
    .testTarget(name: "RateLimitTests", dependencies: ["RateLimit"], swiftSettings: upcomingFeatures),
  ],
  swiftLanguageModes: [.v6]
)
