import Geometry
import I2C
import PlumbSync

/// The MPU-6050, MPU-6500 and MPU-9250 over I²C, the accelerometer only: one driver for the
/// family, the register map learnt from WHO_AM_I.
///
/// Sources, cross-checked against the Linux driver (drivers/iio/imu/inv_mpu6050/: `inv_mpu_iio.h`
/// for the WHO_AM_I values, the ACCEL_CONFIG_2 address and the reset and start-up times;
/// `inv_mpu_core.c`'s `hw_info` for each part's register set, FIFO size and temperature
/// constants, whose numbers were not read there):
/// - MPU-6000/MPU-6050 Product Specification PS-MPU-6000A-00 Rev. 3.4 (08/19/2013) and Register
///   Map and Descriptions RM-MPU-6000A-00 Rev. 4.2 (08/19/2013);
/// - MPU-6500 Product Specification PS-MPU-6500A-01 Rev. 1.1 (03/05/2014) and Register Map
///   RM-MPU-6500A-00 Rev. 2.1, with the accelerometer self-test of AN-MPU-6500A-02;
/// - MPU-9250 Product Specification PS-MPU-9250A-01 Rev. 1.0 (01/17/2014) and Register Map
///   RM-MPU-9250A-00 Rev. 1.6.
///
/// The driver reads like the register map: WHO_AM_I; DEVICE_RESET and 100 ms; wake with the
/// PLL clock (SLEEP cleared); SMPLRT_DIV, CONFIG (DLPF_CFG), ACCEL_CONFIG (AFS_SEL) and on the
/// MPU-6500/9250 ACCEL_CONFIG2 (A_DLPF_CFG); 20 or 30 ms for the accelerometer to start;
/// then the FIFO, reset and fed with the accelerometer's six bytes alone (FIFO_EN ACCEL_FIFO_EN,
/// USER_CTRL FIFO_EN), with FIFO_OFLOW_EN so INT_STATUS reports an overflow. Configuration is read
/// back before the first drain. See ``drain(into:)`` for the FIFO and ``selfTest(supplyVoltage:)``
/// for the self-test. Bus failures surface as ``SensorError``; nothing aborts.
public final class MPU6050: Accelerometer {
    public static let model = "MPU-6050"
    /// 0x68 with AD0 low (the usual GY-521 breakout), 0x69 with AD0 high.
    public static let addresses = [I2CAddress(0x68)!, I2CAddress(0x69)!]
    public static let defaultAddress = addresses[0]

    public let bus: any I2CBus
    public let address: I2CAddress
    /// Waits for the chip during reset, start-up and self-test.
    public let clock: any PacingClock

    struct Running: Sendable {
        var configuration: MPU6050Configuration
        var variant: MPU6050Variant
    }

    let running = Locked<Running?>(nil)
    let identified = Locked<MPU6050Identification?>(nil)
    let counters = Locked(MPU6050DrainStatistics())

    /// After DEVICE_RESET, before the next access: the Linux driver's `INV_MPU6050_POWER_UP_TIME`,
    /// 100 ms (the register maps give no figure).
    static let resetSeconds = 0.1
    /// Accelerometer start-up after waking: 20 ms on the MPU-6050 and 30 ms on the MPU-6500/9250,
    /// the Linux driver's `INV_MPU6050_ACCEL_STARTUP_TIME` and `INV_MPU6500_ACCEL_STARTUP_TIME`
    /// (PS-MPU-9250A Table 2 gives 20 ms from sleep, 30 ms from a cold start).
    static func accelStartSeconds(_ variant: MPU6050Variant) -> Double {
        variant.hasMPU6500RegisterMap ? 0.03 : 0.02
    }

    /// - Parameters:
    ///   - address: 0x68 with AD0 low, 0x69 with AD0 high.
    ///   - clock: real time by default; tests pass the simulation's clock.
    public init(bus: any I2CBus, address: I2CAddress = defaultAddress, clock: any PacingClock = MonotonicPacingClock()) {
        self.bus = bus
        self.address = address
        self.clock = clock
    }

    /// What the last probe found: the variant and, for a clone, the warning to log.
    public var identification: MPU6050Identification? { identified.withLock { $0 } }

    /// The warning the last probe raised (a clone's WHO_AM_I), naming the value read; nil for a
    /// genuine part or before a probe.
    public var warning: String? { identification?.warning }

