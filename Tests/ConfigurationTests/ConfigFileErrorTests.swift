import Configuration
import Testing

@Suite("Config file: every problem stops start-up with the key path, line and reason")
struct ConfigFileErrorTests {
    @Test("An unknown top-level key names the sections")
    func unknownSection() {
        let error = parseError("mqtt:\n  host: a\nsensr:\n  kind: sim\n")
        expectError(error, .unknownKey, keyPath: "sensr", line: 3, column: 1,
                    reasonContains: ["Did you mean sensor?", "mqtt, device, sensor, service, control, state_dir, log_level, level"])
    }

    @Test("An unknown key at depth names its full path, the line, and the keys of its section")
    func unknownNestedKey() {
        let error = parseError("mqtt:\n  tls:\n    insecure: false\n    ca_fil: /x\n")
        expectError(error, .unknownKey, keyPath: "mqtt.tls.ca_fil", line: 4, column: 5,
                    reasonContains: ["Did you mean mqtt.tls.ca_file?", "ca_file, cert_file, key_file, insecure"])
    }

    @Test("The ruler service's limits and the device's web page are checked")
    func serviceAndConfigurationURL() {
        expectError(parseError("service:\n  requests_per_s: 0\n"), .invalidValue, keyPath: "service.requests_per_s", line: 2,
                    reasonContains: ["1 to 1000000"])
        expectError(parseError("service:\n  burst: many\n"), .wrongType, keyPath: "service.burst", line: 2)
        expectError(parseError("service:\n  rate: 5\n"), .unknownKey, keyPath: "service.rate", line: 2,
                    reasonContains: ["requests_per_s, burst"])
        expectError(parseError("device:\n  configuration_url: lathe.lan\n"), .invalidValue,
                    keyPath: "device.configuration_url", line: 2, reasonContains: ["http://"])
    }

    @Test("A password in the file is refused, saying where it goes instead")
    func passwordInFile() {
        let error = parseError("mqtt:\n  username: u\n  password: hunter2\n")
        expectError(error, .unknownKey, keyPath: "mqtt.password", line: 3,
                    reasonContains: ["never written in the config file", "password_file", "PLUMB_MQTT_PASSWORD"])
    }

    @Test("A live key outside level:, or in level: when it lives elsewhere, says where it goes")
    func liveKeysInTheWrongPlace() {
        expectError(parseError("level_tolerance: 0.2\n"), .unknownKey, keyPath: "level_tolerance", line: 1,
                    reasonContains: ["level.level_tolerance"])
        expectError(parseError("level:\n  sample_rate_hz: 200\n"), .unknownKey, keyPath: "level.sample_rate_hz",
                    line: 2, reasonContains: ["sensor.sample_rate_hz"])
        expectError(parseError("level:\n  name: Mill\n"), .unknownKey, keyPath: "level.name", line: 2,
                    reasonContains: ["device.name"])
    }

    @Test("A duplicate key is refused at its second line, naming the first")
    func duplicateKey() {
        let error = parseError("sensor:\n  range: 4\n  kind: sim\n  range: 8\n")
        expectError(error, .duplicateKey, keyPath: "sensor.range", line: 4, column: 3,
                    reasonContains: ["first at line 2"])
        expectError(parseError("level: {}\nlevel: {}\n"), .duplicateKey, keyPath: "level", line: 2)
    }

    @Test("A YAML syntax error carries libyaml's problem and line", arguments: [
        ("mqtt:\n  host: [broker\n", 3),
        ("mqtt:\n  host: a\n   port: 1\n", 3),
        ("mqtt:\n\thost: a\n", 2),
        ("device:\n  name: \"unclosed\n", 3),
    ])
    func syntaxError(yaml: String, line: Int) {
        let error = parseError(yaml)
        expectError(error, .syntax, keyPath: nil, line: line, reasonContains: ["YAML syntax error"])
    }

    @Test("Aliases, tags and a second document are refused as syntax")
    func unsupportedYAML() {
        expectError(parseError("mqtt: &m\n  host: a\ndevice: *m\n"), .syntax, keyPath: nil, line: 3,
                    reasonContains: ["aliases"])
        expectError(parseError("sensor:\n  range: !!int 4\n"), .syntax, keyPath: nil, line: 2,
                    reasonContains: ["!!int"])
        expectError(parseError("log_level: info\n---\nlog_level: debug\n"), .syntax, keyPath: nil, line: 2,
                    reasonContains: ["second YAML document"])
    }

