import Foundation
import TestSupport
import Testing

/// A second independent decoder: BlueZ's btmon (5.66 in Debian 12, installed by `make deps`)
/// reads every btsnoop capture here, and each record it prints must agree with bletrace on
/// direction, kind, HCI command opcode and event code (its header lines carry the record number:
/// `< HCI Command: LE Create Connection (0x08|0x000d) plen 25  #29 1.033204`).
///
/// btmon 5.66 crashes on captures with connections when the host has no Bluetooth adapter (fixed
/// in 5.67); where it does, the records it printed before the crash are compared, and the last
/// one, which the crash may have cut, is left out. On this project's captures it reads two whole
/// (scan, cancelled-connect) and a prefix of most others.
@Suite struct BtmonCrossCheckTests {
    static let captures: [String] = ((try? Fixtures.allReadableCaptures()) ?? ["<the captures could not be listed>"])
        .filter { $0.hasSuffix(".btsnoop") }

    struct Header: Equatable {
        var direction: String
        var kind: String
        var code: Int?
    }

    /// Parses btmon's record header lines into record number → header.
    static func headers(_ output: String) -> [Int: Header] {
        var result: [Int: Header] = [:]
        for line in output.split(separator: "\n") where line.hasPrefix("< ") || line.hasPrefix("> ") {
            guard let hash = line.lastIndex(of: "#") else { continue }
            let number = line[line.index(after: hash)...].prefix { $0.isNumber }
            guard let index = Int(number) else { continue }
            let direction = line.hasPrefix("<") ? "sent" : "received"
            let body = line.dropFirst(2)
            var header: Header
            if body.hasPrefix("HCI Command:") {
                // (0xOGF|0xOCF)
                header = Header(direction: direction, kind: "command")
                if let open = body.range(of: "(0x"), let bar = body[open.upperBound...].firstIndex(of: "|"),
                    let ogf = Int(body[open.upperBound..<bar], radix: 16)
                {
                    let ocfText = body[body.index(bar, offsetBy: 3)...].prefix { $0.isHexDigit }
                    header.code = Int(ocfText, radix: 16).map { ogf << 10 | $0 }
                }
            } else if body.hasPrefix("HCI Event:") {
                header = Header(direction: direction, kind: "event")
                if let open = body.range(of: "(0x") {
                    header.code = Int(body[open.upperBound...].prefix { $0.isHexDigit }, radix: 16)
                }
            } else if body.hasPrefix("ACL Data") {
                header = Header(direction: direction, kind: "acl")
            } else if body.hasPrefix("SCO Data") {
                header = Header(direction: direction, kind: "sco")
            } else if body.hasPrefix("ISO Data") {
                header = Header(direction: direction, kind: "iso")
            } else {
                continue
            }
            result[index] = header
        }
        return result
    }

    @Test(arguments: captures)
    func agreesWithBtmonOnEveryRecordItPrints(_ path: String) throws {
        Fixtures.noteSharedSkipped("BtmonCrossCheckTests.agreesWithBtmonOnEveryRecordItPrints", count: 20)
        let btmon = try #require(which("btmon"), "btmon is installed by `make deps` (Debian package bluez)")
        let run = try TestSupport.run("/usr/bin/timeout", ["60", btmon, "-r", path])
        var theirs = Self.headers(run.stdout)
        if run.status != 0, let last = theirs.keys.max() { theirs[last] = nil }
        let ours = try jsonLines(try bletrace("decode", path, "--format", "jsonl").stdout)
        var compared = 0
        var mismatches: [String] = []
        for (number, header) in theirs.sorted(by: { $0.key < $1.key }) {
            guard number >= 1, number <= ours.count else {
                mismatches.append("btmon record #\(number) is past our \(ours.count) records")
                continue
            }
            let record = ours[number - 1]
            let hci = record["hci"] as? [String: Any] ?? [:]
            var mine = Header(direction: record["direction"] as? String ?? "", kind: record["kind"] as? String ?? "")
            if mine.kind == "command" { mine.code = hci["opcode"] as? Int }
            if mine.kind == "event" { mine.code = hci["event"] as? Int }
            if mine != header, mismatches.count < 10 {
                mismatches.append("record #\(number): btmon \(header), bletrace \(mine)")
            }
            compared += 1
        }
        // (On captures that start with ATT traffic, btmon crashes on the first record.)
        #expect(compared > 0 || run.status != 0, "btmon printed no record of \(path)")
        #expect(mismatches.isEmpty, "\(mismatches.joined(separator: "\n"))")
        if run.status == 0 { #expect(compared == ours.count) }
    }
}
