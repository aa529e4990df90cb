import HCI
import Testing

@Suite struct HandleTableTests {
    @Test func storesLooksUpAndRemovesByHandle() {
        var table = HandleTable<String>()
        #expect(table[0x0040] == nil)
        table[0x0040] = "first"
        table[0x0EFF] = "last"
        #expect(table[0x0040] == "first" && table[0x0EFF] == "last")
        #expect(table[0x0041] == nil && table[0x0000] == nil)
        table[0x0040] = nil
        #expect(table[0x0040] == nil)
        #expect(table.handles == [0x0EFF])
    }

    @Test func handlesAreTwelveBitsAsEveryDecoderMasksThem() {
        var table = HandleTable<Int>()
        table[0x1040] = 7  // the top 4 bits are packet boundary and broadcast flags, not handle
        #expect(table[0x0040] == 7)
        #expect(table.handles == [0x0040])
        #expect(HandleTable<Int>.capacity == 0x1000)
    }

    @Test func removingAnAbsentHandleDoesNotGrowTheTable() {
        var table = HandleTable<Int>()
        table[0x0E00] = nil
        #expect(table.handles.isEmpty)
    }

    @Test func updateCreatesThenChangesInPlace() {
        var table = HandleTable<[Int]>()
        table.update(0x0001, default: []) { $0.append(1) }
        table.update(0x0001, default: [99]) { $0.append(2) }
        #expect(table[0x0001] == [1, 2])
    }

    @Test func modifyChangesOnlyWhatIsThere() {
        var table = HandleTable<Int>()
        #expect(
            table.modify(0x0002) {
                $0 += 1; return $0
            } == nil)
        #expect(table[0x0002] == nil)
        table[0x0002] = 10
        #expect(
            table.modify(0x0002) {
                $0 += 1; return $0
            } == 11)
        #expect(table[0x0002] == 11)
    }
}