    @Test("!!str makes a value text, like quotes")
    func stringTag() throws {
        let error = parseError("sensor:\n  range: !!str 4\n")
        expectError(error, .wrongType, keyPath: "sensor.range", line: 2)
    }

    @Test("A root or section that is not a mapping is a wrong type")
    func sectionsMustBeMappings() {
        expectError(parseError("just text\n"), .wrongType, keyPath: nil, line: 1, reasonContains: ["mapping"])
        expectError(parseError("mqtt: 5\n"), .wrongType, keyPath: "mqtt", line: 1, column: 7)
        expectError(parseError("mqtt:\n  tls: [a, b]\n"), .wrongType, keyPath: "mqtt.tls", line: 2,
                    reasonContains: ["a list"])
        expectError(parseError("- a\n- b\n"), .wrongType, keyPath: nil, line: 1)
    }

    @Test("Wrong types name the key, the line and what is accepted", arguments: [
        ("mqtt:\n  port: abc\n", "mqtt.port", 2, "whole number from 1 to 65535"),
        ("mqtt:\n  port: \"1883\"\n", "mqtt.port", 2, "the text \"1883\""),
        ("mqtt:\n  port: 1883.5\n", "mqtt.port", 2, "whole number"),
        ("mqtt:\n  keepalive: true\n", "mqtt.keepalive", 2, "a boolean"),
        ("mqtt:\n  discovery: yes\n", "mqtt.discovery", 2, "write true or false"),
        ("mqtt:\n  discovery: 1\n", "mqtt.discovery", 2, "true or false"),
        ("mqtt:\n  tls:\n    insecure: \"true\"\n", "mqtt.tls.insecure", 3, "true or false"),
        ("mqtt:\n  host: [a]\n", "mqtt.host", 2, "takes text"),
        ("sensor:\n  range: sixteen\n", "sensor.range", 2, "whole number"),
        ("sensor:\n  address: [0x53]\n", "sensor.address", 2, "0x53"),
        ("sensor:\n  sample_rate_hz: \"100\"\n", "sensor.sample_rate_hz", 2, "takes a number"),
        ("level:\n  level_dwell_s: \"0.5\"\n", "level.level_dwell_s", 2, "takes a number"),
        ("level:\n  level_dwell_s: soon\n", "level.level_dwell_s", 2, "decimal number"),
        ("level:\n  level_tolerance: [1]\n", "level.level_tolerance", 2, "takes an angle"),
        ("level:\n  mount: {x: 1}\n", "level.mount", 2, "takes text"),
    ])
    func wrongType(yaml: String, keyPath: String, line: Int, reason: String) {
        expectError(parseError(yaml), .wrongType, keyPath: keyPath, line: line, reasonContains: [reason])
    }

