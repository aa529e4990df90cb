import Foundation
import TestSupport
import Testing
import TraceFiles
import Wire

/// `bletrace redact`, tested as an attacker would read its output: over every capture we have
/// (ours, and the shared public and field ones when the shared folder is there), no key and no
/// original address remain, every analysis tells the same story under the address mapping,
/// redacting again changes nothing but the addresses, and a damaged capture is redacted as far as
/// it reads. Keys and addresses are found in the originals by tshark, an independent decoder, as
/// well as by the manifest's mapping.
@Suite struct RedactCommandTests {
    /// One capture redacted with `--seed 7 --manifest --keep-mapping`.
    struct Redaction: Sendable, CustomTestStringConvertible {
        var original: String
        var redacted: String
        var status: Int32
        var stderr: String
        var manifestText: String
        var manifest: [String: Any] {
            try! JSONSerialization.jsonObject(with: Data(manifestText.utf8)) as! [String: Any]
        }
        /// Original address as bletrace prints it (upper case) → replacement.
        var mapping: [String: String]
        var isAir: Bool

        var testDescription: String { URL(fileURLWithPath: original).lastPathComponent }
        var dropped: Int { (manifest["records"] as? [String: Int])?["dropped"] ?? -1 }
    }

    static let directory: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("bletrace-redact-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    /// Every capture bletrace reads: ours (Captures/ and Captures/linklayer/), and the shared
    /// public and field ones. Files no reader opens (the PPI captures of linklayer/ppi) are left.
    static let captures: [String] = {
        var paths: [String] = []
        let root = Fixtures.packageRoot.appendingPathComponent("Captures")
        let walker = FileManager.default.enumerator(atPath: root.path)
        while let name = walker?.nextObject() as? String {
            if [".btsnoop", ".pcap", ".pcapng", ".pklg"].contains(where: name.hasSuffix) {
                paths.append(root.appendingPathComponent(name).path)
            }
        }
        paths = paths.sorted() + Fixtures.sharedCaptures("public") + Fixtures.sharedCaptures("field")
        return paths.filter { (try? CaptureReader(path: $0, linkLayer: true)) != nil }
    }()

    static let redactions: [Redaction] = captures.enumerated().compactMap { index, path in
        try? redact(path, into: directory.appendingPathComponent("\(index)"), seed: 7)
    }

    static func redact(_ path: String, into folder: URL, seed: Int, extra: [String] = []) throws -> Redaction {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let out = folder.appendingPathComponent(URL(fileURLWithPath: path).lastPathComponent).path
        let manifestPath = out + ".manifest.json"
        let result = try bletrace(
            ["redact", path, "-o", out, "--seed", "\(seed)", "--manifest", manifestPath, "--keep-mapping"] + extra)
        let manifest =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: manifestPath)))
            as! [String: Any]
        var mapping: [String: String] = [:]
        for pair in manifest["mapping"] as? [[String: String]] ?? [] {
            mapping[pair["original"]!] = pair["replacement"]!
        }
        let isAir = (try CaptureReader(path: path, linkLayer: true)).format.linkLayerType != nil
        return Redaction(
            original: path, redacted: out, status: result.status, stderr: result.stderr,
            manifestText: String(decoding: try Fixtures.contents(manifestPath), as: UTF8.self), mapping: mapping,
            isAir: isAir)
    }

    static func records(_ path: String) -> [OwnedRecord] {
        guard let reader = try? CaptureReader(path: path, linkLayer: true) else { return [] }
        var records: [OwnedRecord] = []
        while let record = try? reader.next() { records.append(OwnedRecord(record)) }
        return records
    }

    // MARK: The independent reading: tshark

    static let tshark: String? = which("tshark")

    /// What tshark finds in a capture: the addresses of every layer and the keys and secrets.
    static func tsharkFields(_ path: String) throws -> (addresses: Set<String>, secrets: Set<[UInt8]>) {
        let addressFields = [
            "bthci_cmd.bd_addr", "bthci_evt.bd_addr", "bthci_evt.direct_bd_addr", "btsmp.bd_addr",
            "btle.advertising_address",
            "btle.initiator_address", "btle.scanning_address", "btle.target_address",
        ]
        let secretFields = [
            "btsmp.long_term_key", "btsmp.id_resolving_key", "btsmp.signature_key", "btsmp.cfm_value",
            "btsmp.random_value",
            "btsmp.dhkey_check", "btsmp.public_key_x", "btsmp.public_key_y", "bthci_cmd.link_key", "bthci_evt.link_key",
            "bthci_cmd.le_long_term_key", "bthci_cmd.le_peer_irk", "bthci_cmd.le_local_irk",
            "bthci_cmd.le_remote_p_256_public_key",
            "bthci_evt.le_local_p_256_public_key", "bthci_evt.dhkey", "bthci_cmd.le_random_number",
            "bthci_evt.le_random_number",
        ]
        let fields = addressFields + secretFields
        let result = try run(
            tshark!,
            ["-r", path, "-T", "fields", "-E", "occurrence=a", "-E", "separator=|", "-E", "aggregator=|"]
                + fields.flatMap { ["-e", $0] })
        var addresses: Set<String> = []
        var secrets: Set<[UInt8]> = []
        for line in result.stdout.split(separator: "\n") {
            for value in line.split(separator: "|", omittingEmptySubsequences: true) {
                let text = value.trimmingCharacters(in: .whitespaces)
                if text.count == 17, BluetoothAddress(text) != nil {
                    addresses.insert(text.uppercased())
                } else {
                    let hex = text.replacingOccurrences(of: ":", with: "").replacingOccurrences(of: "0x", with: "")
                    guard hex.count >= 16, hex.count % 2 == 0, hex.allSatisfy(\.isHexDigit) else { continue }
                    let bytes = stride(from: 0, to: hex.count, by: 2).map {
                        UInt8(
                            hex[hex.index(hex.startIndex, offsetBy: $0)..<hex.index(hex.startIndex, offsetBy: $0 + 2)],
                            radix: 16)!
                    }
                    if bytes.contains(where: { $0 != 0 }) { secrets.insert(bytes) }
                }
            }
        }
        return (addresses, secrets)
    }

    // MARK: Tests

    @Test func everyCaptureIsWrittenWholeOrItsDropsAreSaid() throws {
        Fixtures.noteSharedSkipped("everyCaptureIsWrittenWholeOrItsDropsAreSaid")
        #expect(Self.redactions.count == Self.captures.count)
        #expect(Self.captures.count >= 60, "our own captures alone are more")
        for redaction in Self.redactions {
            let records = redaction.manifest["records"] as! [String: Int]
            #expect(records["read"]! == records["written"]! + records["dropped"]!, "\(redaction.original)")
            #expect(Self.records(redaction.redacted).count == records["written"]!, "\(redaction.original)")
            if records["dropped"]! > 0 {
                #expect(
                    redaction.status == 1 && redaction.stderr.contains("dropped"),
                    "\(redaction.original): \(redaction.stderr)")
                print("redact \(redaction.original): \(records["dropped"]!) of \(records["read"]!) records dropped")
            } else {
                #expect(
                    redaction.status == 0 || redaction.stderr.contains(redaction.original),
                    "\(redaction.original): \(redaction.stderr)")
            }
        }
    }

    @Test(arguments: redactions)
    func noOriginalAddressOrKeyRemains(_ redaction: Redaction) throws {
        let output = try Fixtures.contents(redaction.redacted)
        var addresses = Set(redaction.mapping.keys)
        var secrets: Set<[UInt8]> = []
        if Self.tshark != nil {
            let found = try Self.tsharkFields(redaction.original)
            addresses.formUnion(found.addresses)
            secrets = found.secrets
        } else {
            print(
                "\(redaction.original): tshark is not installed: keys are not looked for, addresses only from the mapping"
            )
        }
        // Every original address, as its six bytes read either way, looked for in one pass over
        // the output; and as text, wherever the output holds an address written as text.
        var wanted: Set<UInt64> = []
        for text in addresses {
            // An address of fewer than three non-zero bytes (00:00:00:00:00:01, as test rigs use)
            // occurs by chance in any file: it tells an attacker nothing, and is not looked for.
            guard let address = BluetoothAddress(text),
                address.littleEndianBytes.filter({ $0 != 0 && $0 != 0xFF }).count >= 3
            else { continue }
            wanted.insert(address.rawValue)
        }
        var remaining: Set<UInt64> = []
        if output.count >= 6 {
            for index in 0...(output.count - 6) {
                var forward: UInt64 = 0
                var backward: UInt64 = 0
                for offset in 0..<6 {
                    forward |= UInt64(output[index + offset]) << (8 * UInt64(offset))
                    backward = backward << 8 | UInt64(output[index + offset])
                }
                if wanted.contains(forward) { remaining.insert(forward) }
                if wanted.contains(backward) { remaining.insert(backward) }
            }
        }
        let text = String(decoding: output.map { $0 < 0x80 ? $0 : 0x2E }, as: UTF8.self)
        for candidate in text.split(whereSeparator: { !($0.isHexDigit || $0 == ":") }) where candidate.count >= 17 {
            for start in 0...(candidate.count - 17) {
                let from = candidate.index(candidate.startIndex, offsetBy: start)
                if let address = BluetoothAddress(candidate[from..<candidate.index(from, offsetBy: 17)]),
                    wanted.contains(address.rawValue)
                {
                    remaining.insert(address.rawValue)
                }
            }
        }
        for address in remaining.sorted() {
            Issue.record("\(redaction.original): \(BluetoothAddress(rawValue: address)) remains")
        }
        for secret in secrets {
            let remains = output.contains(secret) || output.contains(Array(secret.reversed()))
            #expect(!remains, "\(redaction.original): a secret remains: \(hex(secret))")
        }
    }

    @Test(arguments: ["lifecycle", "gatt", "errors", "diagnose"])
    func everyAnalysisTellsTheSameStoryUnderTheMapping(_ command: String) throws {
        let whole = Self.redactions.filter { $0.dropped == 0 }
        for redaction in Self.redactions where redaction.dropped != 0 {
            print("\(command): \(redaction.original) is not compared: records were dropped")
        }
        #expect(whole.count * 10 >= Self.redactions.count * 9, "most captures are redacted whole")
        let originals = try json(array: bletrace([command, "--format", "json"] + whole.map(\.original)).stdout)
        let redacted = try json(array: bletrace([command, "--format", "json"] + whole.map(\.redacted)).stdout)
        #expect(originals.count == whole.count && redacted.count == whole.count)
        for (redaction, (before, after)) in zip(whole, zip(originals, redacted)) {
            var expected = Self.canonical(before)
            for (original, replacement) in redaction.mapping {
                expected = expected.replacingOccurrences(of: original, with: replacement)
            }
            let actual = Self.canonical(after)
            // Peers listed in address order may come in another order: compared as sorted lists.
            let same = Self.sortedLines(expected) == Self.sortedLines(actual)
            #expect(same, "\(command) \(redaction.original)")
            if Self.sortedLines(expected) != Self.sortedLines(actual) {
                let a = expected.split(separator: "\n"), b = actual.split(separator: "\n")
                if let index = zip(a, b).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset {
                    print("  original: \(a[index])\n  redacted: \(b[index])")
                }
            }
        }
    }

    @Test(arguments: redactions.filter { Fixtures.isOurs($0.original) })
    func redactingTwiceChangesNothingButTheAddresses(_ first: Redaction) throws {
        // "Nothing more": the second pass finds no key (the identity addresses it meets are the
        // first pass's replacements, replaced again), drops nothing, and
        // its output is its input with one more consistent address mapping, record by record
        // (over the air, the CRC after a changed address aside).
        let second = try Self.redact(
            first.redacted, into: Self.directory.appendingPathComponent("again-\(UUID().uuidString)"), seed: 8)
        #expect((second.manifest["found"] as? [String: Int])?.isEmpty == true, "\(first.original)")
        #expect(second.dropped == 0)
        let before = Self.records(first.redacted)
        let after = Self.records(second.redacted)
        #expect(before.count == after.count)
        let pairs = second.mapping.compactMap { original, replacement in
            BluetoothAddress(original).flatMap { o in BluetoothAddress(replacement).map { (o, $0) } }
        }
        for (old, new) in zip(before, after) {
            #expect(old.timestamp == new.timestamp && old.kind == new.kind && old.bytes.count == new.bytes.count)
            var expected = old.bytes
            for (original, replacement) in pairs {
                Self.replace(original.littleEndianBytes, with: replacement.littleEndianBytes, in: &expected)
                Self.replace(
                    original.littleEndianBytes.reversed(), with: replacement.littleEndianBytes.reversed(), in: &expected
                )
                for upper in [true, false] {
                    let o = upper ? original.description : original.description.lowercased()
                    let r = upper ? replacement.description : replacement.description.lowercased()
                    Self.replace(Array(o.utf8), with: Array(r.utf8), in: &expected)
                }
            }
            let compared = first.isAir ? max(0, expected.count - 3) : expected.count
            let same = expected.prefix(compared) == new.bytes.prefix(compared)
            #expect(same, "\(first.original) record \(old.index)")
        }
    }

    @Test func namesAndValuesLeaveNoneOfTheirBytes() throws {
        guard Self.tshark != nil else {
            print(
                "namesAndValuesLeaveNoneOfTheirBytes: tshark is not installed, nothing to find the names and values with"
            )
            return
        }
        var checked = 0
        for (index, path) in Self.captures.enumerated() where !path.contains("/linklayer/") {
            let result = try run(
                Self.tshark!,
                [
                    "-r", path, "-T", "fields", "-E", "occurrence=a", "-E", "separator=|", "-E", "aggregator=|", "-e",
                    "btcommon.eir_ad.entry.device_name",
                    "-e", "btatt.device_name", "-e", "bthci_cmd.device_name", "-e", "bthci_evt.device_name",
                ])
            let names = Set(
                result.stdout.split(whereSeparator: { $0 == "\n" || $0 == "|" }).map(String.init).filter {
                    $0.utf8.count >= 4
                })
            guard !names.isEmpty else { continue }
            let redaction = try Self.redact(
                path, into: Self.directory.appendingPathComponent("names-\(index)"), seed: 7,
                extra: ["--names", "--values"])
            let output = try Fixtures.contents(redaction.redacted)
            for name in names {
                let remains = output.contains(Array(name.utf8))
                #expect(!remains, "\(path): the name \(name) remains")
            }
            #expect((redaction.manifest["names_replaced"] as? Int ?? 0) > 0)
            checked += 1
        }
        #expect(checked >= 3, "our scan and connection captures advertise names")
    }

    @Test func valuesAreZeroedAndTheStructureStays() throws {
        let path = Fixtures.capture("att-errors.btsnoop")
        let redaction = try Self.redact(
            path, into: Self.directory.appendingPathComponent("values"), seed: 7, extra: ["--values"])
        #expect(redaction.status == 0)
        #expect((redaction.manifest["values_zeroed"] as? Int ?? 0) > 0)
        // "bletrace" is read as a value in this capture.
        let before = try Fixtures.contents(path).contains(Array("bletrace".utf8))
        let after = try Fixtures.contents(redaction.redacted).contains(Array("bletrace".utf8))
        #expect(before && !after)
        // The GATT structure is the same: services and characteristics, under the mapping; the
        // values read are zeros of the same length.
        let zeroed = "\"hex\" : \"0000000000000000\""
        var expected = Self.canonical(try json(bletrace("gatt", "--format", "json", path).stdout))
            .replacingOccurrences(of: "\"hex\" : \"626c657472616365\"", with: zeroed)
        for (original, replacement) in redaction.mapping {
            expected = expected.replacingOccurrences(of: original, with: replacement)
        }
        let actual = Self.canonical(try json(bletrace("gatt", "--format", "json", redaction.redacted).stdout))
        #expect(actual.contains(zeroed))
        let same = expected == actual
        #expect(same)
    }

    @Test func aDamagedCaptureIsRedactedAsFarAsItReadsAndTheRestSaid() throws {
        let source = try Fixtures.contents(Fixtures.capture("scan.btsnoop"))
        let originals = Self.records(Fixtures.capture("scan.btsnoop"))
        // Cut in the middle of the last record: every record before it is redacted, the fault said.
        let cut = try Fixtures.temporaryFile(Array(source.prefix(source.count - 5)), name: "cut.btsnoop")
        let out = cut + ".out.btsnoop"
        let result = try bletrace("redact", cut, "-o", out, "--seed", "1")
        #expect(result.status == 1)
        #expect(result.stderr.contains("cut.btsnoop"))
        #expect(Self.records(out).count == originals.count - 1)
        // An advertising report whose data length runs past its event: that record is dropped and said.
        let report = try #require(
            originals.firstIndex {
                $0.kind == .event && $0.bytes.count > 13 && $0.bytes[0] == 0x3E && $0.bytes[2] == 0x02
            })
        var flipped = source
        let at = Int(originals[report].fileOffset) + 24 + 1 + 12  // record header, H4 byte, to Data_Length
        flipped[at] = 0xF0
        let damaged = try Fixtures.temporaryFile(flipped, name: "flipped.btsnoop")
        let manifest = damaged + ".json"
        let second = try bletrace(
            "redact", damaged, "-o", damaged + ".out.btsnoop", "--seed", "1", "--manifest", manifest)
        #expect(second.status == 1)
        #expect(second.stderr.contains("1 record of \(originals.count) dropped"))
        #expect(second.stderr.contains("record \(report) at byte \(originals[report].fileOffset)"))
        #expect(Self.records(damaged + ".out.btsnoop").count == originals.count - 1)
        let address = try #require(BluetoothAddress("F0:F1:F2:F3:F4:05"))
        let remains = try Fixtures.contents(damaged + ".out.btsnoop").contains(address.littleEndianBytes)
        #expect(!remains)
    }

    @Test func infoAndDiagnoseSayWhatSecretsACaptureHoldsUntilItIsRedacted() throws {
        let path = Fixtures.capture("pairing-retry.btsnoop")
        let info = try bletrace("info", path)
        #expect(info.stdout.contains("secrets:  holds the LTK of 1 bonded device"))
        #expect(info.stdout.contains("2 identity addresses: run bletrace redact before sharing"))
        let secrets = try #require(
            try json(bletrace("info", "--format", "json", path).stdout)["secrets"] as? [String: Any])
        #expect(secrets["holds"] as? Bool == true)
        #expect((secrets["keys"] as? [String: Int])?["ltk"] == 1)
        let diagnose = try bletrace("diagnose", path)
        #expect(diagnose.stdout.contains("Secrets: the capture holds the LTK of 1 bonded device"))
        let diagnosed = try #require(
            try json(bletrace("diagnose", "--format", "json", path).stdout)["secrets"] as? [String: Any])
        #expect(diagnosed["identity_addresses"] as? Int == 2)

        let redaction = try #require(Self.redactions.first { $0.original == path })
        #expect(!(try bletrace("info", redaction.redacted)).stdout.contains("secrets:"))
        #expect(!(try bletrace("diagnose", redaction.redacted)).stdout.contains("Secrets:"))
        let after = try #require(
            try json(bletrace("info", "--format", "json", redaction.redacted).stdout)["secrets"] as? [String: Any])
        #expect(after["holds"] as? Bool == false)
    }

    @Test func theMappingIsWrittenOnlyWhenAskedAndTheSeedNever() throws {
        let path = Fixtures.capture("scan.btsnoop")
        let folder = Self.directory.appendingPathComponent("manifest")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let out = folder.appendingPathComponent("scan.btsnoop").path
        let result = try bletrace("redact", path, "-o", out, "--seed", "12345", "--manifest", out + ".json")
        #expect(result.status == 0)
        let text = String(decoding: try Fixtures.contents(out + ".json"), as: UTF8.self)
        #expect(!text.contains("mapping") && !text.contains("12345") && !text.contains("F0:F1:F2:F3:F4:05"))
        #expect(try bletrace("redact", path, "-o", out, "--keep-mapping").stderr.contains("--manifest"))
        // Without a seed, two runs replace the same address differently.
        let one = try Self.redact(path, into: folder.appendingPathComponent("1"), seed: 1, extra: [])
        let two = try Self.redact(path, into: folder.appendingPathComponent("2"), seed: 2, extra: [])
        #expect(
            one.mapping["F0:F1:F2:F3:F4:05"] != nil
                && one.mapping["F0:F1:F2:F3:F4:05"] != two.mapping["F0:F1:F2:F3:F4:05"])
    }

    @Test func packetLoggerLinkLayerLogsAreRedactedAndTheirTinyRecordsKept() throws {
        // A big-endian PacketLogger file as iOS sysdiagnose logs write it: an LE Enhanced Connection
        // Complete with the peer F9:1C:52:63:45:3D on handle 0x0403; 0x0A link-layer logs of that
        // connection (LL_VERSION_IND, LL_ENC_REQ) and of one the capture never shows begin
        // (0C:7E:24:31:3A:F6, LL_PING_REQ); macOS's two-byte 0x0A; iOS's one-byte 0x21; a 0x0B
        // of no known layout.
        func record(_ type: UInt8, _ payload: [UInt8], second: UInt32) -> [UInt8] {
            let length = UInt32(9 + payload.count)
            return [length, second, 0].flatMap { word in
                (0..<4).map { UInt8(truncatingIfNeeded: word >> (24 - 8 * $0)) }
            }
                + [type] + payload
        }
        let peer: [UInt8] = [0xF9, 0x1C, 0x52, 0x63, 0x45, 0x3D]  // most significant first
        let hidden: [UInt8] = [0x0C, 0x7E, 0x24, 0x31, 0x3A, 0xF6]
        let rand: [UInt8] = [0x91, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98], ediv: [UInt8] = [0xE1, 0xE2]
        let connection: [UInt8] =
            [0x3E, 31, 0x0A, 0x00, 0x03, 0x04, 0x00, 0x01] + peer.reversed() + Array(repeating: 0, count: 12)
            + [0x18, 0, 0, 0, 0x48, 0, 0x01]
        let log = { (direction: UInt8, address: [UInt8], handle: UInt8, pdu: [UInt8]) in
            [direction, 0x0B, 0xD2, 0xA9, 0x00] + address + [handle, 0x04] + pdu + [0x0E]
        }
        let version = log(0x80, peer, 0x03, [0x0C, 0x0E, 0x4C, 0x00, 0x00, 0x1E])
        let encryption = log(0x80, peer, 0x03, [0x03] + rand + ediv + Array(0x40..<0x48) + [0x50, 0x51, 0x52, 0x53])
        let ping = log(0x81, hidden, 0x01, [0x12])
        let file = [
            record(0x01, connection, second: 1), record(0x0A, version, second: 2),
            record(0x0A, [0xF0, 0x01], second: 2),
            record(0x0A, encryption, second: 3), record(0x0A, ping, second: 4), record(0x21, [0x01], second: 5),
            record(0x0B, Array(repeating: 0x22, count: 20), second: 6),
        ].flatMap { $0 }
        let path = try Fixtures.temporaryFile(file, name: "sysdiagnose-like.pklg")
        #expect(try bletrace("info", path).stdout.contains("1 EDIV/Rand"))
        let redaction = try Self.redact(
            path, into: Self.directory.appendingPathComponent("pklg-link-layer"), seed: 7)
        #expect(redaction.status == 1)
        #expect(redaction.stderr.contains("1 record of 7 dropped"), "\(redaction.stderr)")
        #expect(redaction.stderr.contains("type 0xb"), "\(redaction.stderr)")
        let records = Self.records(redaction.redacted)
        #expect(
            records.map(\.bytes.count) == [connection, version, [0xF0, 0x01], encryption, ping, [0x01]].map(\.count))
        guard records.count == 6 else { return }
        let output = try Fixtures.contents(redaction.redacted)
        for secret in [peer, hidden, rand] {
            #expect(!output.contains(secret) && !output.contains(Array(secret.reversed())), "\(hex(secret)) remains")
        }
        // The peer's replacement is the same in the HCI event and in the logs, written their way round.
        let replacement = try #require(redaction.mapping["F9:1C:52:63:45:3D"])
        let replaced = try #require(BluetoothAddress(replacement)).littleEndianBytes
        #expect(Array(records[0].bytes[8..<14]) == replaced)
        #expect(Array(records[1].bytes[5..<11]) == replaced.reversed())
        #expect(Array(records[3].bytes[5..<11]) == replaced.reversed())
        #expect(redaction.mapping["0C:7E:24:31:3A:F6"] != nil)
        #expect(records[3].bytes[14..<24].allSatisfy { $0 == 0 }, "Rand and EDIV zeroed")
        #expect(Array(records[3].bytes[24...]) == Array(encryption[24...]), "SKDm and IVm stay")
        #expect(Array(records[1].bytes[11...]) == Array(version[11...]), "LL_VERSION_IND stays")
        #expect(records[2].bytes == [0xF0, 0x01] && records[5].bytes == [0x01])
        #expect(!(try bletrace("info", redaction.redacted)).stdout.contains("EDIV/Rand"))
    }

    // MARK: Helpers

    static func canonical(_ value: Any) -> String {
        var value = value
        if var object = value as? [String: Any] {
            object["file"] = nil
            object["secrets"] = nil
            value = object
        }
        let data = try! JSONSerialization.data(
            withJSONObject: value, options: [.sortedKeys, .prettyPrinted, .fragmentsAllowed])
        return String(decoding: data, as: UTF8.self)
    }

    static func sortedLines(_ text: String) -> [Substring] { text.split(separator: "\n").sorted() }

    static func replace(_ needle: [UInt8], with replacement: [UInt8], in bytes: inout [UInt8]) {
        guard needle.count <= bytes.count else { return }
        var index = 0
        while index + needle.count <= bytes.count {
            if bytes[index..<index + needle.count].elementsEqual(needle) {
                bytes.replaceSubrange(index..<index + needle.count, with: replacement)
                index += needle.count
            } else {
                index += 1
            }
        }
    }
}

func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

func json(array text: String) throws -> [Any] {
    try JSONSerialization.jsonObject(with: Data(text.utf8)) as! [Any]
}

extension Array where Element == UInt8 {
    /// Whether `needle` occurs in these bytes.
    func contains(_ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, needle.count <= count else { return false }
        let first = needle[0]
        var index = 0
        while let found = self[index...].firstIndex(of: first), found + needle.count <= count {
            if self[found..<found + needle.count].elementsEqual(needle) { return true }
            index = found + 1
        }
        return false
    }
}
