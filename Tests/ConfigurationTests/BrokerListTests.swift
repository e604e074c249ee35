import Configuration
import Testing

/// `mqtt.brokers`, `mqtt.failback_s` and `mqtt.session_expiry_s`: the failover list and the
/// persistent session, and every way to get them wrong.
@Suite("Config file: the broker list and the persistent session")
struct BrokerListTests {
    @Test("mqtt.brokers lists the brokers in order, each with its port or the scheme's")
    func brokersInOrder() throws {
        let config = try parse("mqtt:\n  brokers:\n    - mqtt://a.lan:1884\n    - mqtt://b.lan\n    - mqtt://[fd00::3]:1999\n")
        #expect(config.mqtt.brokers.map(\.host) == ["a.lan", "b.lan", "fd00::3"])
        #expect(config.mqtt.brokers.map(\.port) == [1884, 1883, 1999])
        #expect(config.mqtt.host == "a.lan" && config.mqtt.port == 1884, "host and port are the first's")
        #expect(config.mqtt.urls == ["mqtt://a.lan:1884", "mqtt://b.lan:1883", "mqtt://[fd00::3]:1999"])
        #expect(config.mqtt.url == "mqtt://a.lan:1884")
        #expect(config.mqtt.tls == nil)
    }

    @Test("mqtts:// brokers share the tls section; the flow form works too")
    func tlsBrokers() throws {
        let config = try parse("mqtt:\n  brokers: [mqtts://a.lan, mqtts://b.lan:8884]\n  tls:\n    ca_file: /etc/ca.pem\n")
        #expect(config.mqtt.brokers.map(\.port) == [8883, 8884])
        #expect(config.mqtt.tls?.caFile == "/etc/ca.pem")
        #expect(config.mqtt.urls == ["mqtts://a.lan:8883", "mqtts://b.lan:8884"])
    }

    @Test("Without a list there is one broker, as before; the defaults of the new keys")
    func defaults() throws {
        let config = try parse("mqtt:\n  url: mqtt://only.lan\n")
        #expect(config.mqtt.brokers.count == 1)
        #expect(config.mqtt.failbackS == 60)
        #expect(config.mqtt.sessionExpiryS == 86_400, "one day")
        #expect(try parse("").mqtt.urls == ["mqtt://localhost:1883"])
    }

    @Test("failback_s and session_expiry_s are read, 0 turning the persistent session off")
    func failbackAndExpiry() throws {
        let config = try parse("mqtt:\n  failback_s: 5\n  session_expiry_s: 0\n")
        #expect(config.mqtt.failbackS == 5)
        #expect(config.mqtt.sessionExpiryS == 0)
        #expect(try parse("mqtt:\n  session_expiry_s: 4294967295\n").mqtt.sessionExpiryS == 4_294_967_295)
    }

    @Test("Out of range or of the wrong type, failback_s and session_expiry_s say what they take")
    func badFailbackAndExpiry() {
        expectError(parseError("mqtt:\n  failback_s: 1\n"), .invalidValue, keyPath: "mqtt.failback_s", line: 2,
                    reasonContains: ["5 to 86400"])
        expectError(parseError("mqtt:\n  failback_s: soon\n"), .wrongType, keyPath: "mqtt.failback_s", line: 2)
        expectError(parseError("mqtt:\n  session_expiry_s: -1\n"), .invalidValue, keyPath: "mqtt.session_expiry_s",
                    line: 2, reasonContains: ["0 to 4294967295", "0: none"])
        expectError(parseError("mqtt:\n  session_expiry_s: 4294967296\n"), .invalidValue,
                    keyPath: "mqtt.session_expiry_s", line: 2)
    }

