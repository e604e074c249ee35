import Accelerometers
import Geometry
import I2C
import PlumbSync
import SimulatedADXL345
import SimulatedADXL355

/// A simulated ADXL355 on a manual clock with the real driver on top.
struct Rig355 {
    let clock: ManualSimulationClock
    let chip: SimulatedADXL355
    let driver: ADXL355

    init(_ configuration: SimulatedADXL355.Configuration = .init(), bus: ((SimulatedADXL355) -> any I2CBus)? = nil) {
        clock = ManualSimulationClock()
        chip = SimulatedADXL355(configuration: configuration, clock: clock)
        driver = ADXL355(bus: bus?(chip) ?? chip, clock: clock)
    }

    /// Runs the clock for `seconds`, draining every `interval`, and returns what the drains gave.
    func collect(for seconds: Double, every interval: Double = 0.1) throws -> (samples: [Vector3], reports: [DrainReport]) {
        var samples: [Vector3] = []
        var reports: [DrainReport] = []
        let end = clock.now() + seconds
        while clock.now() < end - 1e-9 {
            clock.advance(by: interval)
            reports.append(try driver.drain(into: &samples))
        }
        return (samples, reports)
    }
}

/// The simulated chip behind an SMBus adapter: one read per transaction, and the reads' sizes
/// recorded, so a test sees that no FIFO read exceeds a block.
final class SMBus355: I2CBus {
    let chip: SimulatedADXL355
    private let largest = Locked(0)
    var name: String { chip.name }
    var transferMode: I2CTransferMode { .smbusBlock }
    var largestRead: Int { largest.withLock { $0 } }

    init(_ chip: SimulatedADXL355) {
        self.chip = chip
    }

    func readRegisters(at address: I2CAddress, from register: UInt8, count: Int) throws(I2CError) -> [UInt8] {
        largest.withLock { $0 = max($0, count) }
        return try chip.readRegisters(at: address, from: register, count: count)
    }

    func writeRegister(at address: I2CAddress, _ register: UInt8, value: UInt8) throws(I2CError) {
        try chip.writeRegister(at: address, register, value: value)
    }
}
