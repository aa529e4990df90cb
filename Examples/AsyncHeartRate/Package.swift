// swift-tools-version: 6.1
// A modern app's Bluetooth layer, written with Swift concurrency over CoreBluetooth (an async API
// on checked continuations and AsyncStream, a @MainActor model, reconnection with a timeout on an
// injected clock, state restoration), tested on Linux against captures with bletrace, which it
// depends on by path as a team's package would by URL.
import PackageDescription

let package = Package(
    name: "AsyncHeartRate",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "bletrace", path: "../..")
    ],
    targets: [
        // The app's Bluetooth layer. On iOS it imports CoreBluetooth; elsewhere bletrace's stand-in.
        .target(
            name: "AsyncHeartRateKit",
            dependencies: [.product(name: "BLETraceCoreBluetooth", package: "bletrace")]),
        // The layer as an app a replay launches (test and command-line use only).
        .target(
            name: "AsyncHeartRateReplay",
            dependencies: ["AsyncHeartRateKit", .product(name: "BLETrace", package: "bletrace")]),
        // The team's own bletrace: every subcommand, with `replay --app AsyncHeartRate`.
        .executableTarget(
            name: "async-heart-rate-bletrace",
            dependencies: ["AsyncHeartRateReplay", .product(name: "BletraceCLI", package: "bletrace")]),
        .testTarget(
            name: "AsyncHeartRateKitTests",
            dependencies: [
                "AsyncHeartRateKit", "AsyncHeartRateReplay", "async-heart-rate-bletrace",
                .product(name: "BLETraceTesting", package: "bletrace"),
            ]),
    ]
)
