import Geometry
import I2C

/// The extension point for accelerometer chips.
///
/// A chip is one type conforming to this protocol, written against ``I2CBus`` only, and its
/// ``ChipDescription``: the facts everything above the driver asks. Adding a chip (a LIS3DH) is
/// its driver and description here, its entry in ``ChipCatalog`` (which builds the driver for a
/// `sensor.kind`), its register-level simulator and its tests; nothing downstream changes,
/// because the pipeline sees only gravity vectors in the device frame and the chip's
/// description (docs/development/adding-a-chip.md has the checklist).
///
/// Conforming types are thread-safe, but a sampling loop is expected to own the chip.
public protocol Accelerometer: AnyObject, Sendable {
    /// The chip's name for people and logs: `ADXL345`.
    static var model: String { get }
    /// The chip's facts, for everything above the driver (``ChipDescription``).
    static var description: ChipDescription { get }

    /// The facts of the chip this driver found: ``description`` unless a probe told a variant
    /// with other figures (an MPU-6500 on the MPU-6050's driver).
    var chip: ChipDescription { get }

    /// What the last probe found worth a warning, naming the value read (a clone's ID); nil for
    /// a genuine part or before a probe.
    var warning: String? { get }

    /// The bus the chip sits on.
    var bus: any I2CBus { get }
    /// The chip's address on that bus.
    var address: I2CAddress { get }

    /// Checks that the device at ``address`` is this chip.
    /// - Throws: ``SensorError`` with `.wrongDevice` naming the ID read, or the bus error.
    func probe() throws(SensorError) -> ChipIdentity

    /// Configures the chip for continuous measurement and starts it.
    /// - Returns: the settings the chip actually runs with (a rate is rounded to one it offers).
    func start(_ request: SamplingRequest) throws(SensorError) -> SamplingSettings

    /// Puts the chip in standby.
    func stop() throws(SensorError)

    /// Reads the samples the chip has buffered, oldest first, appending gravity in g (device
    /// frame) to `samples`. A driver may leave the few newest for the next drain where reading
    /// them now would cost another bus transaction (the ADXL345 leaves at most 8). Never blocks
    /// waiting for data.
    func drain(into samples: inout [Vector3]) throws(SensorError) -> DrainReport

    /// Runs the chip's built-in self-test and restores the running configuration afterwards.
    func selfTest(supplyVoltage: Double) throws(SensorError) -> SelfTestReport

    /// The die temperature in °C from the chip's own sensor (``ChipDescription/temperature``,
    /// converted with its nominal figures), or nil for a chip without one (the ADXL345).
    ///
    /// One short bus transaction (a two-byte burst) that leaves the FIFO alone, so a sampling loop
    /// may call it between drains, about once a second; more often buys nothing, as the die
    /// changes slowly and the reading has noise of its own
    /// (``TemperatureSensor/temperatureNoiseCelsius``). A part's intercept differs from the
    /// nominal by a few degrees: use it for drift compensation, not as a thermometer.
    /// - Throws: ``SensorError`` for the bus error.
    func dieTemperature() throws(SensorError) -> Double?
}

extension Accelerometer {
    public var chip: ChipDescription { Self.description }
    public var warning: String? { nil }
    /// nil: the chip has no temperature sensor Plumb reads.
    public func dieTemperature() throws(SensorError) -> Double? { nil }
}

/// What a probe found.
public struct ChipIdentity: Sendable, Hashable, Codable {
    /// The chip's model name.
    public var model: String
    /// The raw identification register.
    public var deviceID: UInt8
}

/// What a caller asks of a chip.
public struct SamplingRequest: Sendable, Hashable {
    /// Output data rate in Hz; the chip picks the nearest rate it offers.
    public var rateHz: Double
    /// Full-scale range in g (2, 4, 8 or 16 on the ADXL345).
    public var rangeG: Int

    public init(rateHz: Double = 100, rangeG: Int = 16) {
        self.rateHz = rateHz
        self.rangeG = rangeG
    }
}

/// The settings a chip runs with after ``Accelerometer/start(_:)``.
public struct SamplingSettings: Sendable, Hashable {
    /// The output data rate the chip actually runs at, in Hz.
    public var rateHz: Double
    /// The full-scale range in g.
    public var rangeG: Int
    /// How many samples the chip buffers before it should be drained; a sampling loop sleeps
    /// about `watermark / rateHz` between drains.
    public var watermark: Int
    /// How many samples the chip can buffer before it loses data.
    public var bufferCapacity: Int

    public init(rateHz: Double, rangeG: Int, watermark: Int, bufferCapacity: Int) {
        self.rateHz = rateHz
        self.rangeG = rangeG
        self.watermark = watermark
        self.bufferCapacity = bufferCapacity
    }
}

/// What one ``Accelerometer/drain(into:)`` found.
public struct DrainReport: Sendable, Hashable {
    /// Samples appended.
    public var count: Int
    /// The buffer was full when read, so samples may have been lost since the previous drain.
    public var overrun: Bool
    /// Samples at the limit of the range, clipped rather than rolled over: vibration exceeds the
    /// range, and averages are biased.
    public var clipped: Int

    /// Samples the chip still held when the drain ended, as its last status read showed: a
    /// driver may leave the newest few for the next drain, and the newest sample appended is then
    /// about this many periods older than the drain. 0 when not known.
    public var remaining = 0

    public init(count: Int = 0, overrun: Bool = false, clipped: Int = 0) {
        self.count = count
        self.overrun = overrun
        self.clipped = clipped
    }
}
