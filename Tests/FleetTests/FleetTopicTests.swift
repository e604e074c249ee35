import Contract
import Fleet
import Testing

@Suite("Fleet topics and sites")
struct FleetTopicTests {
    @Test(arguments: FleetLeaf.allCases)
    func everyLeafIsTheContractsTopicName(leaf: FleetLeaf) {
        let topics = Topics(baseTopic: "plumb/hall-2", deviceID: "lathe")
        let contract: [FleetLeaf: String] = [
            .status: topics.status, .state: topics.state, .level: topics.level, .config: topics.config,
            .health: topics.health, .calibration: topics.calibration, .vibration: topics.vibration,
        ]
        #expect(contract[leaf] == topics.prefix + "/" + leaf.rawValue)
        let parsed = FleetTopic(topics.prefix + "/" + leaf.rawValue, under: "plumb")
        #expect(parsed == FleetTopic(baseTopic: "plumb/hall-2", deviceID: "lathe", leaf: leaf))
    }

    @Test func devicesAreFoundAtAnyDepthUnderTheBase() {
        #expect(FleetTopic("plumb/lathe/state", under: "plumb")
            == FleetTopic(baseTopic: "plumb", deviceID: "lathe", leaf: .state))
        #expect(FleetTopic("plumb/site/hall-2/mill/status", under: "plumb")
            == FleetTopic(baseTopic: "plumb/site/hall-2", deviceID: "mill", leaf: .status))
        #expect(FleetTopic("plumb/hall-2/mill/status", under: "plumb/hall-2")
            == FleetTopic(baseTopic: "plumb/hall-2", deviceID: "mill", leaf: .status))
    }

    @Test(arguments: [
        "plumb/lathe/bubble",          // not a topic the fleet reads
        "plumb/lathe/event",
        "plumb/state",                 // no device level
        "plumbing/lathe/state",        // not under the base, only sharing its first letters
        "other/lathe/state",
        "plumb/Lathe/state",           // not a device id: capitals
        "plumb/la the/state",
        "plumb//state",
        "plumb/lathe/config/set",
        "plumb",
        "",
    ])
    func otherTopicsAreNoDevicesTopics(topic: String) {
        #expect(FleetTopic(topic, under: "plumb") == nil)
    }

    @Test func aDeviceIDIsAtMost64Characters() {
        #expect(FleetTopic("plumb/" + String(repeating: "a", count: 64) + "/state", under: "plumb") != nil)
        #expect(FleetTopic("plumb/" + String(repeating: "a", count: 65) + "/state", under: "plumb") == nil)
    }

    @Test func theSiteIsTheBaseTopicAfterItsFirstLevel() {
        #expect(FleetTopic.site(ofBaseTopic: "plumb") == nil)
        #expect(FleetTopic.site(ofBaseTopic: "plumb/hall-2") == "hall-2")
        #expect(FleetTopic.site(ofBaseTopic: "plumb/site/hall-2") == "site/hall-2")
        // Whatever base the fleet is listed under, a device shows the same site.
        var wide = Fleet(baseTopic: "plumb")
        var narrow = Fleet(baseTopic: "plumb/hall-2")
        wide.receive(topic: "plumb/hall-2/mill/status", payload: Array("online".utf8))
        narrow.receive(topic: "plumb/hall-2/mill/status", payload: Array("online".utf8))
        #expect(wide.devices.map(\.site) == ["hall-2"])
        #expect(narrow.devices.map(\.site) == ["hall-2"])
    }
}
