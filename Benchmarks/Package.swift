// swift-tools-version: 6.1
// bletrace benchmarks (package-benchmark) and the generator of large realistic captures.
// A separate package so that the main package does not depend on package-benchmark.
// Build: swift build -c release --scratch-path ../.build-bench     Run: make bench (from ..)
import PackageDescription

let package = Package(
    name: "bletrace-benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        // `name:` so that targets can say package: "bletrace" whatever the clone's folder is called.
        .package(name: "bletrace", path: ".."),
        .package(
            url: "https://github.com/ordo-one/package-benchmark", from: "1.38.1",
            traits: ["MallocInterposer"]),
    ],
    targets: [
        // Hand-built HCI/ACL/ATT packet bytes shared by the generator and the benchmarks.
        .target(
            name: "BenchSupport",
            dependencies: [.product(name: "BLETrace", package: "bletrace")],
            path: "Sources/BenchSupport"),
        .executableTarget(
            name: "generate-capture",
            dependencies: ["BenchSupport", .product(name: "BLETrace", package: "bletrace")],
            path: "Sources/generate-capture"),
        // The CPU clock of the time gate (ProcessCPU.swift).
        .target(
            name: "BenchGate",
            dependencies: [.product(name: "Benchmark", package: "package-benchmark")],
            path: "Sources/BenchGate"),
    ]
        // One executable per group of benchmarks, in Benchmarks/NAME ("ReplayMirror" and
        // "RedactRewrite", not "Replay" and "Redact": the main package has modules of those names).
        + [
            "ATTCodec", "HCICodec", "CaptureFraming", "Containers", "DecodeLines", "ReplayMirror", "RedactRewrite",
            "Sweep",
        ]
        .map { name in
            .executableTarget(
                name: name,
                dependencies: [
                    "BenchSupport", "BenchGate",
                    .product(name: "BLETrace", package: "bletrace"),
                    .product(name: "Benchmark", package: "package-benchmark"),
                ],
                path: "Benchmarks/\(name)",
                plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")])
        }
)