    @Test("receive_maximum, inbound_probe_s and service.request_timeout_s: defaults, values, and their ranges")
    func inboundKeys() throws {
        let defaults = try parse("")
        #expect(defaults.mqtt.receiveMaximum == 65_535)
        #expect(defaults.mqtt.inboundProbeS == 30)
        #expect(defaults.service.requestTimeoutS == 30)
        let set = try parse("mqtt:\n  receive_maximum: 20\n  inbound_probe_s: 2\nservice:\n  request_timeout_s: 5\n")
        #expect(set.mqtt.receiveMaximum == 20)
        #expect(set.mqtt.inboundProbeS == 2)
        #expect(set.service.requestTimeoutS == 5)
        expectError(parseError("mqtt:\n  receive_maximum: 0\n"), .invalidValue, keyPath: "mqtt.receive_maximum", line: 2,
                    reasonContains: ["1 to 65535"])
        expectError(parseError("mqtt:\n  receive_maximum: 65536\n"), .invalidValue, keyPath: "mqtt.receive_maximum",
                    line: 2)
        // Above 50 a stall could go unfound for more than a minute.
        expectError(parseError("mqtt:\n  inbound_probe_s: 51\n"), .invalidValue, keyPath: "mqtt.inbound_probe_s",
                    line: 2, reasonContains: ["2 to 50"])
        expectError(parseError("mqtt:\n  inbound_probe_s: often\n"), .wrongType, keyPath: "mqtt.inbound_probe_s", line: 2)
        expectError(parseError("service:\n  request_timeout_s: 0\n"), .invalidValue,
                    keyPath: "service.request_timeout_s", line: 2, reasonContains: ["1 to 86400"])
    }

    @Test("mqtt.brokers with url, host or port is refused, saying to list every broker", arguments: [
        "url: mqtt://a.lan", "host: a.lan", "port: 1883",
    ])
    func brokersWithASingleBroker(other: String) {
        let key = String(other.prefix { $0 != ":" })
        expectError(parseError("mqtt:\n  brokers: [mqtt://b.lan]\n  \(other)\n"), .conflict, keyPath: "mqtt.brokers",
                    line: 2, reasonContains: ["mqtt.brokers and mqtt.\(key) are both set", "remove mqtt.\(key)"])
    }

    @Test("An empty list, a list of nothing, and a broker that is not a URL are refused")
    func badLists() {
        expectError(parseError("mqtt:\n  brokers: []\n"), .invalidValue, keyPath: "mqtt.brokers", line: 2,
                    reasonContains: ["the list is empty", "- mqtt://broker-a.lan:1883"])
        expectError(parseError("mqtt:\n  brokers: mqtt://a.lan\n"), .wrongType, keyPath: "mqtt.brokers", line: 2,
                    reasonContains: ["a list of broker URLs", "found the text"])
        expectError(parseError("mqtt:\n  brokers: [mqtt://a.lan, {host: b}]\n"), .wrongType,
                    keyPath: "mqtt.brokers[1]", line: 2, reasonContains: ["not a mapping"])
        expectError(parseError("mqtt:\n  brokers:\n    - mqtt://a.lan\n    - http://b.lan\n"), .invalidValue,
                    keyPath: "mqtt.brokers[1]", line: 4, reasonContains: ["mqtt:// or mqtts://"])
        let many = (0...16).map { "mqtt://b\($0).lan" }.joined(separator: ", ")
        expectError(parseError("mqtt:\n  brokers: [\(many)]\n"), .invalidValue, keyPath: "mqtt.brokers", line: 2,
                    reasonContains: ["at most 16"])
    }

    @Test("The same broker twice is refused at its second place, whatever the case of the host or the port's spelling")
    func duplicates() {
        expectError(parseError("mqtt:\n  brokers:\n    - mqtt://a.lan\n    - mqtt://b.lan\n    - mqtt://A.lan:1883\n"),
                    .invalidValue, keyPath: "mqtt.brokers[2]", line: 5,
                    reasonContains: ["mqtt.brokers[0] again", "list each broker once"])
        #expect((try? parse("mqtt:\n  brokers: [mqtt://a.lan, mqtt://a.lan:1884]\n")) != nil, "another port is another broker")
    }

    @Test("mqtt:// and mqtts:// are not mixed: the brokers share one TLS setting")
    func mixedTLS() {
        expectError(parseError("mqtt:\n  brokers: [mqtts://a.lan, mqtt://b.lan]\n"), .conflict, keyPath: "mqtt.brokers",
                    line: 2, reasonContains: ["mixes mqtt:// and mqtts://", "all of them with mqtts://"])
        expectError(parseError("mqtt:\n  brokers: [mqtt://a.lan]\n  tls:\n    insecure: false\n"), .conflict,
                    keyPath: "mqtt.brokers", line: 2, reasonContains: ["never encrypted", "use mqtts://"])
    }

    @Test("--broker replaces the whole list: one broker, no failover")
    func overrideReplacesTheList() throws {
        var config = try parse("mqtt:\n  brokers: [mqtt://a.lan, mqtt://b.lan]\n")
        try config.apply(overrides: ConfigurationOverrides(broker: "mqtt://c.lan:1999"))
        #expect(config.mqtt.urls == ["mqtt://c.lan:1999"])
    }
}