    /// The variant's facts once a probe told it (an MPU-6500's noise and FIFO), else the
    /// MPU-6050's.
    public var chip: ChipDescription {
        identification.map { Self.description(for: $0.variant) } ?? Self.description
    }

    /// The configuration the chip runs with, or nil asleep.
    public var configuration: MPU6050Configuration? { running.withLock { $0?.configuration } }

    /// The accelerometer low-pass filter's −3 dB bandwidth the chip runs with, Hz, or nil
    /// asleep: the noise bandwidth to give ``ChipDescription/expectedRMS(bandwidthHz:)`` (the
    /// filter, not half the rate, limits this chip's noise).
    public var bandwidthHz: Double? {
        running.withLock { $0.map { $0.configuration.lowPass.bandwidthHz(on: $0.variant) } }
    }

    /// How the drains went: FIFO resets after overflows and misalignments.
    public var drainStatistics: MPU6050DrainStatistics { counters.withLock { $0 } }

    // MARK: Accelerometer

    /// Reads WHO_AM_I: a genuine MPU-6050 (0x68), MPU-6500 (0x70) or MPU-9250 (0x71), or a known
    /// clone, accepted with ``warning`` set.
    /// - Throws: `.wrongDevice` naming the value read when it is none of them.
    public func probe() throws(SensorError) -> ChipIdentity {
        let id = try read(MPU6050Register.whoAmI)
        guard let found = MPU6050Identification(whoAmI: id) else {
            identified.withLock { $0 = nil }
            throw .wrongDevice(model: "MPU-6050/6500/9250", register: "WHO_AM_I", expected: MPU6050Variant.mpu6050.whoAmI,
                               found: id, address: address, bus: bus.name,
                               addresses: "the MPU-6050 is \(Self.description.addressList)")
        }
        identified.withLock { $0 = found }
        return ChipIdentity(model: found.variant.rawValue, deviceID: id)
    }

    /// Starts continuous sampling at the rate nearest `request.rateHz` that 1 kHz / (1 + divider)
    /// gives (1000 Hz down to 3.9 Hz), with the widest low-pass filter at or below half that rate.
    public func start(_ request: SamplingRequest) throws(SensorError) -> SamplingSettings {
        guard let range = MPU6050Range(gravities: request.rangeG) else {
            throw .invalidSetting("the MPU-6050's range is 2, 4, 8 or 16 g, not \(request.rangeG).")
        }
        guard request.rateHz.isFinite, request.rateHz > 0 else {
            throw .invalidSetting("the MPU-6050 samples at 1000 / (1 + n) Hz for n = 0…255 (1000 to 3.9 Hz); "
                                  + "\(request.rateHz) Hz is not a rate.")
        }
        let variant = try knownVariant()
        var configuration = MPU6050Configuration()
        configuration.range = range
        configuration.divider = MPU6050Configuration.divider(forRate: request.rateHz)
        configuration.lowPass = .forRate(configuration.rateHz, on: variant)
        // Drain at about 10 Hz, never letting the FIFO get past half full.
        configuration.watermark = max(1, min(Int(configuration.rateHz / 10), variant.fifoSamples / 2))
        try configure(configuration)
        return settings(for: configuration, variant: variant)
    }

    /// Turns the FIFO off and puts the chip to sleep (PWR_MGMT_1 SLEEP).
    public func stop() throws(SensorError) {
        running.withLock { $0 = nil }
        try write(MPU6050Register.userCtrl, 0)
        try write(MPU6050Register.pwrMgmt1, MPU6050Bits.sleep | MPU6050Bits.clockPLL)
    }

    // MARK: Configuration

    /// Resets the chip, wakes it and writes `configuration` in the register map's order, then
    /// starts the FIFO and reads the configuration back.
    public func configure(_ configuration: MPU6050Configuration) throws(SensorError) {
        running.withLock { $0 = nil }
        let variant = try knownVariant()
        try write(MPU6050Register.pwrMgmt1, MPU6050Bits.deviceReset)
        clock.sleep(seconds: Self.resetSeconds)
        try write(MPU6050Register.pwrMgmt1, MPU6050Bits.clockPLL)
        try write(MPU6050Register.pwrMgmt2, 0)
        try write(MPU6050Register.smplrtDiv, configuration.divider)
        try write(MPU6050Register.config, configuration.config)
        try write(MPU6050Register.accelConfig, configuration.accelConfig)
        if variant.hasMPU6500RegisterMap {
            try write(MPU6050Register.accelConfig2, configuration.accelConfig2)
        }
        try write(MPU6050Register.intEnable, MPU6050Bits.fifoOverflow)
        clock.sleep(seconds: Self.accelStartSeconds(variant))
        try write(MPU6050Register.fifoEnable, MPU6050Bits.accelFIFOEnable)
        try resetFIFO()
        try verify(configuration, variant: variant)
        running.withLock { $0 = Running(configuration: configuration, variant: variant) }
    }

