import Contract
import Testing

@Suite("Event keys: one name per detail, documented, and the vibration ones as P/vibration spells them")
struct EventKeyTests {
    @Test("Every key an event may carry is in the MQTT reference's events table")
    func everyKeyIsDocumented() {
        let page = MQTTReference.markdown(chipModels: ["CHIP"])
        let events = page.split(separator: "\n").drop { $0 != "## Events" }.prefix { $0 != "## Health keys" }
            .joined(separator: "\n")
        #expect(!events.isEmpty)
        for key in EventKey.allCases {
            // `persisted: false` names the key with the only value it takes.
            #expect(events.contains("`\(key.rawValue)`") || events.contains("`\(key.rawValue): "),
                    "\(key.rawValue) is in no event's details")
        }
    }

    @Test("The vibration figures an event repeats have P/vibration's names")
    func vibrationNamesAgree() {
        #expect(EventKey.velocityRMSMillimetresPerSecond.rawValue == VibrationKey.velocityRMSMillimetresPerSecond.rawValue)
        #expect(EventKey.accelerationRMSG.rawValue == VibrationKey.accelerationRMSG.rawValue)
        #expect(EventKey.vibrationClass.rawValue == VibrationKey.vibrationClass.rawValue)
    }

    @Test("A detail reads and writes by its key")
    func readsAndWritesByKey() {
        var details: [String: JSONValue] = ["reason": .string("because")]
        #expect(details[.reason] == .string("because"))
        details[.persisted] = .bool(false)
        #expect(details["persisted"] == .bool(false))
    }
}
