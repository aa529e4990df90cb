import Testing
import Wire

@Suite struct DecodeErrorTests {
    @Test func descriptionNamesFileRecordLayerOffsetAndExpectation() {
        let error = DecodeError(
            layer: .btsnoop, offset: 40, expected: "record header (24 bytes)", recordIndex: 3,
            file: "trace.btsnoop")
        let text = error.description
        #expect(text.contains("trace.btsnoop"))
        #expect(text.contains("frame 4"))
        #expect(text.contains("btsnoop"))
        #expect(text.contains("40"))
        #expect(text.contains("record header (24 bytes)"))
        #expect(text == "trace.btsnoop: frame 4: btsnoop at byte offset 40: expected record header (24 bytes)")
    }

    @Test func descriptionLeavesOutWhatIsNotKnown() {
        let error = DecodeError(layer: .att, offset: 1, expected: "attribute handle")
        #expect(error.recordIndex == nil)
        #expect(error.file == nil)
        #expect(error.description == "att at byte offset 1: expected attribute handle")
    }

    @Test func recordIndexZeroIsShownAsFrameOne() {
        let error = DecodeError(layer: .hci, offset: 2, expected: "x", recordIndex: 0)
        #expect(error.description.hasPrefix("frame 1: hci"))
    }

    @Test(arguments: [
        (DecodeError.Layer.file, "file"), (.btsnoop, "btsnoop"), (.pcap, "pcap"),
        (.packetLogger, "packetLogger"), (.hci, "hci"), (.acl, "acl"), (.l2cap, "l2cap"),
        (.att, "att"), (.smp, "smp"),
    ])
    func layerNames(_ layer: DecodeError.Layer, _ name: String) {
        #expect(layer.rawValue == name)
        #expect(DecodeError(layer: layer, offset: 0, expected: "e").description.hasPrefix(name + " at"))
    }

    @Test func changingACopyLeavesTheOriginalAsItWas() {
        let original = DecodeError(layer: .att, offset: 3, expected: "a 2-byte handle")
        var located = original
        located.recordIndex = 12
        located.file = "trace.btsnoop"
        located.expected += " (the PDU ends early)"
        #expect(original.recordIndex == nil && original.file == nil && original.expected == "a 2-byte handle")
        #expect(located.recordIndex == 12 && located.file == "trace.btsnoop")
        #expect(located.expected == "a 2-byte handle (the PDU ends early)")
        #expect(located.layer == .att && located.offset == 3)
        located.recordIndex = nil
        #expect(located.recordIndex == nil)
    }

    @Test func equalityAndHashingGoByTheFields() {
        let a = DecodeError(layer: .hci, offset: 1, expected: "x", recordIndex: 2, file: "f")
        let b = DecodeError(layer: .hci, offset: 1, expected: "x", recordIndex: 2, file: "f")
        var c = b
        c.offset = 9
        #expect(a == b && a.hashValue == b.hashValue)
        #expect(a != c)
        #expect(Set([a, b, c]).count == 2)
    }

    @Test func anOptionalErrorIsOneWord() {
        // Decoded records carry two of these; a larger error made every record slower to copy.
        #expect(MemoryLayout<DecodeError?>.size == MemoryLayout<Int>.size)
    }
}
