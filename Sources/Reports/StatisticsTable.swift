import Lifecycle
import TraceFiles
import Wire

/// The text of `bletrace stats`: the capture's counts, most frequent first in each section.
package struct StatisticsTable {
    package var statistics: TraceStatistics
    /// The capture as the first line names it.
    package var file: String
    package var format: CaptureFormat
    /// Colour for a terminal (the heading bold, errors red while some are unexpected), or plain
    /// text.
    package var style: TextStyle

    package init(_ statistics: TraceStatistics, file: String, format: CaptureFormat, style: TextStyle = .plain) {
        (self.statistics, self.file, self.format, self.style) = (statistics, file, format, style)
    }

    /// The whole table, each line ended by a line feed.
    package var text: String {
        var text = ""
        write { text += $0 + "\n" }
        return text
    }

    /// Gives each line, without its line feed, to `line`.
    package func write(_ line: (String) -> Void) {
        let data = statistics
        line(style.bold("\(file): \(format)"))
        line(
            "\(Wording.count(data.records, "record")), \(Wording.count(data.bytes, "byte")) of packets; \(Wording.count(data.connections, "connection"))"
        )
        line(
            "  "
                + PacketKind.allCases.compactMap { kind in data.kinds["\(kind)"].map { "\($0) \(kind)" } }.joined(
                    separator: ", "))
        func section(_ title: String, _ rows: [TraceStatistics.Count], digits: Int) {
            guard !rows.isEmpty else { return }
            line("")
            line(style.bold(title))
            for row in rows.sorted(by: { $0.count != $1.count ? $0.count > $1.count : $0.code < $1.code }) {
                line("  \(String(row.count).leftPadded(8))  \(hex(row.code, digits: digits))  \(row.name)")
            }
        }
        section("HCI commands", data.hciCommands, digits: 4)
        section("HCI events", data.hciEvents, digits: 2)
        section("LE meta subevents", data.leSubevents, digits: 2)
        section("ATT PDUs", data.attPDUs, digits: 2)
        section("SMP commands", data.smpCommands, digits: 2)
        if !data.errors.isEmpty {
            line("")
            line(style.bold("errors (bletrace errors lists them)"))
            for row in data.errors.sorted(by: { $0.count > $1.count }) {
                let expected = row.expected > 0 ? " (\(row.expected) expected)" : ""
                let text =
                    "  \(String(row.count).leftPadded(8))  \(row.layer.uppercased()) \(hex(row.code, digits: 2))  \(row.name)\(expected)"
                // Red while some are unexpected.
                line(row.expected < row.count ? style.red(text) : text)
            }
        }
        if data.undecodableRecords > 0 || data.lostFragments > 0 {
            line("")
            line(
                "\(Wording.count(data.undecodableRecords, "record")) with a layer that did not decode, \(data.lostFragments) with lost ACL fragments (bletrace decode shows which)"
            )
        }
    }
}

/// The JSON document of `bletrace stats --format json` (Formats/json.md): the statistics and
/// the document's version (the command adds the file).
package struct JSONStatistics: Encodable {
    package var statistics: TraceStatistics

    package init(_ statistics: TraceStatistics) { self.statistics = statistics }

    private enum Key: String, CodingKey { case version }

    package func encode(to encoder: any Encoder) throws {
        try statistics.encode(to: encoder)
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(jsonVersion, forKey: .version)
    }
}