    /// Empties the FIFO (USER_CTRL FIFO_RESET with FIFO_EN off), turns it on again, and clears
    /// INT_STATUS by reading it, so a stale overflow is not reported.
    func resetFIFO() throws(SensorError) {
        try write(MPU6050Register.userCtrl, MPU6050Bits.userFIFOReset)
        try write(MPU6050Register.userCtrl, MPU6050Bits.userFIFOEnable)
        _ = try read(MPU6050Register.intStatus)
    }

    /// SMPLRT_DIV…ACCEL_CONFIG (…ACCEL_CONFIG2 on the MPU-6500/9250) in one burst, then
    /// PWR_MGMT_1 and FIFO_EN: a chip that reset or lost a write would otherwise decode with the
    /// wrong scale.
    private func verify(_ configuration: MPU6050Configuration, variant: MPU6050Variant) throws(SensorError) {
        let block = try readBurst(MPU6050Register.smplrtDiv, count: variant.hasMPU6500RegisterMap ? 5 : 4)
        let power = try read(MPU6050Register.pwrMgmt1)
        let fifo = try read(MPU6050Register.fifoEnable)
        guard block[0] == configuration.divider, block[1] & MPU6050Bits.dlpfMask == configuration.config,
              block[3] == configuration.accelConfig, power & MPU6050Bits.sleep == 0,
              fifo == MPU6050Bits.accelFIFOEnable,
              !variant.hasMPU6500RegisterMap || block[4] & 0x0F == configuration.accelConfig2
        else {
            throw .bus(I2CError(code: .busError, bus: bus.name, address: address,
                                operation: "configuration read-back (SMPLRT_DIV \(block[0]), ACCEL_CONFIG \(block[3]), "
                                    + "PWR_MGMT_1 \(power))"))
        }
    }

    func settings(for configuration: MPU6050Configuration, variant: MPU6050Variant) -> SamplingSettings {
        SamplingSettings(rateHz: configuration.rateHz, rangeG: configuration.range.gravities,
                         watermark: configuration.watermark, bufferCapacity: variant.fifoSamples)
    }

    /// The variant from the last probe, probing first if there was none.
    func knownVariant() throws(SensorError) -> MPU6050Variant {
        if let known = identification { return known.variant }
        _ = try probe()
        guard let known = identification else {
            throw .invalidSetting("the MPU-6050's WHO_AM_I could not be read.")
        }
        return known.variant
    }

    // MARK: Temperature

    /// The die temperature in °C from TEMP_OUT_H/L: raw / 340 + 36.53 on the MPU-6050,
    /// raw / 333.87 + 21 on the MPU-6500/9250. Asleep the chip does not convert, and the value is
    /// the last one it made.
    public func readTemperature() throws(SensorError) -> Double {
        let variant = try knownVariant()
        let bytes = try readBurst(MPU6050Register.tempOutH, count: 2)
        let raw = Int16(bitPattern: UInt16(bytes[0]) << 8 | UInt16(bytes[1]))
        return variant.temperature.celsius(raw: Double(raw))
    }

    /// ``readTemperature()``: the chip has a sensor (``Accelerometer/dieTemperature()``).
    public func dieTemperature() throws(SensorError) -> Double? {
        try readTemperature()
    }
}

/// What the MPU-6050 driver's drains have met.
public struct MPU6050DrainStatistics: Sendable, Hashable {
    public var drains = 0
    /// Drains that found INT_STATUS FIFO_OFLOW set or the FIFO full, and reset it.
    public var overflows = 0
    /// Drains that found a byte count that is not whole samples, and reset the FIFO.
    public var misalignments = 0
    /// Samples decoded.
    public var samples = 0
}
