@testable import Agent
import Contract
import Geometry
import HomeAssistant
import Level
import MQTT
import Testing

/// What the MQTT reference's topic table says of the retain flag and the QoS is what the agent
/// publishes with: the table is written from ``ContractTopic``, the flags from ``Publication``.
@Suite("Publications: the retain flag and QoS the MQTT reference gives each topic")
struct PublicationContractTests {
    @Test("Every kind of publication goes out retained and at the QoS of its row in the topic table")
    func publicationsMatchTheTopicTable() throws {
        let topics = Topics(baseTopic: "plumb", deviceID: "bench")
        let reading = ReadingFigures(attitude: nil, unit: .deg, level: nil, stable: false,
                                     gravity: Vector3(x: 0, y: 0, z: 1))
        let zeroed = AgentEvent(type: .zeroed, encoded: ["reference": .null])
        let result = try #require(CommandResult(zeroed))
        // One of each case of Publication but `clear`, which deletes a desired config rather than
        // publishing a topic of its own.
        let cases: [(Publication, ContractTopic)] = [
            (.status(online: true), .status),
            (.state(StatePayload(reading: reading, alarm: nil, sensorOK: true, seq: 1), reason: .birth), .state),
            (.level(true), .level),
            (.config([]), .config),
            (.calibration(nil), .calibration),
            (.health([:]), .health),
            (.event(zeroed), .event),
            (.result(result), .result),
            (.bubble(png: [0x89, 0x50]), .bubble),
            (.vibration(nil), .vibration),
            (.discovery(DiscoveryMessage(topic: "homeassistant/sensor/plumb_bench/tilt/config", payload: [])), .discovery),
        ]
        for (publication, row) in cases {
            let topic = publication.topic(in: topics)
            if row.pattern.hasPrefix("P/") { #expect(topic == topics.prefix + row.pattern.dropFirst()) }
            #expect(row.direction != .inbound, "\(topic)")
            #expect(row.retention == (publication.retain ? .retained : .notRetained), "\(topic)")
            #expect(row.qos.rawValue == String(publication.qos.rawValue), "\(topic) goes out at QoS \(publication.qos.rawValue)")
        }
    }
}
