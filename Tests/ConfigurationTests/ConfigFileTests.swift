import Accelerometers
import Configuration
import Contract
import Geometry
import I2C
import Settings
import Testing

@Suite("Config file: keys and defaults")
struct ConfigFileTests {
    static let everyKey = """
        # every key, none at its default
        mqtt:
          host: broker.lan
          port: 8884
          failback_s: 30
          session_expiry_s: 3600
          client_id: lathe-client
          keepalive: 30
          username: plumb
          password_file: /etc/plumb/mqtt-password
          tls:
            ca_file: /etc/plumb/ca.crt
            cert_file: /etc/plumb/client.crt
            key_file: /etc/plumb/client.key
            insecure: true
          base_topic: factory/plumb
          discovery_prefix: ha
          discovery: false
        device:
          id: lathe-3
          name: Lathe 3
          configuration_url: https://lathe-3.lan/
        service:
          requests_per_s: 500
          burst: 20
        sensor:
          kind: sim
          bus: /dev/i2c-3
          address: 0x1D
          range: 4
          sample_rate_hz: 200
        state_dir: /srv/plumb
        log_level: debug
        level:
          angle_unit: mm_per_m
          length_unit: in
          level_tolerance: 1.5 mm/m
          level_hysteresis: "0.2%"
          alarm_threshold: 3
          level_dwell_s: 2
          mount: x,-z,y
          average_window_s: 0.5
          publish_deadband_deg: 0.01
          min_interval_s: 1
          heartbeat_s: 60
        """

    @Test("Every key of every section is read")
    func everyKeyIsRead() throws {
        let config = try parse(Self.everyKey)
        #expect(config.mqtt.host == "broker.lan")
        #expect(config.device.configurationURL == "https://lathe-3.lan/")
        #expect(config.service.requestsPerSecond == 500 && config.service.burst == 20)
        #expect(config.mqtt.port == 8884)
        #expect(config.mqtt.failbackS == 30)
        #expect(config.mqtt.sessionExpiryS == 3600)
        #expect(config.mqtt.clientID == "lathe-client")
        #expect(config.mqtt.keepalive == 30)
        #expect(config.mqtt.username == "plumb")
        #expect(config.mqtt.passwordFile == "/etc/plumb/mqtt-password")
        #expect(config.mqtt.password == nil, "parse never reads the password")
        let tls = try #require(config.mqtt.tls)
        #expect(tls.caFile == "/etc/plumb/ca.crt")
        #expect(tls.certFile == "/etc/plumb/client.crt")
        #expect(tls.keyFile == "/etc/plumb/client.key")
        #expect(tls.insecure)
        #expect(config.mqtt.baseTopic == "factory/plumb")
        #expect(config.mqtt.discoveryPrefix == "ha")
        #expect(config.mqtt.discovery == false)
        #expect(config.mqtt.url == "mqtts://broker.lan:8884")
        #expect(config.device.id == "lathe-3")
        #expect(config.device.name == "Lathe 3")
        #expect(config.sensor.kind == .sim)
        #expect(config.sensor.bus == "/dev/i2c-3")
        #expect(config.sensor.address == I2CAddress(0x1D))
        #expect(config.sensor.range == 4)
        #expect(config.stateDirectory == "/srv/plumb")
        #expect(config.logLevel == .debug)

        let level = config.level
        #expect(level.angleUnit == .mmPerM)
        #expect(level.lengthUnit == .in)
        #expect(level.levelTolerance == Angle(1.5, unit: .mmPerM))
        #expect(level.levelHysteresis == Angle(0.2, unit: .percent))
        #expect(level.alarmThreshold == Angle(degrees: 3))
        #expect(level.levelDwellS == 2)
        #expect(level.mount == .custom(try AxisRemap(parsing: "x,-z,y")))
        #expect(level.sampleRateHz == 200)
        #expect(level.averageWindowS == 0.5)
        #expect(level.publishDeadbandDeg == 0.01)
        #expect(level.minIntervalS == 1)
        #expect(level.heartbeatS == 60)
        #expect(level.name == "Lathe 3", "the display name is the device's name")
    }

    @Test("An empty file, a file of comments and a bare --- all give every default",
          arguments: ["", "# nothing here\n\n# at all\n", "---\n", "mqtt:\nsensor: ~\nlevel:\n"])
    func emptyMeansDefaults(yaml: String) throws {
        let config = try parse(yaml)
        #expect(config == (try parse("")))
        #expect(config.mqtt.host == "localhost")
        #expect(config.mqtt.port == 1883)
        #expect(config.mqtt.tls == nil)
        #expect(config.mqtt.clientID == "plumb-testhost")
        #expect(config.mqtt.keepalive == 60)
        #expect(config.mqtt.username == nil)
        #expect(config.mqtt.passwordFile == nil)
        #expect(config.mqtt.baseTopic == "plumb")
        #expect(config.mqtt.discoveryPrefix == "homeassistant")
        #expect(config.mqtt.discovery)
        #expect(config.device.id == "testhost")
        #expect(config.device.name == "Plumb testhost")
        #expect(config.device.configurationURL == nil)
        #expect(config.service.requestsPerSecond == 200 && config.service.burst == 50)
        #expect(config.sensor.kind == .auto, "the one supported chip on the bus")
        #expect(config.sensor.bus == "/dev/i2c-1")
        #expect(config.sensor.address == nil && config.sensor.chipAddress == nil, "wherever the scan finds it")
        #expect(config.sensor.range == nil, "the chip's default range")
        #expect(config.stateDirectory == "/var/lib/plumb")
        #expect(config.logLevel == .info)
        #expect(config.level == LiveSettings().applyingName("Plumb testhost"))
    }

