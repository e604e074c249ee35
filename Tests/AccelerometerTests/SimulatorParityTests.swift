import Accelerometers
import Geometry
import Glibc
import I2C
import SimulatedADXL345
import SimulatedADXL355
import SimulatedMPU6050
import Testing

/// The ADXL355 and MPU-6050 simulators take the ADXL345 simulator's faults and machine vibration
/// (the simulation kit's ``SimulatedFault`` and ``MachineVibration``), register by register.
@Suite("Simulated ADXL355 and MPU-6050: the shared faults and machine vibration")
struct SimulatorParityTests {
    @Test func aFlappingADXL355GoesAwayEveryPeriodAndComesBackPowerCycled() throws {
        let clock = ManualSimulationClock()
        let chip = SimulatedADXL355(configuration: .init(fault: .flapping(from: 0, period: 3, down: 1)), clock: clock)
        let address = chip.address
        for cycle in 0..<3 {
            let start = Double(cycle) * 3
            clock.advance(to: start + 1)
            #expect(try chip.readRegisters(at: address, from: ADXL355Register.devidAD, count: 1) == [0xAD])
            try chip.writeRegister(at: address, ADXL355Register.powerCtl, value: 0)  // measure
            #expect(chip.isMeasuring)
            clock.advance(to: start + 2.5)
            let error = #expect(throws: I2CError.self) {
                _ = try chip.readRegisters(at: address, from: ADXL355Register.devidAD, count: 1)
            }
            #expect(error?.code == .noAcknowledge && error?.errno == EREMOTEIO)
            #expect(error?.bus == "simulated ADXL355")
            clock.advance(to: start + 3.2)
            // Back from power-on: in standby until configured again.
            #expect(try chip.readRegisters(at: address, from: ADXL355Register.powerCtl, count: 1) == [ADXL355PowerCtl.standby])
            #expect(chip.statistics.powerCycles == cycle + 1)
        }
    }

    @Test func aFlappingMPU6050ComesBackAsleepEachTime() throws {
        let clock = ManualSimulationClock()
        let chip = SimulatedMPU6050(configuration: .init(fault: .flapping(from: 0, period: 3, down: 1)), clock: clock)
        let address = chip.address
        for cycle in 0..<3 {
            let start = Double(cycle) * 3
            clock.advance(to: start + 1)
            try chip.writeRegister(at: address, MPU6050Register.pwrMgmt1, value: 0)  // awake
            #expect(!chip.isAsleep)
            clock.advance(to: start + 2.5)
            let error = #expect(throws: I2CError.self) {
                _ = try chip.readRegisters(at: address, from: MPU6050Register.whoAmI, count: 1)
            }
            #expect(error?.code == .noAcknowledge && error?.errno == EREMOTEIO)
            clock.advance(to: start + 3.2)
            #expect(chip.isAsleep, "power-cycled in cycle \(cycle)")
            #expect(chip.statistics.powerCycles == cycle + 1)
        }
    }

    @Test func aBusFaultFailsEveryTransferWithEIOAndIsCounted() throws {
        let adxl355 = SimulatedADXL355(configuration: .init(fault: .busError), clock: ManualSimulationClock())
        let mpu = SimulatedMPU6050(configuration: .init(fault: .busError), clock: ManualSimulationClock())
        for bus in [adxl355, mpu] as [any I2CBus] {
            let error = #expect(throws: I2CError.self) { try bus.writeRegister(at: I2CAddress(0x1D)!, 0x2D, value: 0) }
            #expect(error?.code == .busError && error?.errno == EIO, "\(bus.name)")
        }
        #expect(adxl355.statistics.failedTransactions == 1 && adxl355.writeLog.isEmpty)
        #expect(mpu.statistics.failedTransactions == 1 && mpu.writeLog.isEmpty)
        adxl355.setFault(.none)
        mpu.setFault(.none)
        #expect(try adxl355.readRegisters(at: adxl355.address, from: ADXL355Register.devidAD, count: 1) == [0xAD])
        #expect(try mpu.readRegisters(at: mpu.address, from: MPU6050Register.whoAmI, count: 1) == [0x68])
    }

    @Test func machineVibrationStartsAndStopsAtRunTimeOnBothChips() throws {
        func spread(_ samples: [Vector3]) -> Double {
            let xs = samples.map(\.x)
            return (xs.max() ?? 0) - (xs.min() ?? 0)
        }
        let rig355 = Rig355(.init(noiseDensity: .zero))
        _ = try rig355.driver.start(SamplingRequest(rateHz: 125, rangeG: 2))
        #expect(spread(try rig355.collect(for: 0.5).samples) == 0)
        rig355.chip.setVibration(MachineVibration(noise: 0.05))
        #expect(spread(try rig355.collect(for: 0.5).samples) > 0.1)
        rig355.chip.setVibration(nil)
        _ = try rig355.collect(for: 0.1)  // what was sampled before the stop
        #expect(spread(try rig355.collect(for: 0.5).samples) == 0)

        let mpu = MPURig(ideal: .mpu6050)
        _ = try mpu.driver.start(SamplingRequest(rateHz: 100, rangeG: 2))
        _ = try mpu.drain(after: 0.5)
        mpu.chip.setVibration(MachineVibration(noise: 0.05))
        #expect(spread(try mpu.drain(after: 0.5).samples) > 0.1)
        mpu.chip.setVibration(nil)
        _ = try mpu.drain(after: 0.1)
        #expect(spread(try mpu.drain(after: 0.5).samples) == 0)
    }
}
