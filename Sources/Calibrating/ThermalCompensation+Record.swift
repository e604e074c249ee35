import Accelerometers
import Geometry
import Level
import Persistence
import Thermal

extension ThermalCompensation {
    /// What the agent and the command line correct and count for `record` on `chip` at
    /// `rangeG` (the chip's default when nil): the record's drift model and calibration
    /// temperature, how well its calibration is known, the chip's datasheet prior and its LSB.
    ///
    /// - A six-point tumble is known to its residual, floored at the noise of a face mean (a
    ///   fit of six means can look better than the means are).
    /// - A reversal alone measures the zero to the noise of its two readings; the gains are the
    ///   datasheet's.
    /// - No calibration: the datasheet's typical zero-g offset and sensitivity error.
    public init(record: CalibrationRecord?, chip: ChipDescription, rangeG: Int?, operatingPoint: OperatingPoint) {
        let range = Double(rangeG ?? chip.defaultRangeG)
        let lsb = 2 * range / Double(1 << chip.sampleBits)
        // A face mean of the tumble averages a few seconds: 2 s at the rate in use.
        let horizontalNoise = max(operatingPoint.expectedNoise.x, operatingPoint.expectedNoise.y)
        let faceMeanNoise = horizontalNoise / (2 * operatingPoint.rateHz).squareRoot()
        let uncertainty: CalibrationUncertainty = switch record?.method {
        case .sixPoint?, .sixPointAndReversal?:
            .sixPoint(residualRMS: (record?.residualMilliG?.rms ?? 0) / 1000, floorG: faceMeanNoise)
        case .reversal?:
            .reversal(noiseG: faceMeanNoise, gainTypical: chip.sensitivityErrorTypical)
        case nil, .drift?:
            .uncalibrated(offsetTypicalG: max(chip.zeroOffsetTypical.x, chip.zeroOffsetTypical.y),
                          gainTypical: chip.sensitivityErrorTypical)
        }
        self.init(drift: record?.drift, calibratedAtCelsius: record?.temperatureC, calibration: uncertainty,
                  prior: chip.drift, lsbG: lsb)
    }
}