    @Test("Live defaults: 0.1° tolerance, 0.02° hysteresis, 5° alarm, 3 s dwell, 100 Hz, 1 s window")
    func liveDefaults() {
        let defaults = LiveSettings()
        #expect(defaults.angleUnit == .deg)
        #expect(defaults.lengthUnit == .mm)
        #expect(defaults.levelTolerance == Angle(degrees: 0.1))
        #expect(defaults.levelHysteresis == Angle(degrees: 0.02))
        #expect(defaults.alarmThreshold == Angle(degrees: 5))
        #expect(defaults.levelDwellS == 3)
        #expect(defaults.mount == .flat)
        #expect(defaults.sampleRateHz == 100)
        #expect(defaults.averageWindowS == 1)
        #expect(defaults.publishDeadbandDeg == 0.05)
        #expect(defaults.minIntervalS == 0.5)
        #expect(defaults.heartbeatS == 30)
        #expect(defaults.name == "Plumb")
    }

    @Test("The default path is /etc/plumb/plumb.yaml")
    func defaultPath() {
        #expect(AgentConfiguration.defaultPath == "/etc/plumb/plumb.yaml")
    }

    @Test("The device id defaults to the host name, lower-cased, other characters as _, never empty",
          arguments: [
              ("raspberrypi", "raspberrypi"), ("Pi.Workshop", "pi_workshop"), ("LATHE-3", "lathe-3"),
              ("my pi", "my_pi"), ("Ünïcode", "_n_code"), ("", "plumb"), ("under_score", "under_score"),
          ])
    func hostnameSanitisation(hostname: String, id: String) throws {
        #expect(AgentConfiguration.deviceID(fromHostname: hostname) == id)
        let config = try parse("", hostname: hostname)
        #expect(config.device.id == id)
        #expect(config.device.name == "Plumb " + id)
        #expect(config.mqtt.clientID == "plumb-" + id)
    }

    @Test("A long host name gives a 64-character id and a name cut to 64 characters")
    func longHostname() throws {
        let config = try parse("", hostname: String(repeating: "a", count: 100))
        #expect(config.device.id == String(repeating: "a", count: 64))
        #expect(config.device.name.count == 64)
        #expect(config.level.name == config.device.name)
    }

    @Test("url mqtt:// and mqtts:// set host, port and TLS; the port defaults by scheme",
          arguments: [
              ("mqtt://broker.lan:1884", "broker.lan", 1884, false),
              ("mqtt://broker.lan", "broker.lan", 1883, false),
              ("mqtts://broker.lan", "broker.lan", 8883, true),
              ("MQTTS://10.0.0.5:9999/", "10.0.0.5", 9999, true),
              ("mqtt://[fd00::1]:1883", "fd00::1", 1883, false),
          ])
    func brokerURL(url: String, host: String, port: Int, tls: Bool) throws {
        let config = try parse("mqtt:\n  url: \(url)\n")
        #expect(config.mqtt.host == host)
        #expect(config.mqtt.port == port)
        #expect((config.mqtt.tls != nil) == tls)
        #expect(config.mqtt.tls?.insecure != true, "verification is on by default")
    }

    @Test("host and port without tls is plain TCP; a tls section turns TLS on and the port to 8883")
    func hostAndPort() throws {
        let plain = try parse("mqtt:\n  host: 192.168.1.4\n  port: 1999\n")
        #expect(plain.mqtt.host == "192.168.1.4")
        #expect(plain.mqtt.port == 1999)
        #expect(plain.mqtt.tls == nil)
        #expect(plain.mqtt.url == "mqtt://192.168.1.4:1999")
        let tls = try parse("mqtt:\n  host: broker\n  tls: {}\n")
        #expect(tls.mqtt.port == 8883)
        #expect(tls.mqtt.tls?.caFile == nil)
        #expect(tls.mqtt.tls?.insecure == false)
        let ipv6 = try parse("mqtt:\n  host: fd00::1\n")
        #expect(ipv6.mqtt.url == "mqtt://[fd00::1]:1883")
    }

    @Test("mqtts:// with a tls section keeps the section's files")
    func urlWithTLSSection() throws {
        let config = try parse("mqtt:\n  url: mqtts://b\n  tls:\n    ca_file: /etc/ca.pem\n")
        #expect(config.mqtt.tls?.caFile == "/etc/ca.pem")
        #expect(config.mqtt.port == 8883)
    }

