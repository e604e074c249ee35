import Geometry
import I2C
import PlumbSync

/// The ADXL355 over I²C, from the ADXL354/ADXL355 datasheet, Rev. D (Analog Devices), checked
/// against Linux's `drivers/iio/accel/adxl355_core.c` and Analog Devices' no-OS `adxl355` driver
/// (register map, reset values, IDs, the 0x52 reset code, the FIFO's x-axis marker in bit 0 and
/// empty indicator in bit 1 of each entry's third byte, the temperature's 1885 LSB and −9.05
/// LSB/°C, the 96-entry FIFO, the FILTER table: the low-pass corner a quarter of the rate, the
/// high-pass corners 24.7 × 10⁻⁴ × ODR and down). The PDF itself was not at hand: Rev. D is the
/// revision other projects cite as current; the self-test limits were checked only against
/// secondary sources, and the sensitivity, offset and cross-axis tolerances not at all
/// (docs/hardware/adxl355.md).
///
/// The driver reads like the datasheet: probe DEVID_AD, DEVID_MST and PARTID; reset, write RANGE
/// and FILTER in standby and only then clear POWER_CTL's standby bit; drain the FIFO in whole
/// x/y/z sets, re-aligning on the x-axis marker (see ``drain(into:)``). Bus failures surface as
/// ``SensorError``; nothing aborts.
///
/// - Addresses: 0x1D with ASEL (MISO/ASEL pin) low, 0x53 with it high.
/// - Data: 20-bit two's complement, left-justified in three bytes per axis; 256 000, 128 000 and
///   64 000 LSB/g at ±2.048, ±4.096 and ±8.192 g.
/// - Rates: 4000 / 2^code Hz for FILTER codes 0…10, with the low-pass corner at a quarter of it.
/// - Temperature: 12 bits, 1885 LSB at 25 °C nominal, −9.05 LSB/°C (``readTemperature()``).
///
/// The ADXL357 shares the register map and, as far as found, all three IDs; only its ranges
/// (±10.24/±20.48/±40.96 g) and noise differ, so this driver cannot tell the two apart and is
/// not for the ADXL357.
///
/// Thread-safe, but a sampling loop is expected to own the chip.
public final class ADXL355: Accelerometer {
    public static let model = "ADXL355"
    /// The addresses the chip answers at, the default first: 0x1D with ASEL low, 0x53 with it
    /// high.
    public static let addresses = [I2CAddress(0x1D)!, I2CAddress(0x53)!]
    public static let defaultAddress = addresses[0]

    public let bus: any I2CBus
    public let address: I2CAddress
    /// Waits for the chip after a reset and during self-test.
    public let clock: any PacingClock

    let running = Locked<ADXL355Configuration?>(nil)
    let fifo = Locked(ADXL355DrainState())

    /// - Parameters:
    ///   - address: 0x1D with ASEL low, 0x53 with it high.
    ///   - clock: real time by default; tests pass the simulation's clock.
    public init(bus: any I2CBus, address: I2CAddress = defaultAddress, clock: any PacingClock = MonotonicPacingClock()) {
        self.bus = bus
        self.address = address
        self.clock = clock
    }

    /// The configuration the chip is running with, or nil in standby.
    public var configuration: ADXL355Configuration? { running.withLock { $0 } }

    // MARK: Accelerometer

    /// Reads DEVID_AD, DEVID_MST and PARTID in one burst.
    /// - Returns: the identity, with PARTID as its `deviceID`.
    /// - Throws: ``SensorError`` `.wrongDevice` naming the first register that differs and what it
    ///   read, or the bus error.
    public func probe() throws(SensorError) -> ChipIdentity {
        let ids = try readBurst(ADXL355Register.devidAD, count: 3)
        for (register, value) in zip(Self.description.identification, ids) where !register.expected.contains(value) {
            throw .wrongDevice(model: Self.model, register: register.name, expected: register.expected[0], found: value,
                               address: address, bus: bus.name,
                               addresses: "the ADXL355 is 0x1D with ASEL low, 0x53 with ASEL high")
        }
        return ChipIdentity(model: Self.model, deviceID: ids[2])
    }

    /// Starts measuring at the offered rate nearest `request.rateHz` and the range of
    /// `request.rangeG` (2, 4 or 8; else `.invalidSetting`).
    public func start(_ request: SamplingRequest) throws(SensorError) -> SamplingSettings {
        guard let range = ADXL355Range(gravities: request.rangeG) else {
            throw .invalidSetting("the ADXL355's range is 2, 4 or 8 g (±2.048, ±4.096, ±8.192 g), not \(request.rangeG).")
        }
        guard request.rateHz.isFinite, request.rateHz > 0, let code = Self.rateCode(nearest: request.rateHz) else {
            throw .invalidSetting("the ADXL355 samples at 3.906 to 4000 Hz; \(request.rateHz) Hz is not a rate.")
        }
        var configuration = ADXL355Configuration()
        configuration.range = range
        configuration.rateCode = code
        // Drain at about 10 Hz, and never let more than half the FIFO gather.
        configuration.watermark = max(1, min(ADXL355Register.fifoSetCapacity / 2, Int(configuration.rateHz / 10)))
        try configure(configuration)
        return settings(for: configuration)
    }

