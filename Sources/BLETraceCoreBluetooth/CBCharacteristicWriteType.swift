/// How a characteristic value is written (`CBCharacteristicWriteType`): with a Write Request and
/// its response, or with a Write Command.
public enum CBCharacteristicWriteType: Int, Hashable, Sendable {
    case withResponse = 0
    case withoutResponse = 1
}
