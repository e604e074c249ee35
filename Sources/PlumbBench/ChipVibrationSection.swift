import Accelerometers
import AccuracyBenchmark
import Foundation
import Geometry
import I2C
import SimulatedADXL345
import SimulatedADXL355
import SimulatedMPU6050
import Vibration
import VibrationVocabulary

/// A simulated chip of any model read through its real driver on a manual clock, drained often
/// enough that its FIFO never fills (a quarter of its depth's time, at most every 20 ms). Its
/// vibration is the scene's (``SimulatedScene/vibration(roll:pitch:amplitude:frequency:)``), the
/// one every simulator has: one tone, on every axis a third of a cycle apart, so the z axis
/// carries exactly the tone asked for; the ADXL355's and the MPU-6050's simulators have no
/// machine vibration (`--sim-vibration`) of several tones.
final class SceneChipSource: VibrationSource {
    let name: String
    let rateHz: Double
    private let chip: BenchChip
    private let drainSeconds: Double

    init(_ chip: BenchChip, rateHz: Double) throws(SensorError) {
        self.chip = chip
        name = "simulated \(chip.description.model) + driver"
        _ = try chip.driver.probe()
        let settings = try chip.driver.start(SamplingRequest(rateHz: rateHz, rangeG: chip.rangeG))
        self.rateHz = settings.rateHz
        drainSeconds = min(0.02, Double(settings.bufferCapacity) / settings.rateHz / 4)
        chip.clock.advance(by: 2 / self.rateHz + 0.0011)
        var discarded: [Vector3] = []
        _ = try chip.driver.drain(into: &discarded)
    }

    var now: Double { chip.clock.now() }

    /// The chip's low-pass corner at the rate it runs, Hz: the ADXL355's ODR/4, the MPU-6050's
    /// DLPF bandwidth its driver chose. Neither simulator attenuates above it (their notes: the
    /// filter is not modelled beyond its noise), so a tone above it reads as if unfiltered here
    /// and low on a real chip.
    var lowPassHz: Double? {
        switch chip.model {
        case .adxl345: nil
        case .adxl355: ADXL355Filter.lowPassHz(rateHz: rateHz)
        case .mpu6050: (chip.driver as? MPU6050)?.bandwidthHz
        }
    }

    /// One tone at most: the scene carries one.
    func play(_ tones: [BenchTone]) {
        precondition(tones.count <= 1, "the scene's vibration is one tone")
        chip.simulator.setScene(tones.first.map {
            .vibration(roll: .zero, pitch: .zero, amplitude: $0.amplitudeG, frequency: $0.frequency)
        } ?? .level)
    }

    func read(seconds: Double) throws -> (samples: [Vector3], time: Double) {
        var samples: [Vector3] = []
        let end = chip.clock.now() + seconds
        while chip.clock.now() < end - 1e-12 {
            chip.clock.advance(to: min(end, chip.clock.now() + drainSeconds))
            _ = try chip.driver.drain(into: &samples)
        }
        return (samples, chip.clock.now())
    }
}

/// An ideal part of `model`, as the ADXL345's vibration source is: the datasheet's noise, no
/// offset, gain or cross-axis error, so the figures are the analysis's and the noise's.
private func idealChip(_ model: BenchChipModel) -> BenchChip {
    switch model {
    case .adxl345: BenchChip(configuration: SimulatedADXL345.Configuration(seed: 0x5EED_0B5E))
    case .adxl355: BenchChip(adxl355: SimulatedADXL355.Configuration())
    case .mpu6050: BenchChip(mpu6050: SimulatedMPU6050.Configuration())
    }
}

/// The fastest rate a chip's description offers over I²C at 400 kHz.
private func fastestAt400kHz(_ description: ChipDescription) -> Double? {
    description.rates.filter { ($0.minimumBusKHz ?? .max) <= 400 }.map(\.hertz).max()
}

