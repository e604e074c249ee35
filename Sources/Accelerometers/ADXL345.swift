import Geometry
import I2C
import PlumbSync

/// The ADXL345 (and ADXL343, which shares its register map and ID) over I²C.
///
/// The driver reads like the datasheet: probe DEVID; configure in standby (data format, rate,
/// FIFO) and only then set Measure; drain the FIFO entry by entry, each entry one six-byte burst,
/// many entries to a bus transaction where the bus allows (see ``drain(into:)``). Bus failures
/// surface as ``SensorError``; nothing aborts.
public final class ADXL345: Accelerometer {
    public static let model = "ADXL345"
    /// The addresses the chip answers at, the default first: 0x53 with SDO/ALT low (the usual
    /// breakout), 0x1D with it high.
    public static let addresses = [I2CAddress(0x53)!, I2CAddress(0x1D)!]
    /// 0x53, where the usual breakout answers.
    public static let defaultAddress = addresses[0]

    public let bus: any I2CBus
    public let address: I2CAddress
    /// Waits for the chip during start-up and self-test.
    public let clock: any PacingClock

    /// The configuration last written: decoding depends on it, so it is kept with the chip.
    let running = Locked<ADXL345Configuration?>(nil)
    /// What the drains have proven about the FIFO, and their counters. Never held across a bus
    /// call: a drain works on a copy and stores it back.
    let fifo = Locked(FIFODrainState())

    /// Wake-up after Measure takes about 1/ODR + 1.1 ms (datasheet).
    static let wakeUpMargin = 0.0011

    /// - Parameters:
    ///   - address: 0x53 with SDO/ALT low (the usual breakout), 0x1D with it high.
    ///   - clock: real time by default; tests pass the simulation's clock.
    public init(bus: any I2CBus, address: I2CAddress = defaultAddress, clock: any PacingClock = MonotonicPacingClock()) {
        self.bus = bus
        self.address = address
        self.clock = clock
    }

    /// The configuration the chip is running with, or nil in standby.
    public var configuration: ADXL345Configuration? { running.withLock { $0 } }

    // MARK: Accelerometer

    public func probe() throws(SensorError) -> ChipIdentity {
        let id = try read(ADXL345Register.devid)
        guard id == ADXL345Register.expectedDeviceID else {
            throw .wrongDevice(model: Self.model, expected: ADXL345Register.expectedDeviceID, found: id,
                               address: address, bus: bus.name)
        }
        return ChipIdentity(model: Self.model, deviceID: id)
    }

    /// Starts measuring at the offered rate nearest `request.rateHz` (ties to the faster, as
    /// ``ChipDescription/nearestRate(to:)`` picks) and the range of `request.rangeG`.
    public func start(_ request: SamplingRequest) throws(SensorError) -> SamplingSettings {
        guard let range = ADXL345Range(gravities: request.rangeG) else {
            throw .invalidSetting("the ADXL345's range is 2, 4, 8 or 16 g, not \(request.rangeG).")
        }
        guard request.rateHz.isFinite, request.rateHz > 0,
              let nearest = Self.description.nearestRate(to: request.rateHz),
              let rate = OutputDataRate(hertz: nearest.hertz) else {
            throw .invalidSetting("the ADXL345 samples at \(Self.description.rateList) Hz (or 1600 and 3200 over SPI);"
                                  + " \(request.rateHz) Hz is not a rate.")
        }
        var configuration = ADXL345Configuration()
        configuration.range = range
        configuration.rate = rate
        // Drain at about 10 Hz, and every 17 samples at 200 Hz and above: once the rate is
        // measured a drain reads up to 19 entries in its one transaction (see drain(into:)), so 17
        // cost one I2C_RDWR per 17 samples with two to spare; the FIFO then holds 17 and the two
        // or three a drain leaves, 14 short of its 33 (17 ms at 800 Hz).
        configuration.watermark = max(1, min(Self.highRateWatermark, Int(rate.hertz / 10)))
        try configure(configuration)
        return settings(for: configuration)
    }

    public func stop() throws(SensorError) {
        try write(ADXL345Register.powerCtl, 0)
        running.withLock { $0 = nil }
        fifo.withLock { $0.ledger = FIFOLedger() }
    }

    /// How the drains went so far: status-first and carried drains, discarded batches.
    public var drainStatistics: FIFODrainStatistics {
        fifo.withLock { $0.statistics }
    }

