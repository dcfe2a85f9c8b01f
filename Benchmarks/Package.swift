// swift-tools-version: 6.1
// The benchmarks of RateLimit, a package of their own so that the library keeps zero dependencies.
// Run from the repository root: swift package --package-path Benchmarks benchmark
import Foundation
import PackageDescription

/// A path dependency's identity is the name of its folder, which is whatever the clone is called.
let rateLimitPackage = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
  .lastPathComponent

let package = Package(
  name: "RateLimitBenchmarks",
  platforms: [.macOS(.v13)],
  dependencies: [
    .package(path: ".."),
    .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
    .package(url: "https://github.com/apple/swift-async-algorithms", from: "1.1.4"),
  ],
  targets: [
    .executableTarget(
      name: "RateLimitBenchmarks",
      dependencies: [
        .product(name: "RateLimit", package: rateLimitPackage),
        .product(name: "Benchmark", package: "benchmark"),
        .product(name: "OpenCombine", package: "OpenCombine"),
        .product(name: "OpenCombineDispatch", package: "OpenCombine"),
        .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
      ],
      path: "Benchmarks/RateLimitBenchmarks",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    ),
    // Memory per instance, measured without package-benchmark's malloc interposer, which adds its own bytes to
    // every allocation: swift run --package-path Benchmarks -c release memory-footprint
    .executableTarget(
      name: "memory-footprint",
      dependencies: [.product(name: "RateLimit", package: rateLimitPackage), "CHeapStatistics"]
    ),
    .target(name: "CHeapStatistics"),
    // Issue 27's hostile traffic (key churn, bookings ahead, a step back): swift run --package-path Benchmarks
    // -c release hostile-traffic
    .executableTarget(
      name: "hostile-traffic",
      dependencies: [.product(name: "RateLimit", package: rateLimitPackage), "CHeapStatistics"]
    ),
    // `debounced` against swift-async-algorithms' `debounce` on the same base (SPEC 4.3): swift run --package-path
    // Benchmarks -c release sequence-throughput
    .executableTarget(
      name: "sequence-throughput",
      dependencies: [
        .product(name: "RateLimit", package: rateLimitPackage),
        .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
      ]
    ),
    // Instructions per call, counted by callgrind: bash Benchmarks/instructions.sh
    .executableTarget(
      name: "call-instructions", dependencies: [.product(name: "RateLimit", package: rateLimitPackage)]),
  ],
  swiftLanguageModes: [.v6]
)
