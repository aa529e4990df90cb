import TestSupport
import Testing
import Wire

@Suite struct ByteWriterTests {
    @Test func writesFieldsLittleEndianInOrder() throws {
        var storage = [UInt8](repeating: 0, count: 6)
        let source = packet("de ad")
        let count = try storage.withUnsafeMutableBytes { buffer in
            try source.withUnsafeBytes { value in
                var writer = ByteWriter(buffer)
                try writer.u8(0x1B)
                try writer.u16le(0x002A)
                try writer.bytes(value)
                return writer.count
            }
        }
        #expect(count == 5)
        #expect(
            storage
                == packet(
                    "1b",  // u8
                    "2a 00",  // u16le 0x002A
                    "de ad",  // bytes
                    "00"  // untouched
                ))
    }

    @Test func overflowSaysWhatWasNeededAndWhatFits() {
        var storage = [UInt8](repeating: 0, count: 3)
        storage.withUnsafeMutableBytes { buffer in
            var writer = ByteWriter(buffer)
            #expect(throws: Never.self) { try writer.u16le(0x1234) }
            let error = #expect(throws: ByteWriter.Overflow.self) { try writer.u16le(0x5678) }
            #expect(error?.needed == 4)
            #expect(error?.capacity == 3)
            #expect(writer.count == 2)
        }
        #expect(storage == [0x34, 0x12, 0x00])
    }

    @Test func overflowOnAU8AndOnBytes() {
        let value = packet("01 02 03")
        var storage = [UInt8](repeating: 0, count: 2)
        storage.withUnsafeMutableBytes { buffer in
            value.withUnsafeBytes { raw in
                var writer = ByteWriter(buffer)
                let bytesError = #expect(throws: ByteWriter.Overflow.self) { try writer.bytes(raw) }
                #expect(bytesError?.needed == 3)
                #expect(bytesError?.capacity == 2)
                #expect(writer.count == 0)
                #expect(throws: Never.self) {
                    try writer.u8(0xAA)
                    try writer.u8(0xBB)
                }
                let u8Error = #expect(throws: ByteWriter.Overflow.self) { try writer.u8(0xCC) }
                #expect(u8Error?.needed == 3)
                #expect(u8Error?.capacity == 2)
            }
        }
        #expect(storage == [0xAA, 0xBB])
    }

    @Test func emptyBytesFitAFullBuffer() {
        var storage = [UInt8](repeating: 0, count: 1)
        storage.withUnsafeMutableBytes { buffer in
            var writer = ByteWriter(buffer)
            #expect(throws: Never.self) {
                try writer.u8(0x01)
                try writer.bytes(UnsafeRawBufferPointer(start: nil, count: 0))
            }
            #expect(writer.count == 1)
        }
    }
}
