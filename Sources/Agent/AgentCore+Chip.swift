import Accelerometers
import Geometry
import I2C
import Level
import Persistence
import Settings

extension AgentCore {
    // MARK: The chip the sampler opened

    /// The sampler opened and probed a chip: health, discovery and calibrations name it, a clone
    /// is logged, and a stored calibration made on another chip is set aside.
    func opened(_ found: ChipFound) {
        let first = sensor.chip == nil
        sensor.chip = found.description
        health.chip = found.description.model
        if let warning = found.warning, first { log.warning(warning.escapedForLog(limit: 500)) }
        if first {
            log.info("sensor: \(found.description.model) at \(found.address) on \(found.bus.escapedForLog(limit: 200))")
        }
        // The configured bus's name (`simulated` for the simulator), as records have always said.
        calibrating.chip = CalibrationRecord.Chip(
            bus: calibrating.chip.bus, address: found.address.description,
            devid: found.deviceID.map { "0x" + String($0, radix: 16, uppercase: true) } ?? calibrating.chip.devid,
            model: found.description.model)
        if first { temperatureChipOpened(found.description) }
        if let record = calibrationRecord, refusingAnotherChip(record) == nil { useCalibration(nil) }
        refreshCompensation()
        if discovery?.useChip(model: found.description.model) == true { publishDiscovery(force: false) }
    }

    /// `record`, or nil when it was made on another chip than the one opened (logged: its
    /// correction would be wrong here, so the sensor reads raw until this chip is calibrated).
    func refusingAnotherChip(_ record: CalibrationRecord) -> CalibrationRecord? {
        guard sensor.chip != nil, !record.chip.matches(calibrating.chip) else { return record }
        log.warning("calibration.json was made on \(record.chip.sentence.escapedForLog(limit: 300)), but this is"
            + " \(calibrating.chip.sentence.escapedForLog(limit: 300)): its correction would be wrong here, so the"
            + " sensor reads raw. Calibrate this chip (P/command/calibrate_six_point, or plumb calibrate six-point).")
        return nil
    }

    /// The chip runs at `rateHz`: a new operating point reconfigures the pipeline (its noise for
    /// `stable`, its window in blocks) and the vibration analysis (its windows and band are cut
    /// by the rate the samples really come at).
    func chipRuns(atRateHz rateHz: Double) {
        guard sensor.runs(atRateHz: rateHz) else { return }
        pipeline.reconfigure(pipelineSettings(settings))
        configureVibration(settings.vibration(atRateHz: sensor.operatingPoint.rateHz))
    }
}

extension AgentCore {
    /// The chip runs at `rangeG`: its LSB, which the uncertainty counts, follows.
    func runsAtRange(_ rangeG: Int) {
        guard sensor.rangeG != rangeG else { return }
        sensor.rangeG = rangeG
        refreshCompensation()
    }
}
