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
        .executableTarget(
            name: "ATTCodec",
            dependencies: [
                "BenchSupport",
                .product(name: "BLETrace", package: "bletrace"),
                .product(name: "Benchmark", package: "package-benchmark"),
            ],
            path: "Benchmarks/ATTCodec",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]),
        .executableTarget(
            name: "HCICodec",
            dependencies: [
                "BenchSupport",
                .product(name: "BLETrace", package: "bletrace"),
                .product(name: "Benchmark", package: "package-benchmark"),
            ],
            path: "Benchmarks/HCICodec",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]),
        .executableTarget(
            name: "CaptureFraming",
            dependencies: [
                "BenchSupport",
                .product(name: "BLETrace", package: "bletrace"),
                .product(name: "Benchmark", package: "package-benchmark"),
            ],
            path: "Benchmarks/CaptureFraming",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]),
        .executableTarget(
            name: "Containers",
            dependencies: [
                "BenchSupport",
                .product(name: "BLETrace", package: "bletrace"),
                .product(name: "Benchmark", package: "package-benchmark"),
            ],
            path: "Benchmarks/Containers",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]),
        .executableTarget(
            name: "DecodeLines",
            dependencies: [
                "BenchSupport",
                .product(name: "BLETrace", package: "bletrace"),
                .product(name: "Benchmark", package: "package-benchmark"),
            ],
            path: "Benchmarks/DecodeLines",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]),
        .executableTarget(
            // Not "Replay": the main package has a module of that name.
            name: "ReplayMirror",
            dependencies: [
                "BenchSupport",
                .product(name: "BLETrace", package: "bletrace"),
                .product(name: "Benchmark", package: "package-benchmark"),
            ],
            path: "Benchmarks/ReplayMirror",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]),
        .executableTarget(
            // Not "Redact": the main package has a module of that name.
            name: "RedactRewrite",
            dependencies: [
                "BenchSupport",
                .product(name: "BLETrace", package: "bletrace"),
                .product(name: "Benchmark", package: "package-benchmark"),
            ],
            path: "Benchmarks/RedactRewrite",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]),
        .executableTarget(
            name: "Sweep",
            dependencies: [
                "BenchSupport",
                .product(name: "BLETrace", package: "bletrace"),
                .product(name: "Benchmark", package: "package-benchmark"),
            ],
            path: "Benchmarks/Sweep",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]),
    ]
)
