import Accelerometers
import Calibrating
import Contract
import Level
import Persistence
import Settings
import Thermal

extension AgentCore {
    // MARK: The temperature and what it corrects

    /// The pipeline's settings for `settings`, with the calibration, the chip's operating point
    /// and the thermal compensation in force: every reconfiguration goes through here, so none
    /// forgets the drift model.
    func pipelineSettings(_ settings: LiveSettings) -> PipelineSettings {
        settings.pipelineSettings(calibration: calibration, chip: sensor.operatingPoint, thermal: compensation)
    }

    /// The drift model and uncertainty terms of the calibration in force on the chip opened (the
    /// simulated chip's facts stand in until one opens).
    var compensation: ThermalCompensation {
        ThermalCompensation(record: calibrationRecord, chip: sensor.chip ?? ChipCatalog.simulated, rangeG: sensor.rangeG,
                            operatingPoint: sensor.operatingPoint)
    }

    /// Applies a changed compensation (a new chip, range or record) from the next block on.
    func refreshCompensation() {
        let new = pipelineSettings(settings)
        guard new != pipeline.settings else { return }
        let zeroBefore = pipeline.zeroGravity
        pipeline.reconfigure(new)
        if pipeline.zeroGravity != zeroBefore { persistZero() }
    }

    /// The temperature the pipeline and the uncertainty go by now.
    var temperatureReading: TemperatureReading { temperature.reading(at: clock()) }

    /// The chip opened: whether its own sensor is the source.
    func temperatureChipOpened(_ chip: ChipDescription) {
        if let warning = temperature.chipOpened(model: chip.model, hasSensor: chip.temperature != nil) {
            log.warning(warning)
        } else {
            log.info("temperature: \(temperature.source.description.escapedForLog(limit: 200))")
        }
    }

    /// A batch's die temperature, when the chip is the source.
    func takeDieTemperature(of batch: SampleBatch) {
        guard temperature.readsChip, let celsius = batch.dieCelsius else { return }
        takeTemperature(.success(celsius), from: "chip")
    }

    /// A message on the thermometer's topic.
    func receiveTemperature(_ payload: [UInt8]) {
        takeTemperature(TemperatureMessage.celsius(payload).mapError { $0 as any Error }, from: temperature.source.description,
                        payload: payload)
    }

    /// The thermal zone as the ticker read it.
    public func takeThermalZone(_ result: Result<Double, any Error>) {
        takeTemperature(result, from: temperature.source.description)
    }

    /// One value from the source, or why it was not one: accepted into the tracker, or counted,
    /// logged and reported as `temperature_rejected` (one a minute) and ignored.
    func takeTemperature(_ result: Result<Double, any Error>, from source: String, payload: [UInt8]? = nil) {
        let now = clock()
        let reason: String
        switch result {
        case .success(let celsius):
            guard let rejection = temperature.accept(celsius, at: now) else { return }
            reason = rejection.description
        case .failure(let error):
            reason = "\(error)"
        }
        guard let count = temperature.countRejection(at: now) else { return }
        let text = payload.map { String(decoding: $0.prefix(64), as: UTF8.self).escapedForLog(limit: 64) }
        log.warning("temperature from \(source.escapedForLog(limit: 200)) ignored: \(reason.escapedForLog(limit: 400))"
                    + (count > 1 ? " (\(count) values refused since the last report)" : ""))
        emit(AgentEvent(type: .temperatureRejected, details: [
            .source: .string(source), .reason: .string(reason), .payload: text.map(JSONValue.string) ?? .null,
            .count: .integer(count),
        ]))
    }
}
