import ATT
import HCI
import Lifecycle
import LinkLayer
import TestSupport
import Testing
import TraceFiles
import Wire

/// A key refresh on an encrypted link (Core 6.0, Vol 6, Part B, §5.1.3.2): the encryption pause
/// (LL_PAUSE_ENC_REQ, the peripheral's LL_PAUSE_ENC_RSP encrypted, the central's not), then a new
/// LL_ENC_REQ/LL_ENC_RSP and LL_START_ENC_REQ: a new session key and IV, packet counters from 0.
/// Captures/linklayer/synthetic.py writes the central host's HCI (`key-refresh.btsnoop`) and
/// air_from_hci.py its air twin, encrypted with Python's `cryptography` AES-CCM.
@Suite struct KeyRefreshTests {
    /// The LTK 0x00112233445566778899AABBCCDDEEFF, least significant octet first.
    static let ltk: [UInt8] = packet("00112233445566778899AABBCCDDEEFF").reversed()
    static let air = Fixtures.capture("linklayer/synthetic/key-refresh.air.pcap")
    static let hci = Fixtures.capture("linklayer/synthetic/key-refresh.btsnoop")

    struct Decoded {
        var control: String?
        var value: String?
        var encrypted: Bool
        var decrypted: Bool
        var micFailed: Bool
    }

    static func decode(keys: [[UInt8]]) throws -> [Decoded] {
        let reader = try CaptureReader(path: air, linkLayer: true)
        var decoder = LinkLayerDecoder(linkType: 256, keys: keys)
        var out: [Decoded] = []
        while let record = try reader.next() {
            let decoded = decoder.decode(record.bytes, time: record.timestamp, index: record.index)
            var item = Decoded(
                encrypted: decoded.isEncrypted, decrypted: decoded.decrypted, micFailed: decoded.micFailed)
            item.control = decoded.control.map { "\($0.opcode)" }
            if case .readResponse(let value)? = decoded.att { item.value = String(decoding: value, as: UTF8.self) }
            out.append(item)
        }
        return out
    }

    @Test func decryptionGoesOnAcrossTheRefresh() throws {
        let records = try Self.decode(keys: [Self.ltk])
        #expect(records.allSatisfy { !$0.encrypted && !$0.micFailed })
        // Both reads' responses, before and after the refresh, decrypted and decoded.
        #expect(records.compactMap(\.value) == ["before refresh", "after refresh"])
        let controls = records.compactMap(\.control)
        #expect(
            controls == [
                "LL_ENC_REQ", "LL_ENC_RSP", "LL_START_ENC_REQ", "LL_START_ENC_RSP", "LL_START_ENC_RSP",
                "LL_PAUSE_ENC_REQ", "LL_PAUSE_ENC_RSP", "LL_PAUSE_ENC_RSP",
                "LL_ENC_REQ", "LL_ENC_RSP", "LL_START_ENC_REQ", "LL_START_ENC_RSP", "LL_START_ENC_RSP",
                "LL_TERMINATE_IND",
            ])
        // Decrypted: the PDUs with a payload between the first LL_START_ENC_REQ and the pause
        // (the two LL_START_ENC_RSPs, the read and its response, LL_PAUSE_ENC_REQ and the
        // peripheral's LL_PAUSE_ENC_RSP), and after the second (LL_START_ENC_RSPs, the read and
        // its response, LL_TERMINATE_IND).
        #expect(records.filter(\.decrypted).count == 6 + 5)
    }

    /// Without the key, the refresh's unencrypted PDUs are still read: the central's
    /// LL_PAUSE_ENC_RSP (one octet, shorter than any ciphertext) ends the encryption, so the new
    /// LL_ENC_REQ, LL_ENC_RSP and LL_START_ENC_REQ are decoded; what was encrypted stays so.
    @Test func withoutTheKeyTheRefreshIsSeen() throws {
        let records = try Self.decode(keys: [])
        #expect(
            records.compactMap(\.control) == [
                "LL_ENC_REQ", "LL_ENC_RSP", "LL_START_ENC_REQ", "LL_PAUSE_ENC_RSP", "LL_ENC_REQ", "LL_ENC_RSP",
                "LL_START_ENC_REQ",
            ])
        #expect(records.filter(\.encrypted).count == 6 + 5)
        #expect(records.allSatisfy { !$0.micFailed && !$0.decrypted })
    }

    /// The analyses read the air as the host's HCI: the same connection, with its encryption
    /// change and its key refresh (Encryption Key Refresh Complete, made at the peripheral's
    /// first PDU under the new key), both reads and the local disconnection.
    @Test func theLifecycleIsTheHCIs() throws {
        let hci = try TraceAnalysis(path: Self.hci)
        let air = try TraceAnalysis(path: Self.air, air: AirOptions(keys: [Self.ltk]))
        #expect(hci.fault == nil && air.fault == nil)
        let expected = hci.lifecycle.connections.map(AirTwinTests.Answers.init)
        #expect(air.lifecycle.connections.map(AirTwinTests.Answers.init) == expected)
        #expect(expected.first?.text.contains("change keyRefresh") == true)
        #expect(expected.first?.text.contains { $0.hasPrefix("change encryption") } == true)
        #expect(hci.lifecycle.connections.first?.att.reads == 2)
        let link = try #require(air.lifecycle.connections.first?.air)
        #expect(link.decryptedPackets == 11 && link.undecryptedPackets == 0 && link.micFailures == 0)

        var refreshes = 0
        let reader = try AnalysisReader(path: Self.air, air: AirOptions(keys: [Self.ltk]))
        while let record = try reader.next() {
            if case .encryptionKeyRefreshComplete(let status, _)? = try? HCIEventParameters.decode(record.bytes),
                status == .success
            {
                refreshes += 1
            }
        }
        #expect(refreshes == 1)
    }
}
