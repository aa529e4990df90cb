import HCI
import TestSupport
import Testing
import Wire

/// ``ADValue`` as plain values.
enum ADDetail: Equatable, Sendable {
    case flags(UInt8)
    case serviceUUIDs([BluetoothUUID], complete: Bool)
    case localName(String, complete: Bool)
    case txPowerLevel(Int8)
    case serviceData(BluetoothUUID, [UInt8])
    case appearance(UInt16)
    case manufacturer(company: UInt16, [UInt8])
    case unknown(type: UInt8, [UInt8])

    init(_ value: ADValue) {
        switch value {
        case .flags(let flags): self = .flags(flags.rawValue)
        case .serviceUUIDs(let list, let complete): self = .serviceUUIDs(Array(list), complete: complete)
        case .localName(let bytes, let complete):
            self = .localName(String(decoding: bytes, as: UTF8.self), complete: complete)
        case .txPowerLevel(let level): self = .txPowerLevel(level)
        case .serviceData(let uuid, let data): self = .serviceData(uuid, Array(data))
        case .appearance(let value): self = .appearance(value)
        case .manufacturerSpecificData(let company, let data): self = .manufacturer(company: company, Array(data))
        case .unknown(let type, let data): self = .unknown(type: type.rawValue, Array(data))
        }
    }
}

/// One AD structure as plain values: where it starts, its type, what it says.
struct ADRow: Equatable, Sendable {
    var offset: Int
    var type: UInt8
    var value: ADDetail
}

func decodeAD(_ bytes: [UInt8], offset: Int = 0) throws -> [ADRow] {
    try bytes.withUnsafeBytes { raw throws in
        try AdvertisingData(raw, offset: offset).structures().map {
            ADRow(offset: $0.offset, type: $0.type.rawValue, value: ADDetail($0.value))
        }
    }
}

/// Advertising data written by hand from the Core Specification Supplement, Part A, §1, one AD
/// structure a string: Length (type + data), AD Type, AD Data.
@Suite struct AdvertisingDataTests {
    static let structures: [String] = [
        "02 01 1a",  // Flags: LE General Discoverable, simultaneous (0x08, 0x10)
        "05 03 0d 18 0f 18",  // Complete 16-bit UUIDs: 0x180D, 0x180F
        "05 04 78 56 34 12",  // Incomplete 32-bit UUIDs: 0x12345678
        "11 07 fb 34 9b 5f 80 00 00 80 00 10 00 00 0a 18 00 00",  // Complete 128-bit: 0x180A in full
        "04 08 62 6c 65",  // Shortened Local Name "ble"
        "02 0a f4",  // Tx Power Level -12 dBm
        "03 19 41 03",  // Appearance 0x0341 (heart rate belt)
        "05 16 0f 18 5a 01",  // Service Data 16-bit: 0x180F, data 5a 01
        "07 20 78 56 34 12 aa bb",  // Service Data 32-bit: 0x12345678, data aa bb
        "12 21 00 11 22 33 44 55 66 77 88 99 aa bb cc dd ee ff 42",  // Service Data 128-bit, data 42
        "07 ff 4c 00 02 15 01 02",  // Manufacturer Specific: company 0x004C, data 02 15 01 02
        "03 2e 01 02",  // 0x2E Resolvable Set Identifier (not decoded: kept)
        "01 03",  // Complete 16-bit UUIDs, empty list
    ]

    static let expected: [ADRow] = [
        ADRow(offset: 0, type: 0x01, value: .flags(0x1A)),
        ADRow(
            offset: 3, type: 0x03,
            value: .serviceUUIDs([BluetoothUUID(UInt16(0x180D)), BluetoothUUID(UInt16(0x180F))], complete: true)),
        ADRow(offset: 9, type: 0x04, value: .serviceUUIDs([BluetoothUUID(UInt32(0x1234_5678))], complete: false)),
        ADRow(offset: 15, type: 0x07, value: .serviceUUIDs([BluetoothUUID(UInt16(0x180A))], complete: true)),
        ADRow(offset: 33, type: 0x08, value: .localName("ble", complete: false)),
        ADRow(offset: 38, type: 0x0A, value: .txPowerLevel(-12)),
        ADRow(offset: 41, type: 0x19, value: .appearance(0x0341)),
        ADRow(offset: 45, type: 0x16, value: .serviceData(BluetoothUUID(UInt16(0x180F)), [0x5A, 0x01])),
        ADRow(offset: 51, type: 0x20, value: .serviceData(BluetoothUUID(UInt32(0x1234_5678)), [0xAA, 0xBB])),
        ADRow(
            offset: 59, type: 0x21,
            value: .serviceData(
                BluetoothUUID(high: 0xFFEE_DDCC_BBAA_9988, low: 0x7766_5544_3322_1100), [0x42])),
        ADRow(offset: 78, type: 0xFF, value: .manufacturer(company: 0x004C, [0x02, 0x15, 0x01, 0x02])),
        ADRow(offset: 86, type: 0x2E, value: .unknown(type: 0x2E, [0x01, 0x02])),
        ADRow(offset: 90, type: 0x03, value: .serviceUUIDs([], complete: true)),
    ]

    static var bytes: [UInt8] { packet(structures) }

