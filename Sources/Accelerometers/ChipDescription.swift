import Geometry
import I2C
import Level
import Thermal

/// Everything above the drivers may know of a chip: its one owner of facts, read from its
/// datasheet. The pipeline, `stable`, calibration, vibration, the command line, config
/// validation, discovery and health ask this and never name a chip (the chip seam, ChipSeamTests).
///
/// A value with no I/O; each driver has one (``Accelerometer/description``).
public struct ChipDescription: Sendable, Hashable {
    /// The name people read: `ADXL345`, `ADXL355`, `MPU-6050`.
    public var model: String
    /// The `sensor.kind` / `--sensor` name: `adxl345`; `aliases` are accepted too (`adxl343`).
    public var kind: String
    public var aliases: [String]
    /// The I²C addresses the chip can have, the default (the strap most boards use) first.
    public var addresses: [I2CAddress]
    /// The registers that identify it, read in this order.
    public var identification: [IdentificationRegister]
    /// Full-scale ranges in g, smallest first; ``defaultRangeG`` is one of them.
    public var rangesG: [Int]
    public var defaultRangeG: Int
    /// The output data rates it offers for continuous sampling, slowest first, each with the
    /// slowest I²C clock that sustains it.
    public var rates: [ChipRate]
    /// Bits of each acceleration sample as the chip delivers it (10 to 13 on the ADXL345 by
    /// range, 20 on the ADXL355, 16 on the MPU-6050).
    public var sampleBits: Int
    /// Noise density per axis, in g/√Hz (the datasheet's typical figure).
    public var noiseDensity: Vector3
    /// How many samples its FIFO holds (0: none used).
    public var fifoDepth: Int
    /// Its temperature sensor; nil when it has none Plumb reads.
    public var temperature: TemperatureSensor?
    /// Its self-test's expected response; nil when it has none Plumb runs.
    public var selfTest: SelfTestResponse?
    /// How its offset and sensitivity move with temperature, from the datasheet.
    public var drift: DriftSpecification
    /// The datasheet's typical zero-g offset per axis, in g: what an uncalibrated reading may
    /// be off by.
    public var zeroOffsetTypical: Vector3
    /// The datasheet's typical sensitivity error, a fraction (at the supply a Pi gives).
    public var sensitivityErrorTypical: Double
    /// Where the figures come from: `ADXL345 datasheet Rev. G`.
    public var datasheet: String
    /// How each of ``addresses`` is strapped, in the same order: `SDO to GND`; may be empty.
    public var straps: [String]

    public init(model: String, kind: String, aliases: [String] = [], addresses: [I2CAddress],
                identification: [IdentificationRegister], rangesG: [Int], defaultRangeG: Int, rates: [ChipRate],
                sampleBits: Int, noiseDensity: Vector3, fifoDepth: Int, temperature: TemperatureSensor?,
                selfTest: SelfTestResponse?, drift: DriftSpecification, zeroOffsetTypical: Vector3,
                sensitivityErrorTypical: Double, datasheet: String, straps: [String] = []) {
        self.straps = straps
        self.drift = drift
        self.zeroOffsetTypical = zeroOffsetTypical
        self.sensitivityErrorTypical = sensitivityErrorTypical
        self.model = model
        self.kind = kind
        self.aliases = aliases
        self.addresses = addresses
        self.identification = identification
        self.rangesG = rangesG
        self.defaultRangeG = defaultRangeG
        self.rates = rates
        self.sampleBits = sampleBits
        self.noiseDensity = noiseDensity
        self.fifoDepth = fifoDepth
        self.temperature = temperature
        self.selfTest = selfTest
        self.datasheet = datasheet
    }

    /// `0x53 (SDO to GND) or 0x1D (SDO to 3V3)`: the addresses as a person wires them.
    public var addressList: String {
        let named = addresses.enumerated().map { index, address in
            index < straps.count ? "\(address) (\(straps[index]))" : address.description
        }
        guard let last = named.last else { return "" }
        return named.count == 1 ? last : named.dropLast().joined(separator: ", ") + " or " + last
    }

    /// `2, 4, 8 or 16`.
    public var rangeList: String {
        let names = rangesG.map(String.init)
        guard let last = names.last else { return "" }
        return names.count == 1 ? last : names.dropLast().joined(separator: ", ") + " or " + last
    }

    /// The offered rate nearest to `hertz` (ties to the faster): what `sample_rate_hz` maps to.
    public func nearestRate(to hertz: Double) -> ChipRate? {
        rates.min { a, b in
            let da = abs(a.hertz - hertz), db = abs(b.hertz - hertz)
            return da == db ? a.hertz > b.hertz : da < db
        }
    }

    /// The expected rms noise of single samples per axis, in g, at a noise bandwidth of
    /// `bandwidthHz` (for most chips about half the output data rate, or its low-pass corner).
    public func expectedRMS(bandwidthHz: Double) -> Vector3 {
        noiseDensity * max(0, bandwidthHz).squareRoot()
    }

    /// The expected rms noise of single samples per axis, in g, at the offered rate nearest
    /// `rateHz` (the one the chip runs at when asked for `rateHz`), over that rate's noise
    /// bandwidth. A rate that is not a number counts as the fastest, noisiest one, so a bad rate
    /// can only make stillness easier to reach, never impossible.
    public func expectedRMS(rateHz: Double) -> Vector3 {
        let rate = rateHz.isNaN ? rates.last : nearestRate(to: rateHz)
        return expectedRMS(bandwidthHz: rate?.noiseBandwidthHz ?? 0)
    }

