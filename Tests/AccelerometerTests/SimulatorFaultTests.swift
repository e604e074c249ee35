import Accelerometers
import Dispatch
import Geometry
import Glibc
import I2C
import PlumbSync
import SimulatedADXL345
import Testing

/// Faults on the simulated chip's connection, its clocks and its scenes.
@Suite("Simulated ADXL345: faults, clocks and scenes")
struct SimulatorFaultTests {
    // MARK: Faults

    @Test func aNoAcknowledgeFaultFailsEveryTransferWithEREMOTEIO() throws {
        let rig = SimRig(.init(fault: .noAcknowledge))
        let read = #expect(throws: I2CError.self) { _ = try rig.read(ADXL345Register.devid) }
        #expect(read?.code == .noAcknowledge)
        #expect(read?.errno == EREMOTEIO)
        #expect(read?.bus == "simulated ADXL345")
        let write = #expect(throws: I2CError.self) { try rig.write(ADXL345Register.powerCtl, PowerCtl.measure) }
        #expect(write?.code == .noAcknowledge)
        #expect(rig.chip.writeLog.isEmpty)
        #expect(rig.chip.statistics.failedTransactions == 2)
        rig.chip.setFault(.none)
        #expect(try rig.read(ADXL345Register.devid) == 0xE5)
    }

    @Test func aBusErrorFailsWithEIO() throws {
        let rig = SimRig()
        rig.chip.setFault(.busError)
        let error = #expect(throws: I2CError.self) { _ = try rig.read(ADXL345Register.dataX0, count: 6) }
        #expect(error?.code == .busError)
        #expect(error?.errno == EIO)
        #expect(rig.chip.fault == .busError)
    }

    @Test func theChipKeepsSamplingWhileTheBusFails() throws {
        let rig = SimRig()
        try rig.start()
        rig.chip.setFault(.noAcknowledge)
        rig.clock.advance(by: 0.2)
        rig.chip.setFault(.none)
        #expect(try rig.entries() == 19)
    }