    @Test("The sensor address is accepted as a YAML integer or a string",
          arguments: [("0x53", 0x53), ("83", 0x53), ("\"0x1D\"", 0x1D), ("'0x1d'", 0x1D), ("29", 0x1D)])
    func sensorAddressForms(text: String, address: Int) throws {
        let config = try parse("sensor:\n  address: \(text)\n")
        #expect(config.sensor.address == I2CAddress(address))
    }

    @Test("Every range of every chip, and every rate any chip offers, is accepted")
    func rangesAndRates() throws {
        for chip in ChipCatalog.all {
            for range in chip.rangesG {
                #expect(try parse("sensor:\n  kind: \(chip.kind)\n  range: \(range)\n").sensor.range == range)
            }
            for rate in chip.rates {
                // The window must hold a sample, so the slowest rates need a longer one.
                let yaml = "sensor:\n  kind: \(chip.kind)\n  sample_rate_hz: \(rate.hertz)\nlevel:\n  average_window_s: 1\n"
                #expect(try parse(yaml).level.sampleRateHz == rate.hertz)
            }
        }
        // Between two of a chip's rates: accepted, and the chip runs at the nearest.
        #expect(try parse("sensor:\n  sample_rate_hz: 150\n").level.sampleRateHz == 150)
        #expect(LiveSettings.sampleRateRangeHz == 1...4000)
    }

    @Test("A chip's addresses and ranges are its own: the error lists that chip's values")
    func perChipRules() throws {
        #expect(try parse("sensor:\n  kind: mpu6050\n  address: 0x68\n").sensor.address == I2CAddress(0x68))
        #expect(try parse("sensor:\n  kind: mpu6050\n").sensor.chipAddress == I2CAddress(0x68))
        let wrongAddress = try #require(parseError("sensor:\n  kind: mpu6050\n  address: 0x53\n")?.reason)
        #expect(wrongAddress.contains("MPU-6050") && wrongAddress.contains("0x68") && wrongAddress.contains("0x69"))
        let wrongRange = try #require(parseError("sensor:\n  kind: adxl355\n  range: 16\n")?.reason)
        #expect(wrongRange.contains("ADXL355") && wrongRange.contains("2, 4 or 8"))
        // auto: any address or range some supported chip has.
        #expect(try parse("sensor:\n  address: 0x68\n").sensor.address == I2CAddress(0x68))
        let noChip = try #require(parseError("sensor:\n  address: 0x10\n")?.reason)
        #expect(noChip.contains("ADXL345") && noChip.contains("MPU-6050"))
        let noRange = try #require(parseError("sensor:\n  range: 3\n")?.reason)
        #expect(noRange.contains("any supported chip"))
        #expect(try parse("sensor:\n  kind: mpu9250\n").sensor.kind == .chip(MPU6050.description))
        let unknown = try #require(parseError("sensor:\n  kind: lis3dh\n")?.reason)
        #expect(unknown.contains("auto") && unknown.contains("adxl355") && unknown.contains("mpu6050"))
    }

    @Test("Every log level is accepted", arguments: AgentConfiguration.LogLevel.allCases)
    func logLevels(level: AgentConfiguration.LogLevel) throws {
        #expect(try parse("log_level: \(level.rawValue)\n").logLevel == level)
    }

    @Test("A key with no value (null) means its default")
    func nullMeansDefault() throws {
        let config = try parse("mqtt:\n  port:\n  username: ~\nlevel:\n  level_tolerance: null\n")
        #expect(config == (try parse("")))
    }

    @Test("Flow style and quoted keys read like block style")
    func flowStyle() throws {
        let config = try parse("level: {level_tolerance: 0.2, \"angle_unit\": percent}\n")
        #expect(config.level.levelTolerance == Angle(degrees: 0.2))
        #expect(config.level.angleUnit == .percent)
    }

    @Test("An explicit device name is the live display name; the client id follows the device id")
    func deviceDefaultsFollowID() throws {
        let config = try parse("device:\n  id: mill\n")
        #expect(config.device.name == "Plumb mill")
        #expect(config.mqtt.clientID == "plumb-mill")
        #expect(config.level.name == "Plumb mill")
    }

    @Test("A password_file and TLS files are not opened by parse")
    func parseReadsNoFiles() throws {
        let yaml = "mqtt:\n  username: u\n  password_file: /nonexistent/p\n  tls:\n    ca_file: /nonexistent/ca\n"
        let config = try parse(yaml)
        #expect(config.mqtt.passwordFile == "/nonexistent/p")
        #expect(config.mqtt.password == nil)
    }
}

extension LiveSettings {
    /// These settings with another name, through the public API.
    func applyingName(_ name: String) -> LiveSettings {
        (try? applying(key: "name", rawValue: Array(name.utf8))) ?? self
    }
}
