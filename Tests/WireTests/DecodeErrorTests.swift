import Testing
import Wire

@Suite struct DecodeErrorTests {
    @Test func descriptionNamesFileRecordLayerOffsetAndExpectation() {
        let error = DecodeError(
            layer: .btsnoop, offset: 40, expected: "record header (24 bytes)", recordIndex: 3,
            file: "trace.btsnoop")
        let text = error.description
        #expect(text.contains("trace.btsnoop"))
        #expect(text.contains("record 3"))
        #expect(text.contains("btsnoop"))
        #expect(text.contains("40"))
        #expect(text.contains("record header (24 bytes)"))
        #expect(text == "trace.btsnoop: record 3: btsnoop at byte offset 40: expected record header (24 bytes)")
    }

    @Test func descriptionLeavesOutWhatIsNotKnown() {
        let error = DecodeError(layer: .att, offset: 1, expected: "attribute handle")
        #expect(error.recordIndex == nil)
        #expect(error.file == nil)
        #expect(error.description == "att at byte offset 1: expected attribute handle")
    }

    @Test func recordIndexZeroIsShown() {
        let error = DecodeError(layer: .hci, offset: 2, expected: "x", recordIndex: 0)
        #expect(error.description.hasPrefix("record 0: hci"))
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
}
