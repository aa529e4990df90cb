import Foundation
import TestSupport
import Testing

@testable import BletraceCLI
@testable import Reports

/// `--filter` with Wireshark's field names selects the frames Wireshark's display filter selects,
/// on every bundled capture, for every field and operator: the value compared is one the capture
/// holds (its commonest; for frame.time_relative the middle frame's time), so that each comparison
/// splits the records, and for a field a record can hold several times (btatt.handle,
/// bthci_evt.connection_handle) also a value of the first record that holds several, so that `!=`
/// (all differ), `===` (all equal) and `!==` (any differs) are put to the test where they differ
/// from `==`.
///
/// Wireshark's side is its own filter engine, libwireshark 4.0 (the one tshark -Y uses), through
/// sharkd: one process loads a capture once and answers every filter, where tshark would dissect
/// the capture again for each (thousands of runs). ``sharkdSelectsWhatTsharkYSelects`` checks on
/// a sample that the two are the same.
@Suite struct FilterCrossCheckTests {
    /// The Wireshark fields bletrace's filter accepts that hold a value.
    static let fields = [
        "frame.number", "frame.time_relative", "bthci_cmd.opcode", "bthci_evt.code", "bthci_evt.opcode",
        "bthci_evt.le_meta_subevent", "bthci_evt.status", "bthci_evt.connection_handle", "bthci_evt.reason",
        "bthci_cmd.reason", "bthci_acl.chandle", "btl2cap.cid", "btatt.opcode", "btatt.handle", "btatt.error_code",
        "btsmp.opcode",
    ]
    /// The protocols, tested alone.
    static let layers = ["bthci_cmd", "bthci_evt", "bthci_acl", "btl2cap", "btatt", "btsmp"]
    static let operators = ["==", "!=", ">", "<", ">=", "<=", "===", "!=="]
    /// Wireshark's filters for the frames whose btatt.handle the README says differs.
    static let readmeDifferences = [
        "btatt.characteristic_properties && btatt.opcode != 0x09",
        "(btatt.opcode == 0x0b || btatt.opcode == 0x0d || btatt.opcode == 0x13 || btatt.opcode == 0x1e) && !btatt.request_in_frame",
    ]

    static let captures: [String] = (try? Fixtures.allReadableCaptures()) ?? ["<the captures could not be listed>"]

    /// Every filter of the table for one capture: each field alone and with each operator against
    /// `values[field]`, each layer, and combinations with and, or, not.
    static func filters(_ values: Values) -> [String] {
        var filters = layers
        for field in fields {
            let value = values.commonest[field] ?? "0"
            filters.append(field)
            for op in operators { filters.append("\(field) \(op) \(value)") }
            filters.append("not \(field) == \(value)")
            filters.append("!(\(field) != \(value))")
            if let other = values.ofSeveral[field] {
                for op in operators { filters.append("\(field) \(op) \(other)") }
                filters.append("!(\(field) != \(other))")
            }
        }
        func value(_ field: String) -> String { values.commonest[field] ?? "0" }
        filters += [
            "bthci_acl.chandle == \(value("bthci_acl.chandle")) and btatt.error_code != \(value("btatt.error_code"))",
            "btatt.error_code == \(value("btatt.error_code")) or bthci_evt.reason != 0x13",
            "(bthci_evt || bthci_cmd) && !(bthci_evt.code == 0x0e)",
            "bthci_evt.opcode != \(value("bthci_evt.opcode")) || bthci_acl.chandle >= \(value("bthci_acl.chandle"))",
            "btatt.opcode == \(value("btatt.opcode")) and btatt.handle != \(value("btatt.handle"))",
            "bthci_evt.status != 0 or bthci_evt.connection_handle == \(value("bthci_evt.connection_handle"))",
            "btl2cap and not btatt and not btsmp",
            "btl2cap.cid == 4 && !(btatt.opcode >= 0x12) || btsmp.opcode == \(value("btsmp.opcode"))",
            "frame.time_relative <= \(value("frame.time_relative")) and bthci_evt.status == 0",
        ]
        return filters
    }

    /// The values the filters of one capture compare with, as tshark prints them.
    struct Values {
        /// Each field's commonest value (for frame.time_relative, the middle frame's).
        var commonest: [String: String] = [:]
        /// For a field a record holds several times, the second value of the first such record.
        var ofSeveral: [String: String] = [:]
    }

    /// The values of each field in the capture, as tshark shows them (every occurrence).
    static func commonestValues(_ path: String) throws -> Values {
        let tshark = try #require(which("tshark"), "tshark is installed by `make deps`")
        var arguments = ["-r", path, "-T", "fields", "-E", "separator=|", "-E", "occurrence=a", "-E", "aggregator=,"]
        for field in fields { arguments += ["-e", field] }
        var counts = [String: [Int: Int]]()
        var values = Values()
        var times: [String] = []
        for line in try run(tshark, arguments).stdout.split(separator: "\n") {
            for (field, cell) in zip(fields, line.split(separator: "|", omittingEmptySubsequences: false)) {
                if field == "frame.time_relative" {
                    times.append(String(cell))
                    continue
                }
                let occurrences = cell.split(separator: ",").compactMap { TsharkCrossCheckTests.number(String($0)) }
                if occurrences.count > 1, values.ofSeveral[field] == nil {
                    values.ofSeveral[field] = String(occurrences[1])
                }
                for value in occurrences { counts[field, default: [:]][value, default: 0] += 1 }
            }
        }
        values.commonest = counts.mapValues {
            String($0.max { $0.value != $1.value ? $0.value < $1.value : $0.key > $1.key }!.key)
        }
        if !times.isEmpty { values.commonest["frame.time_relative"] = times[times.count / 2] }
        return values
    }