/// The vibration figures that need only one tone, per chip other than the ADXL345 (whose
/// figures, above, are unchanged), at the fastest rate I²C at 400 kHz carries: 4.5 mm/s at 50 Hz
/// on z within 3 %, the dominant frequency within one bin, and what a still chip reads.
func benchmarkVibrationPerChip() throws {
    for model in BenchChipModel.allCases where model != .adxl345 {
        let description = model.description
        guard let rate = fastestAt400kHz(description) else { continue }
        let fresh = { () throws -> SceneChipSource in try SceneChipSource(idealChip(model), rateHz: rate) }
        let probe = try fresh()
        let band = try VibrationAnalyzer(rateHz: probe.rateHz, windowSeconds: 1).band
        let corner = probe.lowPassHz ?? probe.rateHz / 2
        print("  \(description.model): \(figure(probe.rateHz, 0)) Hz ODR (the fastest over I²C at 400 kHz; "
              + "\(figure(description.rates.map(\.hertz).max() ?? 0, 0)) Hz offered), band \(figure(band.low, 0))–"
              + "\(figure(band.high, 1)) Hz, the chip's low-pass corner \(figure(corner, 0)) Hz (above it a real chip reads low; the "
              + "simulator does not attenuate), an ideal part (the datasheet's noise, no other error) through its driver, the scene's one tone on every "
              + "axis")

        // 4.5 mm/s at 50 Hz on z.
        var velocityLines: [String] = []
        var worst50 = 0.0
        for frequency in [50.0, 47.3] {
            let tone = BenchTone(axis: .z, velocityRMS: 4.5, frequency: frequency)
            let velocities = try chipWindows([BenchPhase(seconds: 30, tones: [tone])], on: try fresh()).map(\.z.velocityRMS)
            let mean = velocities.reduce(0, +) / Double(max(1, velocities.count))
            let worst = velocities.map { abs($0 / 4.5 - 1) }.max() ?? .infinity
            if frequency == 50 { worst50 = worst }
            velocityLines.append("\(figure(frequency, 1)) Hz: z reads \(figure(mean, 3)) mm/s mean, worst "
                                 + "\(figure(worst * 100, 2)) % off (\(velocities.count) windows)")
        }
        print("    velocity:      4.5 mm/s RMS; " + velocityLines.joined(separator: "; "))
        print("    target:        4.5 mm/s at 50 Hz on z within 3 %: \(worst50 <= 0.03 ? "met" : "MISSED")")

        // The dominant frequency, up to near the low-pass corner: above it the simulator is not the chip.
        let frequencies = Set([12.3, 23.7, 50, 87.3, 151.1, 287.9, 370.4, corner * 0.9].filter { $0 < corner }).sorted()
        var worstBins = (bins: 0.0, frequency: 0.0)
        for frequency in frequencies {
            let tone = BenchTone(axis: .z, velocityRMS: 4.5, frequency: frequency)
            for window in try chipWindows([BenchPhase(seconds: 10, tones: [tone])], on: try fresh()) {
                let error = abs(window.z.dominantHz - frequency) / window.binWidthHz
                if error >= worstBins.bins { worstBins = (error, frequency) }
            }
        }
        print("    dominant:      4.5 mm/s at \(frequencies.map { figure($0, 1) }.joined(separator: ", ")) Hz, 10 windows "
              + "each: worst \(figure(worstBins.bins, 3)) bin off (\(figure(worstBins.frequency, 1)) Hz)")
        print("    target:        the dominant frequency within one bin: \(worstBins.bins <= 1 ? "met" : "MISSED")")

        // A still chip.
        let still = try chipWindows([BenchPhase(seconds: 30, tones: [])], on: try fresh())
        let velocities = still.map(\.overall.velocityRMS)
        let loudest = velocities.max() ?? 0
        let threshold = RunningDetector.Settings.default
        print("    still chip:    overall \(figure(velocities.reduce(0, +) / Double(max(1, velocities.count)), 3)) mm/s mean, "
              + "\(figure(loudest, 3)) worst, largest axis \(figure(still.map(\.severityVelocity).max() ?? 0, 3)) mm/s, "
              + "overall \(figure((still.map(\.overall.accelerationRMS).max() ?? 0) * 1000, 2)) mg (worst of \(still.count) "
              + "windows); \(loudest < threshold.stopLevel ? "below" : "NOT below") the default running stop level "
              + "\(figure(threshold.stopLevel, 3)) mm/s")
    }
}

/// Every 1 s window of `phases` on `source`, through a fresh analyzer.
private func chipWindows(_ phases: [BenchPhase], on source: any VibrationSource) throws -> [VibrationFigures] {
    let analyzer = try VibrationAnalyzer(rateHz: source.rateHz, windowSeconds: 1)
    var all: [VibrationFigures] = []
    try play(phases, on: source) { samples, time in all += analyzer.add(samples, endingAt: time) }
    return all
}