    @Test("Values out of range or not accepted name the key, the line and what is accepted", arguments: [
        ("mqtt:\n  port: 70000\n", "mqtt.port", 2, "1 to 65535"),
        ("mqtt:\n  port: 0\n", "mqtt.port", 2, "out of range"),
        ("mqtt:\n  keepalive: 2\n", "mqtt.keepalive", 2, "5 to 3600"),
        ("mqtt:\n  url: http://broker\n", "mqtt.url", 2, "mqtt:// or mqtts://"),
        ("mqtt:\n  url: mqtt://user:pw@broker\n", "mqtt.url", 2, "password_file"),
        ("mqtt:\n  url: mqtt://broker:99999\n", "mqtt.url", 2, "1 to 65535"),
        ("mqtt:\n  url: mqtt://broker/topic\n", "mqtt.url", 2, "no path"),
        ("mqtt:\n  url: mqtt://fd00::1\n", "mqtt.url", 2, "brackets"),
        ("mqtt:\n  url: mqtt://\n", "mqtt.url", 2, "host is empty"),
        ("mqtt:\n  host: broker:1883\n", "mqtt.host", 2, "mqtt.port"),
        ("mqtt:\n  host: \"bro ker\"\n", "mqtt.host", 2, "no spaces"),
        ("mqtt:\n  client_id: \"a b\"\n", "mqtt.client_id", 2, "no spaces"),
        ("mqtt:\n  username: \"\"\n", "mqtt.username", 2, "not empty"),
        ("mqtt:\n  username: u\n  password_file: secrets\n", "mqtt.password_file", 3, "absolute path"),
        ("mqtt:\n  base_topic: plumb/#\n", "mqtt.base_topic", 2, "wildcard"),
        ("mqtt:\n  base_topic: /plumb\n", "mqtt.base_topic", 2, "empty level"),
        ("mqtt:\n  discovery_prefix: $SYS\n", "mqtt.discovery_prefix", 2, "reserved"),
        ("mqtt:\n  tls:\n    ca_file: ca.pem\n", "mqtt.tls.ca_file", 3, "absolute path"),
        ("device:\n  id: Lathe 3\n", "device.id", 2, "lower-case letters"),
        ("device:\n  id: \"\"\n", "device.id", 2, "cannot be empty"),
        ("device:\n  name: \"\(String(repeating: "n", count: 65))\"\n", "device.name", 2, "at most 64"),
        ("device:\n  name: \"a\\u0007b\"\n", "device.name", 2, "U+0007"),
        ("sensor:\n  kind: lis3dh\n", "sensor.kind", 2, "auto, adxl345, adxl343, adxl355, mpu6050, mpu6500, mpu9250, sim"),
        ("sensor:\n  bus: i2c-1\n", "sensor.bus", 2, "absolute path"),
        ("sensor:\n  kind: adxl345\n  address: 0x54\n", "sensor.address", 3, "an ADXL345 answers at 0x53 (SDO to GND) or 0x1D (SDO to 3V3)"),
        ("sensor:\n  address: \"0x1E\"\n", "sensor.address", 2, "an MPU-6050 answers at 0x68 (AD0 to GND) or 0x69 (AD0 to 3V3)"),
        ("sensor:\n  kind: adxl345\n  range: 3\n", "sensor.range", 3, "2, 4, 8 or 16"),
        ("sensor:\n  kind: adxl345\n  range: 32\n", "sensor.range", 3, "32 g is not a range of the ADXL345; use 2, 4, 8 or 16"),
        ("sensor:\n  range: 32\n", "sensor.range", 2, "the ADXL355 offers 2, 4 or 8"),
        ("sensor:\n  range: 100\n", "sensor.range", 2, "out of range"),
        ("sensor:\n  sample_rate_hz: 0.5\n", "sensor.sample_rate_hz", 2, "1 Hz to 4000 Hz"),
        ("state_dir: var/lib/plumb\n", "state_dir", 1, "absolute path"),
        ("log_level: verbose\n", "log_level", 1, "debug, info, warning, error"),
        ("log_level: INFO\n", "log_level", 1, "debug, info, warning, error"),
        ("level:\n  angle_unit: radians\n", "level.angle_unit", 2, "deg, percent, mm_per_m, in_per_ft"),
        ("level:\n  length_unit: km\n", "level.length_unit", 2, "mm, cm, m, in, ft"),
        ("level:\n  level_tolerance: 50\n", "level.level_tolerance", 2, "0.001° to 45°"),
        ("level:\n  level_tolerance: 0.1 rad\n", "level.level_tolerance", 2, "\"rad\" is not a unit"),
        ("level:\n  level_tolerance: .nan\n", "level.level_tolerance", 2, "not an angle"),
        ("level:\n  level_hysteresis: -1\n", "level.level_hysteresis", 2, "0° to 10°"),
        ("level:\n  alarm_threshold: 95\n", "level.alarm_threshold", 2, "0.01° to 90°"),
        ("level:\n  level_dwell_s: 4000\n", "level.level_dwell_s", 2, "0 s to 3600 s"),
        ("level:\n  mount: x,y,-z\n", "level.mount", 2, "mirror image"),
        ("level:\n  average_window_s: 100\n", "level.average_window_s", 2, "0.01 s to 60 s"),
        ("level:\n  publish_deadband_deg: 0\n", "level.publish_deadband_deg", 2, "0.001° to 10°"),
        ("level:\n  min_interval_s: -1\n", "level.min_interval_s", 2, "0 s to 3600 s"),
        ("level:\n  heartbeat_s: 100000\n", "level.heartbeat_s", 2, "1 s to 86400 s"),
    ])
    func invalidValue(yaml: String, keyPath: String, line: Int, reason: String) {
        expectError(parseError(yaml), .invalidValue, keyPath: keyPath, line: line, reasonContains: [reason])
    }

