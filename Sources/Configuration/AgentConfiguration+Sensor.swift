import Accelerometers
import Contract
import Geometry
import I2C
import Settings
import Thermal

/// `sensor:`: the chip, its bus, address and range, and the temperature source.
extension AgentConfiguration {
    mutating func readSensor(_ section: YAMLSection) throws(ConfigurationError) {
        if let kind = try section.choice("kind", from: SensorKind.names) {
            sensor.kind = SensorKind(name: kind)!
        }
        sensor.bus = try section.path("bus") ?? sensor.bus
        // The chip's own rules, from its description; with auto or sim, any supported chip's.
        let chips = sensor.chip.map { [$0] } ?? ChipCatalog.all
        if let node = section.node("address") {
            let example = chips[0].addresses.first?.description ?? "0x53"
            let accepted = chips.map { "an \($0.model) answers at \($0.addressList)" }.joined(separator: "; ")
                + "; write \(example) or \"\(example)\"."
            guard case .scalar(let scalar) = node else {
                throw section.error(.wrongType, "address", "\(Self.capitalized(accepted)) Found \(node.kindDescription).")
            }
            let address: I2CAddress? = switch YAMLValue(scalar) {
            case .int(let value): I2CAddress(value)
            case .string(let text): I2CAddress(parsing: text)
            default: nil
            }
            guard let address, chips.contains(where: { $0.addresses.contains(address) }) else {
                throw section.error(.invalidValue, "address", "\"\(scalar.text.truncatedForMessage)\" is not accepted; \(accepted)")
            }
            sensor.address = address
        }
        if let range = try section.int("range", in: 1...64, what: "the range in g") {
            guard chips.contains(where: { $0.rangesG.contains(range) }) else {
                let reason = if let chip = sensor.chip {
                    "\(range) g is not a range of the \(chip.model); use \(chip.rangeList)."
                } else {
                    "\(range) g is not a range of any supported chip: "
                        + chips.map { "the \($0.model) offers \($0.rangeList)" }.joined(separator: "; ") + "."
                }
                throw section.error(.invalidValue, "range", reason)
            }
            sensor.range = range
        }
        try readTemperature(section, chips: chips)
    }

    /// `sensor.temperature` and `sensor.temperature_stale_s`.
    mutating func readTemperature(_ section: YAMLSection, chips: [ChipDescription]) throws(ConfigurationError) {
        if let text = try section.string("temperature") {
            do throws(TemperatureSourceError) {
                sensor.temperature = try TemperatureSource(parsing: text)
            } catch {
                throw section.error(.invalidValue, "temperature", error.description)
            }
            // A named chip without a sensor cannot be its own thermometer; with auto, the chip
            // found decides, and the agent says so if it has none.
            if sensor.temperature == .chip, let chip = sensor.chip, chip.temperature == nil {
                let others = ChipCatalog.all.filter { $0.temperature != nil }.map(\.model).joined(separator: " and ")
                throw section.error(.invalidValue, "temperature", "the \(chip.model) has no temperature sensor (the"
                    + " \(others) have one). Use mqtt:<topic> for a thermometer on the broker, thermal_zone:0 for the"
                    + " Pi's own, or none.")
            }
        }
        sensor.temperatureStaleS = try section.int(FileKey.temperatureStaleS) ?? sensor.temperatureStaleS
        sensor.learnDriftMinimumS = try section.int(FileKey.learnDriftMinimumS) ?? sensor.learnDriftMinimumS
        sensor.learnDriftBucketS = try section.int(FileKey.learnDriftBucketS) ?? sensor.learnDriftBucketS
    }
}
