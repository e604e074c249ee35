import Accelerometers
import Geometry
import I2C
import SimulatedADXL345

/// A simulated chip on a manual clock, with the real driver on top: sleeping in the driver
/// advances the simulation, so timing-dependent behaviour is exact and instant.
struct Rig {
    let clock: ManualSimulationClock
    let chip: SimulatedADXL345
    let driver: ADXL345

    init(_ configuration: SimulatedADXL345.Configuration = .init()) {
        clock = ManualSimulationClock()
        chip = SimulatedADXL345(configuration: configuration, clock: clock)
        driver = ADXL345(bus: chip, clock: clock)
    }
}

/// Another chip answering at the ADXL345's address: every register reads through to the
/// simulation except DEVID.
final class ImpostorBus: I2CBus {
    let base: SimulatedADXL345
    let deviceID: UInt8
    var name: String { base.name }
    var transferMode: I2CTransferMode { base.transferMode }

    init(base: SimulatedADXL345, deviceID: UInt8) {
        self.base = base
        self.deviceID = deviceID
    }

    func readRegisters(at address: I2CAddress, from register: UInt8, count: Int) throws(I2CError) -> [UInt8] {
        var bytes = try base.readRegisters(at: address, from: register, count: count)
        if register == ADXL345Register.devid { bytes[0] = deviceID }
        return bytes
    }

    func writeRegister(at address: I2CAddress, _ register: UInt8, value: UInt8) throws(I2CError) {
        try base.writeRegister(at: address, register, value: value)
    }
}

func isClose(_ a: Double, _ b: Double, within tolerance: Double) -> Bool {
    abs(a - b) <= tolerance
}

/// A bus nothing answers on: for building drivers without touching a chip.
final class NoBus: I2CBus {
    var name: String { "none" }
    var transferMode: I2CTransferMode { .simulated }

    func readRegisters(at address: I2CAddress, from register: UInt8, count: Int) throws(I2CError) -> [UInt8] {
        throw I2CError(code: .noAcknowledge, bus: name, address: address, operation: "read")
    }

    func writeRegister(at address: I2CAddress, _ register: UInt8, value: UInt8) throws(I2CError) {
        throw I2CError(code: .noAcknowledge, bus: name, address: address, operation: "write")
    }
}
