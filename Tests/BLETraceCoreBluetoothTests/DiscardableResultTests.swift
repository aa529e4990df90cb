import Foundation
import Testing

/// Objective-C methods imported into Swift are all discardable, so app code calls
/// `peripheral.maximumWriteValueLength(for:)` or `manager.updateValue(...)` as a statement without
/// a warning. Each public method of the stand-in that returns a value is marked so, but for the
/// few that are bletrace's own queries for systems (not in Apple's interface).
@Suite struct DiscardableResultTests {
    /// bletrace's own methods, where ignoring the result would be a mistake worth a warning.
    static let bletracesOwn: Set<String> = [
        "func with", "func peripheral", "func reports", "func identifier", "func address", "func deliverValue",
        "func characteristic", "func call",
        // A system's answer to a timer (and `DispatchQueue.asyncAfter`, whose closure type the
        // scan takes for a result).
        "func asyncAfter",
    ]

    @Test func everyValueReturningMethodOfApplesInterfaceIsDiscardable() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Sources/BLETraceCoreBluetooth").standardizedFileURL
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }
        #expect(files.count > 20)
        var checked = 0
        var missing: [String] = []
        for file in files {
            let lines = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8).components(
                separatedBy: "\n")
            for (index, line) in lines.enumerated() {
                let text = line.trimmingCharacters(in: .whitespaces)
                guard text.hasPrefix("public ") || text.hasPrefix("open ") else { continue }
                guard let funcRange = text.range(of: "func "), text.contains(") -> ") || text.contains(") throws -> ")
                else { continue }
                let name = "func " + text[funcRange.upperBound...].prefix { $0.isLetter || $0.isNumber }
                guard !Self.bletracesOwn.contains(name) else { continue }
                checked += 1
                let before = lines[..<index].reversed().map { $0.trimmingCharacters(in: .whitespaces) }
                    .prefix { $0.hasPrefix("@") || $0.hasPrefix("///") }
                if !before.contains("@discardableResult") { missing.append("\(file):\(index + 1) \(name)") }
            }
        }
        #expect(checked >= 9, "the scan found the methods it should (\(checked))")
        #expect(missing.isEmpty, "not @discardableResult: \(missing)")
    }
}
