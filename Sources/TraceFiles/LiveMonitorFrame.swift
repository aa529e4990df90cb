#if os(Linux)  // Live capture needs Linux (AF_BLUETOOTH, libbluetooth): README, "Where it builds".
import Wire

/// One frame of the Linux kernel's HCI monitor channel, as a read on the socket returns it.
///
/// Layout (the kernel's `struct hci_mon_hdr`, shared with the mgmt interface; **little-endian**,
/// unlike the big-endian pseudo-header of pcap link type 254 that libpcap builds from it):
///
/// | offset | size | meaning |
/// | --- | --- | --- |
/// | 0 | 2 | opcode (what the payload is; see ``LinuxMonitor``) |
/// | 2 | 2 | controller index (0xFFFF: none, for system notes and control records) |
/// | 4 | 2 | payload length |
/// | 6 | length | payload: the HCI packet without an H4 indicator, or the note's data |
///
/// The socket keeps frame boundaries (one frame per read), so a length that disagrees with what
/// was read is a fault, not a reason to look further.
struct LiveMonitorFrame {
    static let headerLength = 6

    var opcode: UInt16
    var controller: UInt16
    /// Borrowed from the bytes the frame was parsed from.
    var payload: UnsafeRawBufferPointer

    /// Parses one whole frame; `offset` is where it starts in the channel's stream of frames, for
    /// the error.
    init(parsing frame: UnsafeRawBufferPointer, offset: Int = 0) throws(DecodeError) {
        var reader = ByteReader(frame, layer: .hci)
        guard frame.count >= Self.headerLength else {
            throw DecodeError(
                layer: .hci, offset: offset,
                expected:
                    "a 6-byte monitor header (opcode, controller index, length; little-endian), not a \(frame.count)-byte frame"
            )
        }
        opcode = try reader.u16le("monitor opcode")
        controller = try reader.u16le("monitor controller index")
        let length = Int(try reader.u16le("monitor payload length"))
        guard length == reader.remaining else {
            throw DecodeError(
                layer: .hci, offset: offset + 4,
                expected:
                    "a payload length equal to the \(reader.remaining) bytes that follow the monitor header, not \(length)"
            )
        }
        payload = reader.rest()
    }
}
#endif
