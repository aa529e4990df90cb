import Foundation
import TestSupport
import Testing

@testable import BletraceCLI

/// `--filter` with Wireshark's field names selects the frames Wireshark's display filter selects,
/// on every bundled capture, for every field and operator: the value compared is one the capture
/// holds (its commonest), so that each comparison splits the records.
///
/// Wireshark's side is its own filter engine, libwireshark 4.0 (the one tshark -Y uses), through
/// sharkd: one process loads a capture once and answers every filter, where tshark would dissect
/// the capture again for each (thousands of runs). ``sharkdSelectsWhatTsharkYSelects`` checks on
/// a sample that the two are the same.
@Suite struct FilterCrossCheckTests {
    /// The Wireshark fields bletrace's filter accepts that hold a number.
    static let fields = [
        "frame.number", "bthci_cmd.opcode", "bthci_evt.code", "bthci_evt.opcode", "bthci_evt.le_meta_subevent",
        "bthci_evt.reason", "bthci_cmd.reason", "bthci_acl.chandle", "btatt.error_code",
    ]
    /// The protocols, tested alone.
    static let layers = ["bthci_cmd", "bthci_evt", "bthci_acl"]
    /// Wireshark's names refused, with the bletrace field nearest to each (their values differ).
    static let refused = [
        ("bthci_evt.status", "hci.status"), ("bthci_evt.connection_handle", "hci.handle"), ("btatt.handle", "att.handle"),
        ("btatt.opcode", "att.opcode"), ("btl2cap.cid", "l2cap.cid"), ("btsmp.opcode", "smp.opcode"), ("btatt", "att"),
    ]
    static let operators = ["==", "!=", ">", "<", ">=", "<=", "===", "!=="]

    static let captures: [String] = (try? Fixtures.allReadableCaptures()) ?? ["<the captures could not be listed>"]

    /// Every filter of the table for one capture: each field alone and with each operator against
    /// `values[field]`, each layer, and combinations with and, or, not.
    static func filters(_ values: [String: Int]) -> [String] {
        var filters = layers
        for field in fields {
            let value = values[field] ?? 0
            filters.append(field)
            for op in operators { filters.append("\(field) \(op) \(value)") }
            filters.append("not \(field) == \(value)")
            filters.append("!(\(field) != \(value))")
        }
        let handle = values["bthci_acl.chandle"] ?? 0
        let error = values["btatt.error_code"] ?? 0
        filters += [
            "bthci_acl.chandle == \(handle) and btatt.error_code != \(error)",
            "btatt.error_code == \(error) or bthci_evt.reason != 0x13",
            "(bthci_evt || bthci_cmd) && !(bthci_evt.code == 0x0e)",
            "bthci_evt.opcode != \(values["bthci_evt.opcode"] ?? 0) || bthci_acl.chandle >= \(handle)",
        ]
        return filters
    }

    /// The commonest value of each field in the capture, as tshark shows them (every occurrence).
    static func commonestValues(_ path: String) throws -> [String: Int] {
        let tshark = try #require(which("tshark"), "tshark is installed by `make deps`")
        var arguments = ["-r", path, "-T", "fields", "-E", "separator=|", "-E", "occurrence=a", "-E", "aggregator=,"]
        for field in fields { arguments += ["-e", field] }
        var counts = [String: [Int: Int]]()
        for line in try run(tshark, arguments).stdout.split(separator: "\n") {
            for (field, cell) in zip(fields, line.split(separator: "|", omittingEmptySubsequences: false)) {
                for text in cell.split(separator: ",") {
                    guard let value = TsharkCrossCheckTests.number(String(text)) else { continue }
                    counts[field, default: [:]][value, default: 0] += 1
                }
            }
        }
        return counts.mapValues { $0.max { $0.value != $1.value ? $0.value < $1.value : $0.key > $1.key }!.key }
    }

