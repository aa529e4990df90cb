/// A btsnoop file (version 1, datalink 1002: HCI UART, H4) built record by record, for a test
/// that crafts the records a case needs. Times start at 2023-11-14T22:13:20Z and advance by
/// `step` microseconds a record.
public struct CraftedCapture {
    public private(set) var bytes = Array("btsnoop".utf8) + [0, 0, 0, 0, 1, 0, 0, 0x03, 0xEA]
    private var time: UInt64 = 0x00dc_ddb3_0f2f_8000 + 1_700_000_000_000_000
    private let step: UInt64

    public init(step: UInt64 = 1000) { self.step = step }

    /// A record of H4 `data`: `flags` 0 data sent, 1 data received, 2 command, 3 event.
    public mutating func record(_ flags: UInt32, _ data: [UInt8]) {
        time += step
        let length = UInt32(data.count)
        for value in [length, length, flags, 0] { bytes += withUnsafeBytes(of: value.bigEndian, Array.init) }
        bytes += withUnsafeBytes(of: time.bigEndian, Array.init)
        bytes += data
    }

    public mutating func command(_ opcode: Int, _ parameters: [UInt8]) {
        record(2, [0x01] + Self.le16(opcode) + [UInt8(parameters.count)] + parameters)
    }

    public mutating func event(_ code: UInt8, _ parameters: [UInt8]) {
        record(3, [0x04, code, UInt8(parameters.count)] + parameters)
    }

    /// An ACL packet that holds a whole L2CAP frame of `payload` on channel `cid`.
    public mutating func acl(_ handle: Int, _ cid: Int, _ payload: [UInt8], sent: Bool) {
        let l2cap = Self.le16(payload.count) + Self.le16(cid) + payload
        record(sent ? 0 : 1, [0x02] + Self.le16(handle | 0x2000) + Self.le16(l2cap.count) + l2cap)
    }

    public static func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
}