    /// Where each structure starts, and where the data ends.
    static var boundaries: [Int] {
        var starts = [0]
        for structure in structures { starts.append(starts.last! + packet(structure).count) }
        return starts
    }

    @Test func handWrittenOffsetsAreTheStructuresStarts() {
        #expect(Self.expected.map(\.offset) == Array(Self.boundaries.dropLast()))
    }

    @Test func decodesEveryStructure() throws {
        #expect(try decodeAD(Self.bytes) == Self.expected)
    }

    @Test func offsetsCountFromWhereTheDataIsInItsPacket() throws {
        let rows = try decodeAD(Self.bytes, offset: 13)
        #expect(rows.map(\.offset) == Self.expected.map { $0.offset + 13 })
    }

    /// Cut at a structure boundary the data is shorter but whole; cut anywhere else, the
    /// structure that runs past the end is the error, at its length byte.
    @Test func everyTruncationPrefixDecodesOrThrowsAtTheCutStructure() {
        let bytes = Self.bytes
        let boundaries = Self.boundaries
        for count in 0..<bytes.count {
            let prefix = Array(bytes.prefix(count))
            if let index = boundaries.firstIndex(of: count) {
                let rows = try? decodeAD(prefix)  // nil (a failure below) if it throws
                #expect(rows == Array(Self.expected.prefix(index)), "prefix of \(count) bytes")
                continue
            }
            let cut = boundaries.last { $0 < count }!
            let error = #expect(throws: DecodeError.self, "prefix of \(count) bytes") {
                try decodeAD(prefix, offset: 4)
            }
            #expect(error?.layer == .hci)
            #expect(error?.offset == 4 + cut, "prefix of \(count) bytes")
        }
    }

    @Test func aZeroLengthEndsTheSignificantPart() throws {
        // Flags, then a zero length byte, then padding that would not parse.
        let bytes = packet("02 01 06", "00", "ff ff 00")
        try bytes.withUnsafeBytes { raw throws in
            let list = try AdvertisingData(raw).structures()
            #expect(list.map(\.type) == [.flags])
            #expect(Array(list.significant) == [0x02, 0x01, 0x06])
            #expect(Array(list.padding) == [0x00, 0xFF, 0xFF, 0x00])
        }
    }

    @Test func emptyDataHasNoStructures() throws {
        #expect(try decodeAD([]) == [])
        #expect(try decodeAD([0, 0, 0]) == [])
    }

    @Test(
        arguments: [
            // (structure, offset of the error within the data, what is wrong)
            ("03 0a f4 00", 2),  // Tx Power Level of 2 bytes
            ("02 19 41", 2),  // Appearance of 1 byte
            ("04 03 0d 18 0f", 2),  // 16-bit UUID list of 3 bytes
            ("06 05 78 56 34 12 00", 2),  // 32-bit UUID list of 5 bytes
            ("10 07 fb 34 9b 5f 80 00 00 80 00 10 00 00 0a 18 00", 2),  // 128-bit list of 15 bytes
            ("02 16 0f", 2),  // 16-bit service data without a whole UUID
            ("04 20 78 56 34", 2),  // 32-bit service data without a whole UUID
            ("02 ff 4c", 2),  // Manufacturer data without a whole company ID
        ] as [(String, Int)])
    func typedStructuresOfTheWrongLengthFailAtTheirData(_ structure: String, _ offset: Int) {
        // A good Flags structure first, so the error's offset is past it.
        let bytes = packet("02 01 06", structure)
        let error = #expect(throws: DecodeError.self) { try decodeAD(bytes, offset: 10) }
        #expect(error?.offset == 10 + 3 + offset)
    }

    @Test func flagsMayBeEmptyOrLonger() throws {
        #expect(try decodeAD(packet("01 01")) == [ADRow(offset: 0, type: 0x01, value: .flags(0))])
        #expect(try decodeAD(packet("03 01 06 80")) == [ADRow(offset: 0, type: 0x01, value: .flags(0x06))])
    }

    @Test func listAccessors() throws {
        try Self.bytes.withUnsafeBytes { raw throws in
            let list = try AdvertisingData(raw).structures()
            #expect(
                list.flags == [
                    .leGeneralDiscoverableMode, .simultaneousLEAndBREDRController, .simultaneousLEAndBREDRHost,
                ])
            #expect(list.localName == "ble")
            #expect(list.txPowerLevel == -12)
            #expect(list.appearance == 0x0341)
            #expect(list.first(.manufacturerSpecificData)?.offset == 78)
            #expect(list.first(.completeLocalName) == nil)
        }
    }

    @Test func completeNameIsPreferredAndBadUTF8IsRepaired() throws {
        let bytes = packet("03 08 61 62", "04 09 61 62 ff")
        try bytes.withUnsafeBytes { raw throws in
            #expect(try AdvertisingData(raw).structures().localName == "ab\u{FFFD}")
        }
    }

    @Test func typeNames() {
        #expect(ADType.completeList16BitServiceUUIDs.description == "Complete List of 16-bit Service UUIDs")
        #expect(ADType.manufacturerSpecificData.description == "Manufacturer Specific Data")
        #expect(ADType(rawValue: 0xF0).description == "ADType(0xf0)")
    }
}
