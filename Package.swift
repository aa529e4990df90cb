// swift-tools-version: 6.1
// bletrace: what really happened in a Bluetooth LE HCI trace, and whether an app handles it right.
import PackageDescription

let package = Package(
    name: "bletrace",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "bletrace", targets: ["bletrace"]),
        .library(name: "BLETrace", targets: ["BLETrace"]),
        // CoreBluetooth's API alone, for an app's Bluetooth layer built on Linux.
        .library(name: "BLETraceCoreBluetooth", targets: ["BLETraceCoreBluetooth"]),
        .library(name: "Reports", targets: ["Reports"]),
        // For a user's tests: replay a capture into the app, compare with golden flows.
        .library(name: "BLETraceTesting", targets: ["BLETraceTesting"]),
        // The whole command line, for a team's own executable with its apps registered.
        .library(name: "BletraceCLI", targets: ["BletraceCLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        // `swift package generate-documentation` (make docs): DocC pages from the comments.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // Android bug report zips (Sources/TraceFiles/Containers).
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.20"),
        // AES for decrypting over-the-air captures with a known key (`--ltk`, Sources/LinkLayer);
        // also what the porting guide's code uses for CryptoKit.
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        // For the porting guide's code only (Tests/PortingGuideTests, Formats/porting.md): what
        // iOS code uses for Combine and os.Logger where Apple's are missing. Test-only, so a
        // package that depends on bletrace does not fetch them.
        .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // Inline snapshots of text reports (`bletrace diagnose`'s list): test-only.
        .package(url: "https://github.com/pointfreeco/swift-snapshot-testing", from: "1.19.7"),
    ],
    targets: [
        // System libraries (Debian: libpcap-dev, libbluetooth-dev).
        .systemLibrary(
            name: "CPcap", pkgConfig: "libpcap",
            providers: [.apt(["libpcap-dev"]), .brew(["libpcap"])]),
        .systemLibrary(
            name: "CBlueZ", pkgConfig: "bluez",
            providers: [.apt(["libbluetooth-dev"])]),
        // zlib (Debian: zlib1g-dev): gzip members, .tar.gz and the btsnooz summary of a bug report.
        .systemLibrary(
            name: "CInflate", pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]),

        // The pipeline, bottom to top. Dependencies point down, never up.
        .target(name: "Wire"),
        .target(
            name: "TraceFiles",
            dependencies: [
                "Wire", "CPcap", "CInflate",
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
                // libbluetooth serves live capture only, which needs Linux: the managers and the
                // replay build without it elsewhere.
                .target(name: "CBlueZ", condition: .when(platforms: [.linux])),
                .product(name: "SystemPackage", package: "swift-system"),
            ]),
        .target(name: "HCI", dependencies: ["Wire"]),
        .target(name: "ATT", dependencies: ["Wire"]),
        // Over-the-air captures (pcap link types 251, 256, 272): sniffer headers, link-layer
        // PDUs, and the data channel up through L2CAP, ATT and SMP with HCI's and ATT's decoders.
        // With a key (`--ltk`), their encrypted data channel decrypted (AES-CCM over swift-crypto's
        // AES block).
        .target(
            name: "LinkLayer",
            dependencies: [
                "Wire", "HCI", "ATT",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]),
        // `bletrace redact`: a capture made safe to share (addresses replaced, keys zeroed, names
        // and values on request), record by record; and the count of the secrets a capture holds.
        .target(
            name: "Redact",
            dependencies: [
                "Wire", "TraceFiles", "LinkLayer",
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        .target(name: "CoreBluetoothCodes", dependencies: ["Wire", "HCI", "ATT"]),
        // Android's view of the same failures: `BluetoothGatt` statuses, the callback that gets
        // each, bond reasons, from the AOSP Bluetooth module (Formats/android-mapping.md).
        .target(name: "AndroidCodes", dependencies: ["Wire", "HCI", "ATT"]),
        // `bletrace explain`: a code or a pasted log line read on both platforms, with no capture.
        .target(name: "CodeExplainer", dependencies: ["Wire", "HCI", "ATT", "CoreBluetoothCodes", "AndroidCodes"]),
        .target(
            name: "Lifecycle",
            // LinkLayer: an over-the-air capture read as this host's HCI would have shown it.
            dependencies: ["Wire", "HCI", "ATT", "CoreBluetoothCodes", "AndroidCodes", "TraceFiles", "LinkLayer"]),
        .target(name: "BLETraceCoreBluetooth", dependencies: ["Wire", "ATT", "CoreBluetoothCodes"]),
        // The flow: its events, text form, reader, writer, vocabulary, expectations and diff. It
        // knows nothing of captures or the replay; CoreBluetoothCodes names the errors an event
        // carries.
        .target(name: "Flow", dependencies: ["Wire", "CoreBluetoothCodes"]),
        .target(
            name: "Replay",
            dependencies: [
                "Wire", "TraceFiles", "HCI", "ATT", "CoreBluetoothCodes", "Lifecycle", "BLETraceCoreBluetooth", "Flow",
                .product(name: "HeapModule", package: "swift-collections"),
            ]),
        // What people and tools read: the lifecycle story, the JSON documents, the timeline, the
        // error and statistics tables, the diff's reports, decode's lines and its filter language
        // (LinkLayer: the lines of an over-the-air capture). The command line only parses,
        // checks and prints.
        .target(
            name: "Reports",
            dependencies: [
                "Wire", "TraceFiles", "HCI", "ATT", "LinkLayer", "CoreBluetoothCodes", "AndroidCodes", "CodeExplainer",
                "Lifecycle", "Flow",
            ]),
        .target(
            name: "BLETraceTesting",
            dependencies: ["Replay", "Flow", "BLETraceCoreBluetooth", "CoreBluetoothCodes"]),
        .target(
            name: "BLETrace",
            dependencies: [
                "Wire", "TraceFiles", "HCI", "ATT", "LinkLayer", "CoreBluetoothCodes", "AndroidCodes", "CodeExplainer",
                "Lifecycle",
                "BLETraceCoreBluetooth", "Flow", "Replay", "Reports", "Redact",
            ]),
        // The command line: arguments, files and terminals, and the choice of report; the
        // executable `bletrace` only starts it.
        .target(
            name: "BletraceCLI",
            dependencies: [
                "BLETrace",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                // FilePath: output paths taken apart without Foundation's path methods.
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            plugins: ["GitCommit"]),
        .executableTarget(name: "bletrace", dependencies: ["BletraceCLI"]),
        // Records the git commit for `bletrace --version`.
        .plugin(name: "GitCommit", capability: .buildTool()),

        // One test target per module, plus the command-line tests; TestSupport finds fixtures.
        .target(
            name: "TestSupport",
            dependencies: [
                "TraceFiles", "Wire", "CInflate",  // zlib and ZIPFoundation build the containers of the tests
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ],
            path: "Tests/TestSupport"),
        .testTarget(name: "WireTests", dependencies: ["Wire", "TestSupport"]),
        .testTarget(
            name: "TraceFilesTests",
            dependencies: [
                "TraceFiles", "Wire", "CPcap", "TestSupport",
                .target(name: "CBlueZ", condition: .when(platforms: [.linux])),
            ]),
        .testTarget(name: "HCITests", dependencies: ["HCI", "Wire", "TestSupport"]),
        .testTarget(name: "ATTTests", dependencies: ["ATT", "Wire", "TestSupport"]),
        .testTarget(
            name: "LinkLayerTests",
            dependencies: [
                "LinkLayer", "HCI", "ATT", "Wire", "TraceFiles", "Lifecycle", "Replay", "Flow", "TestSupport",
            ]),
        .testTarget(name: "RedactTests", dependencies: ["Redact", "TraceFiles", "LinkLayer", "Wire", "TestSupport"]),
        .testTarget(name: "CoreBluetoothCodesTests", dependencies: ["CoreBluetoothCodes", "HCI", "ATT"]),
        .testTarget(
            name: "AndroidCodesTests",
            dependencies: ["AndroidCodes", "CodeExplainer", "CoreBluetoothCodes", "HCI", "ATT"]),
        .testTarget(
            name: "LifecycleTests",
            dependencies: [
                "Lifecycle", "Wire", "TraceFiles", "HCI", "ATT", "CoreBluetoothCodes", "Reports", "TestSupport",
            ]),
        .testTarget(name: "BLETraceCoreBluetoothTests", dependencies: ["BLETraceCoreBluetooth", "Wire"]),
        // The "after" code of Formats/porting.md, compiled and run on Linux.
        .testTarget(
            name: "PortingGuideTests",
            dependencies: [
                "BLETraceCoreBluetooth",
                .product(name: "OpenCombine", package: "OpenCombine"),
                .product(name: "OpenCombineDispatch", package: "OpenCombine"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(name: "FlowTests", dependencies: ["Flow", "TestSupport"]),
        .testTarget(
            name: "ReplayTests",
            dependencies: [
                "Replay", "Flow", "Lifecycle", "BLETraceCoreBluetooth", "CoreBluetoothCodes", "TraceFiles", "HCI",
                "ATT", "Wire",
                "TestSupport",
            ]),
        .testTarget(
            name: "BLETraceTestingTests",
            dependencies: ["BLETraceTesting", "Replay", "Flow", "BLETraceCoreBluetooth", "TestSupport"]),
        .testTarget(
            name: "ReportsTests",
            dependencies: ["Reports", "Lifecycle", "TraceFiles", "HCI", "ATT", "Wire", "BLETrace", "TestSupport"]),
        .testTarget(
            name: "BletraceCLITests",
            dependencies: [
                "bletrace", "BletraceCLI", "Reports", "TraceFiles", "Wire", "TestSupport",
                .target(name: "CBlueZ", condition: .when(platforms: [.linux])),
                .product(name: "InlineSnapshotTesting", package: "swift-snapshot-testing"),
            ]),
    ]
)
