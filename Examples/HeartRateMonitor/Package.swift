// swift-tools-version: 6.1
// An app's Bluetooth layer, written for CoreBluetooth, tested on Linux against real captures with
// bletrace (which it depends on by path, as a team's package would by URL).
import PackageDescription

let package = Package(
    name: "HeartRateMonitor",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "bletrace", path: "../..")
    ],
    targets: [
        // The app's Bluetooth layer. On iOS it imports CoreBluetooth; elsewhere bletrace's stand-in.
        .target(
            name: "HeartRateKit",
            dependencies: [.product(name: "BLETraceCoreBluetooth", package: "bletrace")]),
        // The layer as an app a replay launches (test and command-line use only).
        .target(
            name: "HeartRateReplay",
            dependencies: ["HeartRateKit", .product(name: "BLETrace", package: "bletrace")]),
        // The team's own bletrace: every subcommand, with `replay --app HeartRateMonitor`.
        .executableTarget(
            name: "heart-rate-bletrace",
            dependencies: ["HeartRateReplay", .product(name: "BletraceCLI", package: "bletrace")]),
        .testTarget(
            name: "HeartRateKitTests",
            dependencies: [
                "HeartRateKit", "HeartRateReplay", "heart-rate-bletrace",
                .product(name: "BLETraceTesting", package: "bletrace"),
            ],
            exclude: ["Fixtures"]),
    ]
)
