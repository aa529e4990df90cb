import Reports
import TestSupport
import Testing
import Wire

@testable import Lifecycle

/// `database-changed-without-service-changed` (Formats/diagnose.md) on the Bumble capture made for
/// it, `bonded-database-changed` (Captures/README.md), and on no other capture. The records the
/// finding must name are found from the capture's bytes.
@Suite struct DatabaseChangedTests {
    static let name = "bonded-database-changed.btsnoop"

    /// ATT PDUs sent (`.sent`) or received with this opcode (L2CAP channel 4; the opcode after
    /// the ACL and L2CAP headers).
    static func att(_ records: [OwnedRecord], opcode: UInt8, _ direction: Direction) -> [OwnedRecord] {
        records.filter { record in
            record.kind == .acl && record.direction == direction && record.bytes.count >= 9
                && UInt16(record.bytes[6]) | UInt16(record.bytes[7]) << 8 == 0x0004 && record.bytes[8] == opcode
        }
    }

    @Test func aBondedPeersDatabaseThatChangedWithNoServiceChangedIsFound() throws {
        let records = try DiagnoseCaptureTests.records(Self.name)
        let findings = try diagnose(path: Fixtures.capture(Self.name)).of(.databaseChanged)
        #expect(findings.count == 1)
        let finding = try #require(findings.first)
        // No Service Changed in the capture: no indication at all.
        #expect(Self.att(records, opcode: 0x1D, .received).isEmpty)
        // Each discovery from 0x0001 ends with Attribute Not Found for Read By Group Type (0x10).
        let ends = Self.att(records, opcode: 0x01, .received).filter { $0.bytes[9] == 0x10 && $0.bytes[12] == 0x0A }
        #expect(ends.count == 2)
        #expect(finding.record == ends.last?.index)
        #expect(finding.evidence.contains(ends[0].index))
        // The second connection was encrypted with the bond: its Encryption Change is evidence.
        let encryptions = DiagnoseCaptureTests.events(records, code: 0x08)
        #expect(encryptions.count == 2)
        #expect(finding.evidence.contains(encryptions[1].index))
        #expect(finding.connection == 1)
        #expect(finding.summary.contains("180D at 0x000e-0x0015 gone"), "\(finding.summary)")
        #expect(finding.summary.contains("AAA0 moved from 0x0016-0x0018 to 0x0011-0x0013"))
        #expect(finding.summary.contains("AAB0 new at 0x000e-0x0010"))
        #expect(finding.summary.contains("encrypted with the bond (frame \(encryptions[1].index + 1))"))
        #expect(finding.coreBluetooth == Finding.staleCacheOnIOS)
        #expect(finding.severity == .warning)
    }

    @Test(arguments: ((try? Fixtures.allReadableCaptures()) ?? []) + Fixtures.sharedCaptures("field"))
    func noOtherCaptureHasIt(_ path: String) throws {
        Fixtures.noteSharedSkipped("DatabaseChangedTests.noOtherCaptureHasIt")
        guard !path.hasSuffix("/" + Self.name) else { return }
        #expect(try diagnose(path: path).of(.databaseChanged).isEmpty)
    }

    /// The analysis keeps the two databases apart: one entry per database, each with the
    /// connection that showed it (they were merged into one, Heart Rate and 0xAAB0 both at
    /// 0x000E).
    @Test func theGATTReportHasEachDatabaseOnce() throws {
        let gatt = try TraceAnalysis(path: Fixtures.capture(Self.name)).gatt
        #expect(gatt.map(\.connections) == [[0], [1]])
        #expect(gatt[0].database.services.map { "\($0.uuid)" } == ["1800", "1801", "180D", "AAA0"])
        #expect(gatt[1].database.services.map { "\($0.uuid)" } == ["1800", "1801", "AAB0", "AAA0"])
        #expect(gatt[1].database.services.last?.handle == 0x0011)
    }
}
