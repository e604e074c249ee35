@testable import Accelerometers
import Geometry
import I2C
import PlumbSync
import SimulatedADXL345
import SimulatedMPU6050

/// A simulated MPU-6050-family part on a manual clock, with the real driver on top.
struct MPURig {
    let clock: ManualSimulationClock
    let chip: SimulatedMPU6050
    let driver: MPU6050

    init(_ configuration: SimulatedMPU6050.Configuration = .init()) {
        clock = ManualSimulationClock()
        chip = SimulatedMPU6050(configuration: configuration, clock: clock)
        driver = MPU6050(bus: chip, clock: clock)
    }

    /// A noiseless, ideal part of `variant` sensing `scene`.
    init(ideal variant: MPU6050Variant, scene: SimulatedScene = .level, whoAmI: UInt8? = nil) {
        self.init(SimulatedMPU6050.Configuration(variant: variant, whoAmI: whoAmI, scene: scene, noiseDensity: 0))
    }

    /// Lets `seconds` pass, then drains.
    func drain(after seconds: Double) throws -> (samples: [Vector3], report: DrainReport) {
        clock.advance(by: seconds)
        var samples: [Vector3] = []
        let report = try driver.drain(into: &samples)
        return (samples, report)
    }
}

/// The simulated part behind a bus that alters what it reads: an SMBus adapter (at most 32 bytes
/// a read, one read a transaction), or a FIFO count that is not whole samples.
final class MPUBusWrapper: I2CBus {
    let base: SimulatedMPU6050
    let smbus: Bool
    let fifoCountOverride: Int?
    /// A register whose writes are lost on the wire (acknowledged, never stored).
    let lostWrites: UInt8?
    private let longest = Locked(0)
    var longestRead: Int { longest.withLock { $0 } }
    var name: String { base.name }
    var transferMode: I2CTransferMode { smbus ? .smbusBlock : base.transferMode }

    init(_ base: SimulatedMPU6050, smbus: Bool = false, fifoCountOverride: Int? = nil, lostWrites: UInt8? = nil) {
        self.base = base
        self.smbus = smbus
        self.fifoCountOverride = fifoCountOverride
        self.lostWrites = lostWrites
    }

    func readRegisters(at address: I2CAddress, from register: UInt8, count: Int) throws(I2CError) -> [UInt8] {
        if smbus, count > 32 {
            throw I2CError(code: .invalidRequest, bus: name, address: address, operation: "SMBus block of \(count)")
        }
        longest.withLock { $0 = max($0, count) }
        var bytes = try base.readRegisters(at: address, from: register, count: count)
        if let fifoCountOverride, register == MPU6050Register.fifoCountH, count == 2 {
            bytes = [UInt8(fifoCountOverride >> 8), UInt8(fifoCountOverride & 0xFF)]
        }
        return bytes
    }

    func writeRegister(at address: I2CAddress, _ register: UInt8, value: UInt8) throws(I2CError) {
        guard register != lostWrites else { return }
        try base.writeRegister(at: address, register, value: value)
    }
}

/// The largest per-axis difference between two vectors.
func maxAxisError(_ a: Vector3, _ b: Vector3) -> Double {
    max(abs(a.x - b.x), abs(a.y - b.y), abs(a.z - b.z))
}
