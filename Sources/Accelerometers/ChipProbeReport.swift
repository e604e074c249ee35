import I2C
import PlumbDomain

/// What `plumb probe` reports of a chip: its identity, how the bus reaches it, and its offset
/// registers. Read by the command line on the chip, or by the agent for it (the control
/// socket's `probe`), in the same JSON: `plumb probe --json`'s object.
public struct ChipProbeReport: Codable, Sendable, Hashable {
    public var bus: String
    public var address: String
    public var deviceID: String
    public var chip: String
    /// ``I2CTransferMode``'s raw value.
    public var transfer: String
    /// ``I2CMode``'s raw value, after the batched read below.
    public var i2cMode: String
    public var functionality: [String]
    public var functionalityMask: String?
    public var offsets: ADXL345Offsets
    public var maxRateHz: [String: Int]

    enum CodingKeys: String, CodingKey {
        case bus, address, deviceID = "device_id", chip, transfer, i2cMode = "i2c_mode", functionality
        case functionalityMask = "functionality_mask", offsets, maxRateHz = "max_rate_hz"
    }

    /// Probes `chip`: DEVID, the offsets, and DEVID twice in one transaction, so an adapter that
    /// takes one read message per transfer refuses it and the bus falls back (``I2CBus/mode``
    /// then says rdwr). Reads only: it never reconfigures the chip, so the agent may run it
    /// between two blocks of sampling.
    ///
    /// - Throws: ``SensorError`` when the chip does not answer or is not an ADXL345.
    public init(chip: ADXL345) throws(SensorError) {
        let identity = try chip.probe()
        let offsets = try chip.readOffsets()
        let devid = RegisterRun(register: ADXL345Register.devid, count: 1)
        do { _ = try chip.bus.readRegisterRuns(at: chip.address, [devid, devid]) } catch { throw .bus(error) }
        let linux = chip.bus as? LinuxI2CBus
        bus = chip.bus.name
        address = chip.address.description
        deviceID = "0x" + String(identity.deviceID, radix: 16, uppercase: true)
        self.chip = "ADXL345/ADXL343"
        transfer = chip.bus.transferMode.rawValue
        i2cMode = chip.bus.mode.rawValue
        functionality = linux?.functionality.names ?? ["simulated"]
        functionalityMask = linux.map { "0x" + String($0.functionality.rawValue, radix: 16) }
        self.offsets = offsets
        maxRateHz = ["100kHz": Int(OutputDataRate.maxSustainedAt100kHz.hertz),
                     "400kHz": Int(OutputDataRate.maxSustainedAt400kHz.hertz)]
    }
}