    @Test func aFlappingChipGoesAwayEveryPeriodAndComesBackPowerCycledEachTime() throws {
        // Present 2 s, absent 1 s, from clock time 0: gone over [2, 3), [5, 6), [8, 9)…
        let rig = SimRig(.init(fault: .flapping(from: 0, period: 3, down: 1)))
        for cycle in 0..<3 {
            let start = Double(cycle) * 3
            rig.clock.advance(to: start + 1)
            #expect(try rig.read(ADXL345Register.devid) == 0xE5, "present in cycle \(cycle)")
            try rig.start()
            rig.clock.advance(to: start + 2.5)
            let error = #expect(throws: I2CError.self, "absent in cycle \(cycle)") {
                _ = try rig.read(ADXL345Register.devid)
            }
            #expect(error?.code == .noAcknowledge)
            rig.clock.advance(to: start + 3.2)
            // Back from power-on: in standby, until configured again.
            #expect(try rig.read(ADXL345Register.powerCtl) == 0, "power-cycled in cycle \(cycle)")
            #expect(rig.chip.statistics.powerCycles == cycle + 1)
        }
    }

    @Test func anUnpluggedChipNACKsThenReturnsPowerCycled() throws {
        let rig = SimRig()
        try rig.start(rateCode: 0x0B, fifoCtl: SimRig.stream | 16)
        try rig.write(ADXL345Register.ofsz, 3)
        rig.chip.setFault(.unplugged(at: 1, for: 2))
        rig.clock.advance(to: 0.5)
        #expect(try rig.entries() == 33)
        rig.clock.advance(to: 1.5)
        let error = #expect(throws: I2CError.self) { _ = try rig.read(ADXL345Register.devid) }
        #expect(error?.code == .noAcknowledge)
        #expect(error?.errno == EREMOTEIO)
        rig.clock.advance(to: 3.5)
        #expect(try rig.read(ADXL345Register.devid) == 0xE5)
        for (register, value) in ADXL345Register.resetValues {
            #expect(try rig.read(register) == value, "register \(register)")
        }
        rig.clock.advance(by: 1)
        #expect(try rig.entries() == 0)  // standby
        let statistics = rig.chip.statistics
        #expect(statistics.powerCycles == 1)
        #expect(statistics.lost == 33)
        // And it works again once configured.
        try rig.start()
        rig.clock.advance(by: 0.1)
        #expect(try rig.entries() == 9)
    }

    @Test func anUnplugWithNoAccessDuringItStillPowerCycles() throws {
        let rig = SimRig(.init(fault: .unplugged(at: 0.5, for: 0.25)))
        try rig.start()
        rig.clock.advance(to: 2)
        #expect(try rig.read(ADXL345Register.powerCtl) == 0)
        #expect(try rig.entries() == 0)
        #expect(rig.chip.statistics.samplesProduced == 49)  // up to the unplug at 0.5 s
    }

    // MARK: Clocks

    @Test func theManualClockOnlyMovesForward() {
        let clock = ManualSimulationClock(startingAt: 10)
        clock.advance(by: 0.25)
        clock.advance(by: -5)
        clock.advance(by: .nan)
        clock.advance(to: 3)
        #expect(clock.now() == 10.25)
        clock.advance(to: 12)
        clock.sleep(seconds: 0.5)  // as a PacingClock: sleeping advances the simulation
        #expect(clock.now() == 12.5)
    }

    @Test func theMonotonicClockAdvances() {
        let clock = MonotonicSimulationClock()
        let first = clock.now()
        var second = clock.now()
        while second == first { second = clock.now() }
        #expect(second > first)
    }

    @Test func theChipRunsInRealTimeOnTheDefaultClock() throws {
        let chip = SimulatedADXL345()
        let address = SimulatedADXL345.Configuration.defaultAddress
        try chip.writeRegister(at: address, ADXL345Register.bwRate, value: 0x0F)  // 3200 Hz
        try chip.writeRegister(at: address, ADXL345Register.fifoCtl, value: SimRig.stream)
        try chip.writeRegister(at: address, ADXL345Register.powerCtl, value: PowerCtl.measure)
        // The first sample is due 1.4 ms after Measure; allow a loaded machine far more.
        let clock = MonotonicSimulationClock()
        let deadline = clock.now() + 5
        var entries: UInt8 = 0
        while entries == 0 && clock.now() < deadline {
            entries = try chip.readRegister(at: address, ADXL345Register.fifoStatus)
        }
        #expect(entries > 0)
    }

    // MARK: Concurrency

    @Test func concurrentTransactionsAreEachAtomic() throws {
        let rig = SimRig()
        try rig.start(rateCode: 0x0D, fifoCtl: SimRig.stream)  // 800 Hz
        let failures = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            for _ in 0..<300 {
                do {
                    if worker == 0 { rig.clock.advance(by: 0.004) }
                    if try rig.entries() > 0 { _ = try rig.readSample() }
                } catch {
                    failures.withLock { $0 += 1 }
                }
            }
        }
        #expect(failures.withLock { $0 } == 0)
        let held = try rig.entries()
        let s = rig.chip.statistics
        #expect(s.samplesProduced == s.entriesRead + s.overwritten + s.lost + held)
        #expect(s.samplesProduced > 900)
        #expect(s.transactions >= 5 + 4 * 300 + 1)
    }

    // MARK: Scenes

    @Test func aSweepRocksRollAndPitchAQuarterPeriodApart() {
        let scene = SimulatedScene.sweep(
            roll: Angle(degrees: 2), pitch: Angle(degrees: 1), amplitude: Angle(degrees: 5), period: 8)
        func attitude(at time: Double) -> Attitude { Attitude(gravity: scene.gravity(at: time)) }
        #expect(abs(attitude(at: 0).roll.degrees - 2) < 1e-9)
        #expect(abs(attitude(at: 0).pitch.degrees - (1 - 5)) < 1e-9)
        #expect(abs(attitude(at: 2).roll.degrees - (2 + 5)) < 1e-9)
        #expect(abs(attitude(at: 2).pitch.degrees - 1) < 1e-9)
        #expect(abs(attitude(at: 4).pitch.degrees - (1 + 5)) < 1e-9)
    }

    @Test func aVibrationAveragesToTheStillAttitude() {
        let roll = Angle(degrees: 10), pitch = Angle(degrees: -4)
        let scene = SimulatedScene.vibration(roll: roll, pitch: pitch, amplitude: 0.3, frequency: 50)
        let base = Attitude.gravity(roll: roll, pitch: pitch)
        let steps = 1000
        let mean = (0..<steps).reduce(Vector3.zero) { $0 + scene.gravity(at: Double($1) / Double(steps) / 50) } / Double(steps)
        #expect((mean - base).magnitude < 1e-9)
        let peak = (0..<steps).map { (scene.gravity(at: Double($0) / Double(steps) / 50) - base).x }.max() ?? 0
        #expect(abs(peak - 0.3) < 1e-3)
    }

    @Test func changingTheSceneIsAStepAtTheCurrentTime() throws {
        let rig = SimRig.noiseless()
        try rig.start()
        rig.clock.advance(by: 0.1)
        rig.chip.setScene(.still(roll: Angle(degrees: 90), pitch: .zero))
        #expect(rig.chip.scene == .still(roll: Angle(degrees: 90), pitch: .zero))
        rig.clock.advance(by: 0.1)
        let samples = try rig.drain()
        #expect(samples.count == 19)
        #expect(samples.prefix(9).allSatisfy { $0 == SimSample(x: 0, y: 0, z: 256) })
        #expect(samples.dropFirst(9).allSatisfy { $0 == SimSample(x: 0, y: 256, z: 0) })
    }
}
