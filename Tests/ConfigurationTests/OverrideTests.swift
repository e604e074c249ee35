import Accelerometers
import Configuration
import Contract
import Settings
import Testing

@Suite("Command-line overrides")
struct OverrideTests {
    private func overridden(_ yaml: String = "",
                            _ overrides: ConfigurationOverrides) throws(ConfigurationError) -> AgentConfiguration {
        var config = try parse(yaml)
        try config.apply(overrides: overrides)
        return config
    }

    @Test("Nothing overridden changes nothing")
    func emptyOverrides() throws {
        let yaml = ConfigFileTests.everyKey
        #expect(try overridden(yaml, ConfigurationOverrides()) == (try parse(yaml)))
    }

    @Test("The sensor kind and the state directory replace the file's")
    func sensorAndStateDirectory() throws {
        let config = try overridden("sensor:\n  kind: adxl345\nstate_dir: /var/lib/plumb\n",
                                    ConfigurationOverrides(sensorKind: .sim, stateDirectory: "./state"))
        #expect(config.sensor.kind == .sim)
        #expect(config.stateDirectory == "./state")
    }

    @Test("The broker URL replaces host, port and TLS from the file")
    func broker() throws {
        let plain = try overridden("mqtt:\n  host: a\n  port: 1999\n", ConfigurationOverrides(broker: "mqtt://b"))
        #expect(plain.mqtt.host == "b")
        #expect(plain.mqtt.port == 1883)
        #expect(plain.mqtt.tls == nil)
        let secure = try overridden("mqtt:\n  host: a\n", ConfigurationOverrides(broker: "mqtts://c:8884"))
        #expect(secure.mqtt.url == "mqtts://c:8884")
        #expect(secure.mqtt.tls?.insecure == false)
        let keepsFiles = try overridden("mqtt:\n  url: mqtts://a\n  tls:\n    ca_file: /ca.pem\n",
                                        ConfigurationOverrides(broker: "mqtts://d"))
        #expect(keepsFiles.mqtt.tls?.caFile == "/ca.pem")
    }

    @Test("An invalid broker, or mqtt:// over a file's TLS settings, is refused and changes nothing")
    func invalidBroker() throws {
        let original = try parse("mqtt:\n  url: mqtts://a\n  tls:\n    ca_file: /ca.pem\n")
        for broker in ["http://b", "b:1883", "mqtt://b:0", "mqtt://user:pw@b", "mqtt://b"] {
            var config = original
            do {
                try config.apply(overrides: ConfigurationOverrides(sensorKind: .sim, broker: broker))
                Issue.record("\(broker) was accepted")
            } catch {
                #expect(error.code == .invalidOverride)
                #expect(error.source == "command line")
                #expect(error.keyPath == "mqtt.url")
                #expect(error.line == nil)
            }
            #expect(config == original, "a refused override leaves everything unchanged")
        }
    }

    @Test("A device id must be [a-z0-9_-]+", arguments: ["Lathe", "a b", "", "ü", String(repeating: "a", count: 65)])
    func invalidDeviceID(id: String) throws {
        var config = try parse("")
        do {
            try config.apply(overrides: ConfigurationOverrides(deviceID: id))
            Issue.record("\(id) was accepted")
        } catch {
            #expect(error.code == .invalidOverride)
            #expect(error.keyPath == "device.id")
        }
    }

    @Test("A new device id carries the client id and names the file left to their defaults")
    func deviceIDCarriesDerivedDefaults() throws {
        let derived = try overridden("", ConfigurationOverrides(deviceID: "mill_2"))
        #expect(derived.device.id == "mill_2")
        #expect(derived.mqtt.clientID == "plumb-mill_2")
        #expect(derived.device.name == "Plumb mill_2")
        #expect(derived.level.name == "Plumb mill_2")

        let explicit = try overridden("mqtt:\n  client_id: fixed\ndevice:\n  id: a\n  name: The Mill\n",
                                      ConfigurationOverrides(deviceID: "b"))
        #expect(explicit.device.id == "b")
        #expect(explicit.mqtt.clientID == "fixed")
        #expect(explicit.device.name == "The Mill")
        #expect(explicit.level.name == "The Mill")
    }

    @Test("An empty state directory is refused")
    func emptyStateDirectory() throws {
        var config = try parse("")
        #expect(throws: ConfigurationError.self) {
            try config.apply(overrides: ConfigurationOverrides(stateDirectory: ""))
        }
    }
}