    @Test("url together with host or port is a conflict")
    func urlConflictsWithHostAndPort() {
        expectError(parseError("mqtt:\n  url: mqtt://a:1883\n  host: b\n"), .conflict, keyPath: "mqtt.url", line: 2,
                    reasonContains: ["mqtt.host", "not both"])
        expectError(parseError("mqtt:\n  port: 1884\n  url: mqtt://a\n"), .conflict, keyPath: "mqtt.url", line: 3,
                    reasonContains: ["mqtt.port"])
    }

    @Test("A tls section with an mqtt:// URL is a conflict: mqtt:// is never encrypted")
    func tlsWithPlainURL() {
        expectError(parseError("mqtt:\n  url: mqtt://a\n  tls:\n    insecure: false\n"), .conflict,
                    keyPath: "mqtt.url", line: 2, reasonContains: ["mqtts://"])
    }

    @Test("A client certificate without its key, or a password file without a user name, is a conflict")
    func incompletePairs() {
        expectError(parseError("mqtt:\n  tls:\n    cert_file: /c.pem\n"), .conflict, keyPath: "mqtt.tls.cert_file",
                    line: 3, reasonContains: ["key_file"])
        expectError(parseError("mqtt:\n  password_file: /p\n"), .conflict, keyPath: "mqtt.password_file", line: 2,
                    reasonContains: ["mqtt.username"])
    }

    @Test("Combination rules in the file name the key and its line")
    func combinationRules() {
        expectError(parseError("level:\n  level_tolerance: 2\n  alarm_threshold: 1\n"), .conflict,
                    keyPath: "level.alarm_threshold", line: 3, reasonContains: ["must be above"])
        expectError(parseError("level:\n  alarm_threshold: 0.1\n"), .conflict, keyPath: "level.alarm_threshold",
                    line: 2, reasonContains: ["0.1° + 0.02° = 0.12°"])
        expectError(parseError("sensor:\n  sample_rate_hz: 6.25\nlevel:\n  average_window_s: 0.1\n"), .conflict,
                    keyPath: "level.average_window_s", line: 4, reasonContains: ["at least one sample", "0.16"])
        expectError(parseError("level:\n  min_interval_s: 60\n"), .conflict, keyPath: "level.min_interval_s",
                    line: 2, reasonContains: ["heartbeat_s (30 s) must be at least min_interval_s (60 s)"])
    }

    @Test("The description reads file:line:column: key: reason")
    func descriptionShape() throws {
        let error = try #require(parseError("mqtt:\n  port: 70000\n"))
        #expect(error.description.hasPrefix("test.yaml:2:9: mqtt.port: 70000 is out of range"))
        #expect(error.source == "test.yaml")
    }
}


@Suite("control.socket: the control socket's path, or off")
struct ControlSocketConfigTests {
    @Test("The default is /run/plumb/control.sock; off turns it off; an absolute path of at most 107 bytes")
    func socket() throws {
        #expect(try AgentConfiguration.parse(yaml: "", source: "t").control.socket == "/run/plumb/control.sock")
        #expect(try AgentConfiguration.parse(yaml: "control:\n  socket: off\n", source: "t").control.socket == nil)
        #expect(try AgentConfiguration.parse(yaml: "control:\n  socket: /tmp/p.sock\n", source: "t").control.socket == "/tmp/p.sock")
        #expect(throws: ConfigurationError.self) { try AgentConfiguration.parse(yaml: "control:\n  socket: run/p.sock\n", source: "t") }
        let long = "/" + String(repeating: "a", count: 107)
        #expect(throws: ConfigurationError.self) { try AgentConfiguration.parse(yaml: "control:\n  socket: \(long)\n", source: "t") }
        #expect(throws: ConfigurationError.self) { try AgentConfiguration.parse(yaml: "control:\n  path: /tmp/p\n", source: "t") }
    }
}
