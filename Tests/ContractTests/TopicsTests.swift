import Contract
import Testing

@Suite("Topics under P = <base_topic>/<device_id>")
struct TopicsTests {
    let topics = Topics(baseTopic: "plumb", deviceID: "bench")

    @Test func theFixedTopics() {
        #expect([topics.status, topics.state, topics.level, topics.event, topics.config, topics.health, topics.bubble,
                topics.calibration]
            == ["status", "state", "level", "event", "config", "health", "bubble", "calibration"].map { "plumb/bench/" + $0 })
        #expect(topics.configSet == "plumb/bench/config/set")
        #expect(topics.configKeySetFilter == "plumb/bench/config/+/set")
        #expect(topics.configStrayFilter == "plumb/bench/config/+/+/+/#")
        #expect(topics.configFilters == ["plumb/bench/config/set", "plumb/bench/config/+/set", "plumb/bench/config/+/+/+/#"])
        #expect(topics.isUnderConfig("plumb/bench/config//set") && topics.isUnderConfig("plumb/bench/config/a/b/set"))
        #expect(!topics.isUnderConfig("plumb/bench/config") && !topics.isUnderConfig("plumb/bench/configx/set"))
        #expect(topics.commandFilter == "plumb/bench/command/+")
        #expect(topics.requestFilter == "plumb/bench/request/+")
    }

    @Test func commandsRoundTripAndUnknownNamesStillParse() {
        for command in Command.allCases {
            #expect(topics.commandName(of: topics.command(command)) == command.rawValue)
        }
        // An unknown name is still a command topic: the agent answers it with the list.
        #expect(topics.commandName(of: "plumb/bench/command/level") == "level")
        #expect(topics.commandName(of: "plumb/bench/command/") == nil)
        #expect(topics.commandName(of: "plumb/bench/command/zero/now") == nil)
        #expect(topics.commandName(of: "plumb/other/command/zero") == nil)
    }

    @Test func requestsAndResponses() {
        for service in RulerServiceName.allCases {
            #expect(topics.requestService(of: topics.request(service)) == service.rawValue)
        }
        #expect(topics.response("shim") == "plumb/bench/response/shim")
        #expect(topics.requestService(of: "plumb/bench/request/a/b") == nil)
    }

    @Test func configKeys() {
        #expect(topics.configKey(ofSetTopic: topics.configSet(key: "mount")) == "mount")
        #expect(topics.configKey(ofSetTopic: topics.configSet) == nil)
        #expect(topics.configKey(ofSetTopic: "plumb/bench/config/a/b/set") == nil)
        #expect(topics.configKey(ofSetTopic: "plumb/bench/config/mount") == nil)
    }
}
