import Foundation
import TestSupport
import Testing

/// Other people's captures are read from the team's shared folder, never from the repository
/// (Formats/install.md, "The captures the tests read"): the repository holds none of them, and the count the skip notes give is
/// the folder's.
@Suite struct SharedCapturesTests {
    @Test func theRepositoryHoldsNoPublicCapturesFolder() {
        #expect(
            !FileManager.default.fileExists(
                atPath: Fixtures.packageRoot.appendingPathComponent("Captures").appendingPathComponent("public").path))
    }

    @Test(.sharedCaptures) func theSkipNotesCountTheSharedPublicCapturesTheLoopsRead() throws {
        let shared = try Fixtures.allReadableCaptures().filter { !Fixtures.isOurs($0) }
        #expect(shared.count == Fixtures.publicHCICaptureCount)
        #expect(shared.filter { $0.hasSuffix(".btsnoop") }.count == 20)
    }

    /// No file under `Captures/` has the name of a shared capture, or of a conversion of the
    /// Ubertooth one (`Captures/linklayer/convert.py`, made by the tests into a temporary directory).
    @Test(.sharedCaptures) func noSharedCaptureOrConversionIsInTheRepository() throws {
        let names = Set(Fixtures.sharedCaptures("public").map { ($0 as NSString).lastPathComponent })
            .union([
                "crackle-phdr.pcap", "crackle-ll.pcapng", "crackle-nordic-v1.pcapng", "crackle-nordic-v2.pcap",
                "crackle-nordic-v3.pcap",
            ])
        let root = Fixtures.packageRoot.appendingPathComponent("Captures")
        let ours =
            FileManager.default.enumerator(atPath: root.path)?.compactMap { ($0 as? NSString)?.lastPathComponent } ?? []
        #expect(!ours.isEmpty)
        #expect(Set(ours).isDisjoint(with: names))
        #expect(FileManager.default.fileExists(atPath: Fixtures.crackleConversion("crackle-nordic-v3.pcap")))
    }
}