    /// Sets POWER_CTL's standby bit: the chip stops sampling and keeps its configuration.
    public func stop() throws(SensorError) {
        try write(ADXL355Register.powerCtl, ADXL355PowerCtl.standby)
        running.withLock { $0 = nil }
        fifo.withLock { $0.ledger = ADXL355FIFOLedger() }
    }

    /// The FILTER code whose rate is nearest `hertz` (ties to the faster), as the description's
    /// ``ChipDescription/nearestRate(to:)`` picks it.
    public static func rateCode(nearest hertz: Double) -> UInt8? {
        guard let rate = description.nearestRate(to: hertz) else { return nil }
        return ADXL355Filter.codes.first { ADXL355Filter.rateHz(code: $0) == rate.hertz }
    }

    // MARK: Configuration

    /// Resets the chip (which empties the FIFO and leaves it in standby), writes RANGE and FILTER
    /// in standby, then clears the standby bit; then reads FILTER…POWER_CTL back to be sure they
    /// took.
    public func configure(_ configuration: ADXL355Configuration) throws(SensorError) {
        guard ADXL355Filter.rateHz(code: configuration.rateCode) != nil else {
            throw .invalidSetting("the ADXL355's FILTER rate code is 0…10, not \(configuration.rateCode).")
        }
        running.withLock { $0 = nil }
        fifo.withLock { $0.ledger = ADXL355FIFOLedger() }
        try write(ADXL355Register.reset, ADXL355Register.resetCode)
        clock.sleep(seconds: ADXL355Register.resetSeconds)
        try write(ADXL355Register.powerCtl, ADXL355PowerCtl.standby)
        let range = try read(ADXL355Register.range)
        try write(ADXL355Register.range, configuration.rangeRegister(keeping: range))
        try write(ADXL355Register.filter, configuration.filter)
        try write(ADXL355Register.powerCtl, 0)
        try verify(configuration)
        running.withLock { $0 = configuration }
        fifo.withLock { $0.ledger.started(at: clock.now()) }
    }

    /// FILTER (0x28) through POWER_CTL (0x2D) in one burst.
    private func verify(_ configuration: ADXL355Configuration) throws(SensorError) {
        let block = try readBurst(ADXL355Register.filter, count: 6)
        let filter = block[0], range = block[4], power = block[5]
        guard filter == configuration.filter, ADXL355Range(register: range) == configuration.range,
              power & ADXL355PowerCtl.standby == 0
        else {
            throw .bus(I2CError(code: .busError, bus: bus.name, address: address,
                                operation: "configuration read-back (FILTER \(filter), RANGE \(range), POWER_CTL \(power))"))
        }
    }

    func settings(for configuration: ADXL355Configuration) -> SamplingSettings {
        SamplingSettings(rateHz: configuration.rateHz, rangeG: configuration.range.gravities,
                         watermark: configuration.watermark, bufferCapacity: ADXL355Register.fifoSetCapacity)
    }

    // MARK: Temperature

    /// The die temperature in °C, from TEMP2/TEMP1 read in one burst, converted with the
    /// datasheet's nominal figures (1885 LSB at 25 °C, −9.05 LSB/°C; ``description``'s
    /// ``ChipDescription/temperature``). Parts differ from the nominal intercept by a few degrees:
    /// use it for drift compensation, not as a thermometer. The chip converts only while
    /// measuring; in standby the registers hold the last conversion.
    public func readTemperature() throws(SensorError) -> Double {
        let bytes = try readBurst(ADXL355Register.temp2, count: 2)
        return Self.temperatureSensor.celsius(raw: Double(Self.temperatureRaw(temp2: bytes[0], temp1: bytes[1])))
    }

    /// ``readTemperature()``: the chip has a sensor (``Accelerometer/dieTemperature()``).
    public func dieTemperature() throws(SensorError) -> Double? {
        try readTemperature()
    }

    /// The 12-bit raw temperature from TEMP2 (bits 3…0 are its bits 11…8) and TEMP1.
    public static func temperatureRaw(temp2: UInt8, temp1: UInt8) -> Int {
        Int(temp2 & 0x0F) << 8 | Int(temp1)
    }

    // MARK: Decoding

    /// One axis from its three bytes (`DATA3`, `DATA2`, `DATA1`): the 20-bit two's complement
    /// value, and the two flags bits 0 and 1 of the third byte carry in the FIFO (the x-axis
    /// marker and the empty indicator).
    @inlinable
    public static func decodeAxis(_ b3: UInt8, _ b2: UInt8, _ b1: UInt8) -> (value: Int, xMarker: Bool, empty: Bool) {
        let word = UInt32(b3) << 24 | UInt32(b2) << 16 | UInt32(b1) << 8
        // Left-justified: an arithmetic shift by 12 sign-extends bit 19.
        return (Int(Int32(bitPattern: word) >> 12), b1 & 0x01 != 0, b1 & 0x02 != 0)
    }

    /// The most negative and most positive counts; a value at either is reported as clipped.
    public static let countLimits = -(1 << 19)...((1 << 19) - 1)
}
