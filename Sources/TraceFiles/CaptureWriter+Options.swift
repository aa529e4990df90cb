import Wire

extension CaptureWriter {
    /// Header fields a format has beyond its datalink. The defaults suit a new file;
    /// ``matching(_:)`` takes them from an existing capture, for a byte-identical rewrite.
    public struct Options: Hashable, Sendable {
        /// pcap and pcapng: the snap length in the header (the longest packet the file holds).
        /// A longer record is cut to it, with its original length kept, and reported as a
        /// ``Loss``. Default 262,144, libpcap's and Wireshark's maximum.
        public var snapLength: UInt32
        /// PacketLogger and pcapng: write big-endian (older PacketLogger, or a big-endian pcapng
        /// section) instead of little-endian. pcap is written by libpcap in the host's order.
        public var bigEndian: Bool
        /// pcapng: the section header's and the interface description's fields as a source file
        /// had them. Nil for a new file: no options, section length -1.
        public var pcapngHeader: PcapngHeader?

        public init(snapLength: UInt32 = 262_144, bigEndian: Bool = false, pcapngHeader: PcapngHeader? = nil) {
            self.snapLength = snapLength
            self.bigEndian = bigEndian
            self.pcapngHeader = pcapngHeader
        }

        /// The header fields of the capture at `path`, for writing its records back in its own
        /// format: the snap length of a pcap; the byte order, snap length, first Section Header
        /// Block and first Interface Description Block of a pcapng (parsed natively from the
        /// file's first 64 KiB, since libpcap does not expose the block options); the byte order
        /// of a PacketLogger file. btsnoop has nothing beyond its datalink. A file whose header
        /// cannot be parsed here gives the defaults.
        public static func matching(_ path: String) -> Options {
            var options = Options()
            guard let window = try? FileWindow(path: path, streamWait: nil), let have = try? window.fill(1 << 16),
                have > 0
            else {
                return options
            }
            let prefix = window.view(have)
            switch CaptureFormat.signature(of: prefix) {
            case .pcap:
                guard prefix.count >= 24 else { break }
                // The magic A1 B2 C3 D4 (or A1 B2 3C 4D) in file order means big-endian.
                options.bigEndian = prefix[0] == 0xA1
                options.snapLength = word(prefix, 16, bigEndian: options.bigEndian)
            case .pcapng:
                if let (header, bigEndian, snapLength) = PcapngHeader.parse(prefix) {
                    options.pcapngHeader = header
                    options.bigEndian = bigEndian
                    options.snapLength = snapLength
                }
            case .unknown:
                options.bigEndian = PacketLoggerReader.detectByteOrder(prefix) ?? false
            case .btsnoop:
                break
            }
            return options
        }

        static func word(_ bytes: UnsafeRawBufferPointer, _ offset: Int, bigEndian: Bool) -> UInt32 {
            let raw = bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
            return bigEndian ? UInt32(bigEndian: raw) : UInt32(littleEndian: raw)
        }
    }

    /// The fields of a pcapng file's first Section Header Block and first Interface Description
    /// Block that a rewrite needs to be byte-identical. Options are kept raw, in the section's
    /// byte order, each list ending with its end-of-options option; empty when the block has none.
    public struct PcapngHeader: Hashable, Sendable {
        public var majorVersion: UInt16
        public var minorVersion: UInt16
        /// -1 when the writer did not say (as most do).
        public var sectionLength: Int64
        public var sectionOptions: [UInt8]
        public var interfaceOptions: [UInt8]

        public init(
            majorVersion: UInt16 = 1, minorVersion: UInt16 = 0, sectionLength: Int64 = -1,
            sectionOptions: [UInt8] = [], interfaceOptions: [UInt8] = []
        ) {
            self.majorVersion = majorVersion
            self.minorVersion = minorVersion
            self.sectionLength = sectionLength
            self.sectionOptions = sectionOptions
            self.interfaceOptions = interfaceOptions
        }

        /// The header, byte order and snap length, when the file starts with a Section Header
        /// Block immediately followed by an Interface Description Block, both whole in `bytes`.
        static func parse(_ bytes: UnsafeRawBufferPointer) -> (PcapngHeader, bigEndian: Bool, snapLength: UInt32)? {
            guard bytes.count >= 28 else { return nil }
            let bigEndian: Bool
            switch (bytes[8], bytes[9], bytes[10], bytes[11]) {
            case (0x1A, 0x2B, 0x3C, 0x4D): bigEndian = true
            case (0x4D, 0x3C, 0x2B, 0x1A): bigEndian = false
            default: return nil
            }
            func u32(_ offset: Int) -> UInt32 { Options.word(bytes, offset, bigEndian: bigEndian) }
            func u16(_ offset: Int) -> UInt16 {
                let raw = bytes.loadUnaligned(fromByteOffset: offset, as: UInt16.self)
                return bigEndian ? UInt16(bigEndian: raw) : UInt16(littleEndian: raw)
            }
            let sectionBlock = Int(u32(4))
            guard sectionBlock >= 28, sectionBlock % 4 == 0, sectionBlock + 20 <= bytes.count,
                Int(u32(sectionBlock - 4)) == sectionBlock
            else { return nil }
            let high = UInt64(u32(bigEndian ? 16 : 20)), low = UInt64(u32(bigEndian ? 20 : 16))
            var header = PcapngHeader(
                majorVersion: u16(12), minorVersion: u16(14), sectionLength: Int64(bitPattern: high << 32 | low),
                sectionOptions: Array(bytes[24..<sectionBlock - 4]))
            let interface = sectionBlock
            let interfaceBlock = Int(u32(interface + 4))
            guard u32(interface) == 1, interfaceBlock >= 20, interfaceBlock % 4 == 0,
                interface + interfaceBlock <= bytes.count,
                Int(u32(interface + interfaceBlock - 4)) == interfaceBlock
            else { return nil }
            header.interfaceOptions = Array(bytes[interface + 16..<interface + interfaceBlock - 4])
            return (header, bigEndian, u32(interface + 12))
        }
    }
}