    /// The frames Wireshark's filter engine selects with each filter, from one sharkd.
    static func wiresharkFrames(_ path: String, _ filters: [String]) throws -> [[Int]] {
        let sharkd = try #require(which("sharkd"), "sharkd comes with tshark (wireshark-common)")
        var requests = [#"{"jsonrpc":"2.0","id":1,"method":"load","params":{"file":\#(jsonString(path))}}"#]
        for (index, filter) in filters.enumerated() {
            requests.append(#"{"jsonrpc":"2.0","id":\#(index + 2),"method":"frames","params":{"filter":\#(jsonString(filter))}}"#)
        }
        let result = try run(sharkd, ["-"], stdin: requests.joined(separator: "\n") + "\n")
        var frames = [[Int]?](repeating: nil, count: filters.count)
        for line in result.stdout.split(separator: "\n") where line.hasPrefix("{") {
            let reply = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            guard let id = reply["id"] as? Int, id > 1 else {
                #expect(reply["error"] == nil, "sharkd could not load \(path): \(line)")
                continue
            }
            let list = try #require(reply["result"] as? [[String: Any]], "sharkd refused \(filters[id - 2]): \(line)")
            frames[id - 2] = list.compactMap { $0["num"] as? Int }
        }
        return try frames.enumerated().map { try #require($0.element, "no answer for \(filters[$0.offset])") }
    }

    static func jsonString(_ text: String) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: text, options: .fragmentsAllowed), as: UTF8.self)
    }

    @Test(arguments: captures)
    func selectsWhatWiresharkSelects(_ path: String) throws {
        let filters = Self.filters(try Self.commonestValues(path))
        let theirs = try Self.wiresharkFrames(path, filters)
        let ours = try RecordFilter.frames(in: path, selectedBy: try filters.map(RecordFilter.init(parsing:)))
        var mismatches: [String] = []
        for (filter, (their, our)) in zip(filters, zip(theirs, ours)) where their != our {
            let missing = Set(their).subtracting(our).sorted()
            let extra = Set(our).subtracting(their).sorted()
            mismatches.append(
                "\(filter): Wireshark \(their.count), bletrace \(our.count); only Wireshark \(missing.prefix(5)), only bletrace \(extra.prefix(5))")
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) filters differ:\n\(mismatches.joined(separator: "\n"))")
        // The table is not vacuous: the capture's records are selected by some filters, not all.
        #expect(ours.contains { !$0.isEmpty })
    }

    /// sharkd and `tshark -Y` are the same engine: checked on the first capture of the table that
    /// holds ATT traffic, one filter per field (rotating through the operators).
    @Test func sharkdSelectsWhatTsharkYSelects() throws {
        let tshark = try #require(which("tshark"), "tshark is installed by `make deps`")
        let path = Fixtures.capture("att-errors.btsnoop")
        let values = try Self.commonestValues(path)
        var filters = Self.layers.prefix(2).map { $0 }
        for (index, field) in Self.fields.enumerated() {
            filters.append("\(field) \(Self.operators[index % Self.operators.count]) \(values[field] ?? 0)")
        }
        let fromSharkd = try Self.wiresharkFrames(path, filters)
        for (filter, expected) in zip(filters, fromSharkd) {
            let result = try run(tshark, ["-r", path, "-Y", filter, "-T", "fields", "-e", "frame.number"])
            #expect(result.stdout.split(separator: "\n").compactMap { Int($0) } == expected, "\(filter)")
        }
    }

    @Test(arguments: refused)
    func aWiresharkFieldWhoseValuesDifferIsRefusedWithTheNearestField(_ name: String, _ nearest: String) throws {
        let result = try bletrace("decode", Fixtures.capture("att-errors.btsnoop"), "--filter", "\(name) == 1")
        #expect(result.status == 2)
        #expect(result.stderr.contains("\(name) is not supported"), "\(result.stderr)")
        #expect(result.stderr.contains("the nearest field is \(nearest)"), "\(result.stderr)")
        #expect((try? RecordFilter(parsing: "\(nearest) == 1")) != nil)
    }

    /// The message for an unknown field names every field the filter accepts, and each is
    /// accepted.
    @Test func theUnknownFieldMessageNamesExactlyTheAcceptedFields() throws {
        let result = try bletrace("decode", Fixtures.capture("att-errors.btsnoop"), "--filter", "bthci_evt.nonsense")
        #expect(result.status == 2)
        let list = try #require(result.stderr.split(separator: "\n").first { $0.contains("unknown field") })
        let names = try #require(list.range(of: "fields: ").map { list[$0.upperBound...] })
            .replacingOccurrences(of: "Wireshark's", with: "").split(whereSeparator: { $0 == "," || $0 == ";" })
            .map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(names.count > 30)
        for (name, _) in Self.refused { #expect(!names.contains(name)) }
        for name in names {
            #expect((try? RecordFilter(parsing: name)) != nil, "\(name) is listed but refused")
        }
        for field in Self.fields + Self.layers { #expect(names.contains(field), "\(field) is accepted but not listed") }
    }
}
