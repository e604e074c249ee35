import Accelerometers
import Geometry

/// The ODR clock and the FIFO's filling: lazy production of the samples due since the last look.
///
/// Nothing runs between bus accesses. Each access first brings the chip up to the clock's time:
/// it works out which sample instants have passed (`firstSampleTime + k / ODR`), takes those
/// samples at their own instants from the scene, and files them by the FIFO mode. After a long
/// gap only the samples that could still be held are computed; the rest are counted, never
/// looped over, so a day-long gap costs the same as a 10 ms one.
extension ChipState {
    /// Seconds from setting Measure to the first sample, beyond one ODR period (datasheet
    /// wake-up time 1/ODR + 1.1 ms).
    static let wakeUpDelay = 0.0011

    /// Starts the ODR clock: the first sample falls due one period plus the wake-up delay after
    /// `time`.
    mutating func startSampling(at time: Double) {
        firstSampleTime = time + 1 / format.rate.hertz + Self.wakeUpDelay
        nextSampleNumber = 0
    }

    /// Restarts the sample grid after a rate change: the next sample one new period from `time`.
    /// The datasheet is silent on the phase after a change; drivers change the rate in standby.
    mutating func restartSampling(at time: Double) {
        firstSampleTime = time + 1 / format.rate.hertz
        nextSampleNumber = 0
    }

    /// Produces every sample due at or before `time`.
    mutating func produceSamples(until time: Double) {
        guard let first = firstSampleTime else { return }
        let format = self.format
        let rate = format.rate.hertz
        // A microsample of slack: a sample due exactly at `time` must not be lost to rounding.
        // The cap keeps the conversion to Int safe whatever the clock says.
        let span = min((time - first) * rate + 1e-6, 1e15)
        guard span.isFinite, span >= Double(nextSampleNumber) else { return }
        let lastDue = Int(span.rounded(.down))
        let due = lastDue - nextSampleNumber + 1

        switch fifoMode {
        case .fifo:
            // Collects until full, then ignores new samples until entries are read.
            let stored = min(due, SampleQueue.capacity - fifo.count)
            for index in 0..<stored {
                fifo.append(takeSample(number: nextSampleNumber + index, first: first, format: format))
            }
            statistics.lost += due - stored
            statistics.skipped += due - stored
            if fifo.isFull { overrun = true }

        case .bypass, .stream, .trigger:
            // Keeps the newest: bypass holds one (the data registers), stream 33. Trigger mode is
            // modelled as stream: no trigger event is ever simulated.
            let capacity = fifoMode == .bypass ? 1 : SampleQueue.capacity
            let computed = min(due, capacity)
            let displaced = max(0, fifo.count + due - capacity)
            fifo.removeFirst(displaced)
            for index in (due - computed)..<due {
                fifo.append(takeSample(number: nextSampleNumber + index, first: first, format: format))
            }
            statistics.overwritten += displaced
            statistics.skipped += due - computed
            if fifoMode == .bypass ? displaced > 0 : fifo.isFull { overrun = true }
        }

        statistics.samplesProduced += due
        nextSampleNumber += due
        serial &+= UInt64(due)
    }

    /// Sample `number` of the current grid, taken at its own instant: the scene plus the
    /// machine's vibration, point-sampled (see ``MachineVibration``), at the die temperature then.
    private func takeSample(number: Int, first: Double, format: OutputFormat) -> RawSample {
        let time = first + Double(number) / format.rate.hertz
        let offsets = (
            Int8(bitPattern: registers[Int(ADXL345Register.ofsx)]),
            Int8(bitPattern: registers[Int(ADXL345Register.ofsy)]),
            Int8(bitPattern: registers[Int(ADXL345Register.ofsz)]))
        let serial = self.serial &+ UInt64(number - nextSampleNumber)
        var force = configuration.scene.gravity(at: time)
        if let machine {
            force += machine.acceleration(at: time, serial: serial)
        }
        let drift = configuration.thermalDrift(at: configuration.dieTemperature(at: time))
        return pipeline.sample(force: force, serial: serial, format: format, offsetRegisters: offsets, drift: drift)
    }
}
