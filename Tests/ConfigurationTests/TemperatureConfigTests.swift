import Configuration
import Testing
import Thermal

/// `sensor.temperature`, `temperature_stale_s` and the learn_drift keys: each form, the default,
/// and every bad value refused with what to write.
@Suite("sensor.temperature in the config file")
struct TemperatureConfigTests {
    func parse(_ sensor: String) throws -> AgentConfiguration {
        try AgentConfiguration.parse(yaml: "sensor:\n" + sensor, source: "plumb.yaml")
    }

    func refusal(_ sensor: String) -> String {
        do {
            _ = try parse(sensor)
            return ""
        } catch {
            return "\(error)"
        }
    }

    @Test func theFormsAndTheDefault() throws {
        #expect(try AgentConfiguration.parse(yaml: "", source: "t").sensor.temperature == .automatic)
        #expect(try parse("  temperature: chip\n").sensor.temperature == .chip)
        #expect(try parse("  temperature: none\n").sensor.temperature == TemperatureSource.none)
        #expect(try parse("  temperature: mqtt:zigbee2mqtt/workshop\n").sensor.temperature == .mqtt(topic: "zigbee2mqtt/workshop"))
        #expect(try parse("  temperature: thermal_zone:0\n").sensor.temperature == .thermalZone(0))
        #expect(try parse("  temperature: \"mqtt:a b/c\"\n").sensor.temperature == .mqtt(topic: "a b/c"))
        let defaults = try AgentConfiguration.parse(yaml: "", source: "t").sensor
        #expect(defaults.temperatureStaleS == 600 && defaults.learnDriftMinimumS == 3600
                && defaults.learnDriftBucketS == 60)
        let set = try parse("  temperature_stale_s: 120\n  learn_drift_minimum_s: 600\n  learn_drift_bucket_s: 5\n").sensor
        #expect(set.temperatureStaleS == 120 && set.learnDriftMinimumS == 600 && set.learnDriftBucketS == 5)
    }

    @Test(arguments: [
        ("  temperature: thermometer\n", "none of chip, mqtt:<topic>, thermal_zone:<N> or none"),
        ("  temperature: \"mqtt:\"\n", "name the topic after mqtt:"),
        ("  temperature: mqtt:sensors/+/temperature\n", "no wildcards"),
        ("  temperature: thermal_zone:x\n", "the zone is a whole number from 0 to 999"),
        ("  temperature: thermal_zone:1000\n", "the zone is a whole number"),
        ("  temperature: [chip]\n", "takes text"),
        ("  kind: adxl345\n  temperature: chip\n", "the ADXL345 has no temperature sensor"),
        ("  temperature_stale_s: 5\n", "from 10 to 86400"),
        ("  learn_drift_minimum_s: 5\n", "from 10 to 604800"),
        ("  learn_drift_bucket_s: 0\n", "from 1 to 600"),
    ])
    func badValuesAreRefusedWithWhatToWrite(yaml: String, reason: String) {
        let message = refusal(yaml)
        #expect(message.contains(reason), "\(yaml): \(message)")
        #expect(message.contains("sensor."), "names the key: \(message)")
    }
}
