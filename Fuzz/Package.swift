// swift-tools-version: 6.1
// libFuzzer targets for every entry point of bletrace that reads outside input. Built
// by `make fuzz` with `swift build -c release --sanitize=fuzzer --sanitize=address` and
// `-enable-testing` (the H4 stream decoder is internal to TraceFiles); Fuzz/README.md says how.
import PackageDescription

let fuzzer: [SwiftSetting] = [.unsafeFlags(["-parse-as-library"])]
func target(_ name: String, _ dependencies: [Target.Dependency] = []) -> Target {
    .executableTarget(
        name: name, dependencies: ["FuzzSupport", .product(name: "BLETrace", package: "bletrace")] + dependencies,
        swiftSettings: fuzzer)
}

let package = Package(
    name: "bletrace-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "bletrace", path: "..")],
    targets: [
        .target(name: "FuzzSupport", dependencies: [.product(name: "BLETrace", package: "bletrace")]),
        target("fuzz-btsnoop"),
        target("fuzz-pcap"),
        target("fuzz-pklg"),
        target("fuzz-h4-stream"),
        target("fuzz-hci"),
        target("fuzz-acl-l2cap-att-smp"),
        target("fuzz-lifecycle"),
        target("fuzz-flow"),
        target("fuzz-replay"),
        target("fuzz-container"),
        target("fuzz-link-layer"),
    ]
)
