import Foundation

/// What services, characteristics and descriptors share (`CBAttribute`): a UUID.
open class CBAttribute: NSObject {
    public var uuid: CBUUID { attributeUUID }
    var attributeUUID: CBUUID

    init(uuid: CBUUID) {
        attributeUUID = uuid
        super.init()
    }
}