    /// How `stable` judges this chip's samples at `rateHz`: against its expected noise there.
    public func stability(rateHz: Double) -> Stability {
        Stability(expectedNoise: expectedRMS(rateHz: rateHz))
    }

    /// The operating point of this chip asked for `rateHz`: the rate it runs at and its noise.
    public func operatingPoint(rateHz: Double) -> OperatingPoint {
        let rate = nearestRate(to: rateHz)?.hertz ?? rateHz
        return OperatingPoint(rateHz: rate, expectedNoise: expectedRMS(rateHz: rate))
    }

    /// The kind, then the aliases: `adxl345, adxl343`.
    public var names: [String] { [kind] + aliases }

    /// `6.25, 12.5, … or 800`: the rates I²C carries, as a person writes them.
    public var rateList: String {
        let names = rates.filter { $0.minimumBusKHz != nil }.map { formatHertz($0.hertz) }
        guard let last = names.last else { return "" }
        return names.count == 1 ? last : names.dropLast().joined(separator: ", ") + " or " + last
    }

    /// The offered rate equal to `hertz` (within a thousandth of a hertz), or nil.
    public func rate(exactly hertz: Double) -> ChipRate? {
        rates.first { abs($0.hertz - hertz) < 0.001 }
    }
}

/// `100`, `6.25`, `3.90625`: a rate as a person writes it.
public func formatHertz(_ hertz: Double) -> String {
    hertz == hertz.rounded() && abs(hertz) < 1e9 ? String(Int(hertz)) : String(hertz)
}

/// One identification register and what it reads.
public struct IdentificationRegister: Sendable, Hashable {
    public var register: UInt8
    /// The name in the datasheet: `DEVID`, `WHO_AM_I`.
    public var name: String
    /// The values of genuine parts.
    public var expected: [UInt8]
    /// Values of compatible clones seen on common boards: accepted, with a warning that names
    /// what was read.
    public var clones: [UInt8]

    public init(register: UInt8, name: String, expected: [UInt8], clones: [UInt8] = []) {
        self.register = register
        self.name = name
        self.expected = expected
        self.clones = clones
    }
}

/// One output data rate, the bus it needs, and the noise bandwidth the chip has there.
public struct ChipRate: Sendable, Hashable, Comparable {
    public var hertz: Double
    /// The slowest I²C clock, in kHz, that carries every sample at this rate (100 or 400; 1000
    /// for Fast-mode Plus); nil when I²C cannot carry it at all (the rate is there for SPI).
    public var minimumBusKHz: Int?
    /// The bandwidth white noise is integrated over at this rate, in Hz, with the low-pass
    /// filter the driver sets for it: half the rate on the ADXL345, the filter's corner on the
    /// ADXL355 and the MPU-6050. ``ChipDescription/expectedRMS(bandwidthHz:)`` turns it into
    /// the noise `stable` expects.
    public var noiseBandwidthHz: Double

    public init(hertz: Double, minimumBusKHz: Int?, noiseBandwidthHz: Double) {
        self.hertz = hertz
        self.minimumBusKHz = minimumBusKHz
        self.noiseBandwidthHz = noiseBandwidthHz
    }

    public static func < (a: Self, b: Self) -> Bool { a.hertz < b.hertz }
}

/// A chip's temperature sensor: `°C = (raw − offsetLSB) / lsbPerDegree + offsetDegrees`.
public struct TemperatureSensor: Sendable, Hashable {
    /// The first register of the reading, and how many bytes it takes.
    public var register: UInt8
    public var byteCount: Int
    public var lsbPerDegree: Double
    public var offsetLSB: Double
    public var offsetDegrees: Double
    /// The reading's noise, °C rms, one reading to the next at a steady temperature: what the
    /// simulators add, and what a consumer averaging readings can expect to beat down. Neither
    /// datasheet states one; each sensor's figure says how it was reasoned.
    public var temperatureNoiseCelsius: Double

    public init(register: UInt8, byteCount: Int, lsbPerDegree: Double, offsetLSB: Double, offsetDegrees: Double,
                temperatureNoiseCelsius: Double = 0) {
        self.register = register
        self.byteCount = byteCount
        self.lsbPerDegree = lsbPerDegree
        self.offsetLSB = offsetLSB
        self.offsetDegrees = offsetDegrees
        self.temperatureNoiseCelsius = temperatureNoiseCelsius
    }

    /// Degrees Celsius for a raw reading.
    public func celsius(raw: Double) -> Double { (raw - offsetLSB) / lsbPerDegree + offsetDegrees }
}

/// The datasheet's limits on the self-test's change per axis, in g, at the supply it states.
public struct SelfTestResponse: Sendable, Hashable {
    public var minimumG: Vector3
    public var maximumG: Vector3
    /// The supply voltage the limits are given at, in volts.
    public var atSupplyVoltage: Double
    /// The supplies the datasheet characterises, in volts: what `plumb selftest --supply` takes.
    public var supplyRange: ClosedRange<Double>

    public init(minimumG: Vector3, maximumG: Vector3, atSupplyVoltage: Double, supplyRange: ClosedRange<Double>) {
        self.minimumG = minimumG
        self.maximumG = maximumG
        self.atSupplyVoltage = atSupplyVoltage
        self.supplyRange = supplyRange
    }
}
