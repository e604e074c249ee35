import Geometry
import I2C

/// What `plumb probe` reports of a chip: its identity, how the bus reaches it, the rates each bus
/// speed carries, and its offset registers where Plumb reads them. Read by the command line on
/// the chip, or by the agent for it (the control socket's `probe`), in the same JSON:
/// `plumb probe --json`'s object.
public struct ChipProbeReport: Codable, Sendable, Hashable {
    public var bus: String
    public var address: String
    public var deviceID: String
    /// The model the probe found: `ADXL345`, `MPU-6500`.
    public var chip: String
    /// The identification register's name in the datasheet: `DEVID`, `WHO_AM_I`.
    public var idRegister: String
    /// The probe's warning (a clone's ID, named); nil for a genuine part.
    public var warning: String?
    /// ``I2CTransferMode``'s raw value.
    public var transfer: String
    /// ``I2CMode``'s raw value, after the batched read below.
    public var i2cMode: String
    public var functionality: [String]
    public var functionalityMask: String?
    /// The ADXL345's offset registers (OFSX, OFSY, OFSZ, 15.6 mg a count); nil for other chips.
    public var offsets: ADXL345Offsets?
    /// The fastest rate each bus speed carries, from the chip's description: `100kHz`, `400kHz`.
    public var maxRateHz: [String: Double]

    enum CodingKeys: String, CodingKey {
        case bus, address, deviceID = "device_id", chip, idRegister = "id_register", warning, transfer
        case i2cMode = "i2c_mode", functionality, functionalityMask = "functionality_mask", offsets
        case maxRateHz = "max_rate_hz"
    }

    /// Probes `chip`: its identification, its offsets (the ADXL345's), and the ID register twice
    /// in one transaction, so an adapter that takes one read message per transfer refuses it and
    /// the bus falls back (``I2CBus/mode`` then says rdwr). Reads only: it never reconfigures the
    /// chip, so the agent may run it between two blocks of sampling.
    ///
    /// - Throws: ``SensorError`` when the chip does not answer or is not the chip its driver reads.
    public init(chip: any Accelerometer) throws(SensorError) {
        let identity = try chip.probe()
        let description = chip.chip
        offsets = try (chip as? ADXL345)?.readOffsets()
        let register = description.identification.first?.register ?? 0
        let run = RegisterRun(register: register, count: 1)
        do { _ = try chip.bus.readRegisterRuns(at: chip.address, [run, run]) } catch { throw .bus(error) }
        let linux = chip.bus as? LinuxI2CBus
        bus = chip.bus.name
        address = chip.address.description
        deviceID = "0x" + String(identity.deviceID, radix: 16, uppercase: true)
        self.chip = identity.model
        idRegister = description.identification.first?.name ?? "ID"
        warning = chip.warning
        transfer = chip.bus.transferMode.rawValue
        i2cMode = chip.bus.mode.rawValue
        functionality = linux?.functionality.names ?? ["simulated"]
        functionalityMask = linux.map { "0x" + String($0.functionality.rawValue, radix: 16) }
        maxRateHz = [:]
        for kHz in [100, 400] {
            if let fastest = description.rates.last(where: { ($0.minimumBusKHz ?? .max) <= kHz }) {
                maxRateHz["\(kHz)kHz"] = fastest.hertz
            }
        }
    }
}
