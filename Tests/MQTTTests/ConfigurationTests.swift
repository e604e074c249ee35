#if canImport(Glibc)
import Glibc
#endif
@testable import MQTT
import Testing

@Suite("Configuration and errors")
struct ConfigurationTests {
    @Test("Broker URLs give host, port and TLS", arguments: [
        ("mqtt://broker.local", "broker.local", 1883, false),
        ("mqtt://broker.local:1884", "broker.local", 1884, false),
        ("mqtts://broker.local", "broker.local", 8883, true),
        ("MQTTS://10.0.0.2:443/", "10.0.0.2", 443, true),
        ("mqtt://[::1]:1883", "::1", 1883, false),
    ])
    func parsesURLs(url: String, host: String, port: Int, tls: Bool) throws {
        let configuration = try MQTTConfiguration.parse(url: url, clientID: "plumb-bench")
        #expect(configuration.host == host)
        #expect(configuration.port == port)
        #expect((configuration.tls != nil) == tls)
        #expect(configuration.tls?.verifyPeer ?? true, "verification is on by default")
        #expect(configuration.clientID == "plumb-bench")
    }

    @Test("Bad broker URLs are refused with a clear reason", arguments: [
        ("http://broker.local", "scheme \"http\""),
        ("broker.local:1883", "no scheme"),
        ("mqtt://", "host is missing"),
        ("mqtt://:1883", "host is missing"),
        ("mqtt://broker.local:0", "port \"0\""),
        ("mqtt://broker.local:65536", "port \"65536\""),
        ("mqtt://broker.local:abc", "port \"abc\""),
        ("mqtt://user:pw@broker.local", "credentials"),
        ("mqtt://broker.local/plumb", "no path"),
    ])
    func refusesBadURLs(url: String, why: String) {
        let error = #expect(throws: MQTTError.self) { try MQTTConfiguration.parse(url: url) }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.reason.contains(why) == true, "\(String(describing: error))")
        #expect(error?.description.contains("mqtt://host:port") == true)
    }

    @Test("The description hides the password")
    func descriptionHidesPassword() {
        let configuration = MQTTConfiguration(clientID: "c", username: "plumb", password: "hunter2")
        #expect(!configuration.description.contains("hunter2"))
        #expect(configuration.description.contains("with password"))
    }

    @Test("CONNACK refusals map to codes; MQTT 5 reason codes below 0x80 are successes", arguments: [
        (MQTTProtocolVersion.v311, Int32(0), nil),
        (.v311, 1, MQTTError.Code.protocol),
        (.v311, 3, .brokerRefused),
        (.v311, 4, .badCredentials),
        (.v311, 5, .notAuthorized),
        (.v5, 0, nil),
        (.v5, 0x10, nil),
        (.v5, 0x84, .protocol),
        (.v5, 0x86, .badCredentials),
        (.v5, 0x87, .notAuthorized),
        (.v5, 0x8A, .brokerRefused),
    ])
    func connackMapping(version: MQTTProtocolVersion, reason: Int32, code: MQTTError.Code?) {
        let context = MQTTError.Context(MQTTConfiguration(host: "h", port: 1883, clientID: "c"))
        let error = MQTTError(connack: reason, version: version, context: context)
        #expect(error?.code == code)
        #expect(error.map { $0.broker == "h:1883" } ?? true)
    }

    @Test("A reason that ends with a full stop gets no second one before the advice")
    func descriptionSentences() {
        // libmosquitto's own text for MOSQ_ERR_CONN_LOST ends with a full stop.
        let lost = MQTTError(code: .connectionLost, reason: "The connection was lost.", broker: "broker:1883")
        #expect(!lost.description.contains(".."), "\(lost.description)")
        #expect(lost.description.contains("The connection was lost. The client reconnects"))
        let refused = MQTTError(code: .connectionRefused, reason: "ECONNREFUSED", broker: "broker:1883")
        #expect(refused.description.contains("ECONNREFUSED. Is mosquitto running"))
    }

    @Test("Socket errors map to codes with advice")
    func errnoMapping() {
        let context = MQTTError.Context(MQTTConfiguration(host: "broker", port: 1883, clientID: "c"))
        let refused = MQTTError(errno: ECONNREFUSED, phase: .connecting, context: context)
        #expect(refused.code == .connectionRefused)
        #expect(refused.description.contains("ECONNREFUSED"))
        #expect(refused.description.contains("Is mosquitto running on broker:1883?"))
        #expect(MQTTError(errno: ECONNRESET, phase: .connected, context: context).code == .connectionLost)
        #expect(MQTTError(errno: EPROTO, phase: .connecting, context: context).code == .tls)
    }

    @Test("Configurations that can never connect are refused at start", arguments: [
        MQTTConfiguration(clientID: "c", keepAlive: 3),
        MQTTConfiguration(port: 70000, clientID: "c"),
        MQTTConfiguration(host: "", clientID: "c"),
        MQTTConfiguration(clientID: "c", password: "no user"),
        MQTTConfiguration(clientID: "", cleanSession: false),
        MQTTConfiguration(clientID: "c", will: MQTTWill(topic: "bad/#", payload: "x")),
    ])
    func refusedAtStart(configuration: MQTTConfiguration) async {
        let client = MosquittoClient(configuration: configuration)
        let error = #expect(throws: MQTTError.self) { try client.start() }
        #expect(error?.code == .invalidConfiguration || error?.code == .invalidTopic)
        await client.disconnect()
    }
}