    /// The frames Wireshark's filter engine selects with each filter, from one sharkd.
    static func wiresharkFrames(_ path: String, _ filters: [String]) throws -> [[Int]] {
        let sharkd = try #require(which("sharkd"), "sharkd comes with tshark (wireshark-common)")
        var requests = [#"{"jsonrpc":"2.0","id":1,"method":"load","params":{"file":\#(jsonString(path))}}"#]
        for (index, filter) in filters.enumerated() {
            requests.append(
                #"{"jsonrpc":"2.0","id":\#(index + 2),"method":"frames","params":{"filter":\#(jsonString(filter))}}"#)
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
        Fixtures.noteSharedSkipped("FilterCrossCheckTests.selectsWhatWiresharkSelects")
        let filters = Self.filters(try Self.commonestValues(path))
        // The README's two differences of btatt.handle: frames where Wireshark decodes an
        // attribute's value as a characteristic declaration because its table of attributes says
        // so (it lists the value handle inside), and responses it pairs with no request. Both are
        // found by Wireshark itself, and left out of the btatt.handle filters only.
        let differences = Self.readmeDifferences
        let theirs = try Self.wiresharkFrames(path, filters + differences)
        let left = Set(theirs.suffix(differences.count).joined())
        let ours = try RecordFilter.frames(in: path, selectedBy: try filters.map(RecordFilter.init(parsing:)))
        var mismatches: [String] = []
        for (filter, (their, our)) in zip(filters, zip(theirs, ours)) {
            let (their, our) =
                filter.contains("btatt.handle")
                ? (their.filter { !left.contains($0) }, our.filter { !left.contains($0) }) : (their, our)
            guard their != our else { continue }
            let missing = Set(their).subtracting(our).sorted()
            let extra = Set(our).subtracting(their).sorted()
            mismatches.append(
                "\(filter): Wireshark \(their.count), bletrace \(our.count); only Wireshark \(missing.prefix(5)), only bletrace \(extra.prefix(5))"
            )
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
        var filters = Self.layers
        for (index, field) in Self.fields.enumerated() {
            filters.append("\(field) \(Self.operators[index % Self.operators.count]) \(values.commonest[field] ?? "0")")
        }
        let fromSharkd = try Self.wiresharkFrames(path, filters)
        for (filter, expected) in zip(filters, fromSharkd) {
            let result = try run(tshark, ["-r", path, "-Y", filter, "-T", "fields", "-e", "frame.number"])
            #expect(result.stdout.split(separator: "\n").compactMap { Int($0) } == expected, "\(filter)")
        }
    }

    /// frame.time_relative reads a time as Wireshark does: to the nanosecond, further digits only
    /// zeros; tshark refuses the others, and so does bletrace.
    @Test(arguments: ["0.000105", "0.000105000000", "-0.5", "12", "0.0001050001", "0x1", "1.05e-4", ".5", "1."])
    func aTimeIsReadAsWiresharkReadsIt(_ time: String) throws {
        let tshark = try #require(which("tshark"), "tshark is installed by `make deps`")
        let path = Fixtures.capture("att-errors.btsnoop")
        let theirs = try run(
            tshark, ["-r", path, "-Y", "frame.time_relative >= \(time)", "-T", "fields", "-e", "frame.number"])
        let accepted = (try? RecordFilter(parsing: "frame.time_relative >= \(time)")) != nil
        if theirs.status == 0 {
            // (1.05e-4 and 1e0 tshark reads as something else than the number they write: bletrace
            // refuses them, and the README says so.)
            guard accepted || time.contains("e") else {
                Issue.record("tshark accepts \(time), bletrace refuses it")
                return
            }
            guard accepted else { return }
            let ours = try RecordFilter.frames(
                in: path, selectedBy: [RecordFilter(parsing: "frame.time_relative >= \(time)")])[0]
            #expect(ours == theirs.stdout.split(separator: "\n").compactMap { Int($0) }, "\(time)")
        } else {
            #expect(!accepted, "tshark refuses \(time), bletrace accepts it")
        }
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
        for name in names {
            #expect((try? RecordFilter(parsing: name)) != nil, "\(name) is listed but refused")
        }
        for field in Self.fields + Self.layers { #expect(names.contains(field), "\(field) is accepted but not listed") }
        // Every Wireshark name listed, so every one accepted, is in the cross-check table.
        let wireshark = names.filter { $0.hasPrefix("bt") || $0.hasPrefix("frame.") }
        #expect(Set(wireshark) == Set(Self.fields + Self.layers), "listed but not cross-checked, or the reverse")
        #expect(wireshark.count == Set(wireshark).count, "a name is listed twice")
    }
}