    // MARK: Configuration

    /// Writes `configuration` in the datasheet's order: standby, DATA_FORMAT, BW_RATE, FIFO_CTL,
    /// then Measure; then reads the registers back to be sure they took.
    public func configure(_ configuration: ADXL345Configuration) throws(SensorError) {
        running.withLock { $0 = nil }
        fifo.withLock { $0.ledger = FIFOLedger() }
        try write(ADXL345Register.powerCtl, 0)
        try write(ADXL345Register.dataFormat, configuration.dataFormat)
        try write(ADXL345Register.bwRate, configuration.bwRate)
        // Bypass first: it empties the FIFO of samples left by a previous run.
        try write(ADXL345Register.fifoCtl, FIFOMode.bypass.rawValue << FIFOCtl.modeShift)
        try write(ADXL345Register.fifoCtl, configuration.fifoCtl)
        try write(ADXL345Register.powerCtl, PowerCtl.measure)
        try verify(configuration)
        running.withLock { $0 = configuration }
    }

    /// Reads BW_RATE…DATA_FORMAT back in one burst: a chip that reset or a write lost to bus noise
    /// would otherwise decode with the wrong scale.
    private func verify(_ configuration: ADXL345Configuration) throws(SensorError) {
        let block = try readBurst(ADXL345Register.bwRate, count: 6)
        let bwRate = block[0]
        let powerCtl = block[1]
        let dataFormat = block[5]
        guard bwRate == configuration.bwRate, dataFormat == configuration.dataFormat,
              powerCtl & PowerCtl.measure != 0
        else {
            throw .bus(I2CError(code: .busError, bus: bus.name, address: address,
                                operation: "configuration read-back (BW_RATE \(bwRate), DATA_FORMAT \(dataFormat))"))
        }
    }

    func settings(for configuration: ADXL345Configuration) -> SamplingSettings {
        SamplingSettings(rateHz: configuration.rate.hertz, rangeG: configuration.range.gravities,
                         watermark: configuration.watermark, bufferCapacity: ADXL345Register.fifoCapacity + 1)
    }

    // MARK: Offsets

    /// The OFSX/OFSY/OFSZ registers, in register LSB (15.6 mg each, added to the output).
    ///
    /// Too coarse for a level (about 0.9° a step): Plumb corrects fine offsets in software and
    /// offers these for trimming a badly biased part.
    public func readOffsets() throws(SensorError) -> ADXL345Offsets {
        let bytes = try readBurst(ADXL345Register.ofsx, count: 3)
        return ADXL345Offsets(x: Int8(bitPattern: bytes[0]), y: Int8(bitPattern: bytes[1]), z: Int8(bitPattern: bytes[2]))
    }

    /// Writes the offset registers.
    public func writeOffsets(_ offsets: ADXL345Offsets) throws(SensorError) {
        try write(ADXL345Register.ofsx, UInt8(bitPattern: offsets.x))
        try write(ADXL345Register.ofsy, UInt8(bitPattern: offsets.y))
        try write(ADXL345Register.ofsz, UInt8(bitPattern: offsets.z))
    }

    // MARK: Decoding

    /// Decodes one six-byte sample (DATAX0…DATAZ1) into gravity in g.
    @inlinable
    public static func decode(_ bytes: [UInt8], format: ADXL345SampleFormat) -> (gravity: Vector3, clipped: Bool) {
        let x = format.counts(low: bytes[0], high: bytes[1])
        let y = format.counts(low: bytes[2], high: bytes[3])
        let z = format.counts(low: bytes[4], high: bytes[5])
        let scale = 1 / format.countsPerG
        return (Vector3(x: Double(x.value) * scale, y: Double(y.value) * scale, z: Double(z.value) * scale),
                x.clipped || y.clipped || z.clipped)
    }

}

/// The ADXL345's offset registers, two's complement, 15.6 mg/LSB.
public struct ADXL345Offsets: Sendable, Hashable, Codable {
    public var x: Int8
    public var y: Int8
    public var z: Int8

    /// Milligravities per register LSB.
    public static let milligravitiesPerCount = 15.6

    public init(x: Int8, y: Int8, z: Int8) {
        self.x = x
        self.y = y
        self.z = z
    }

    /// The offsets in g.
    public var gravity: Vector3 {
        Vector3(x: Double(x), y: Double(y), z: Double(z)) * (Self.milligravitiesPerCount / 1000)
    }
}
