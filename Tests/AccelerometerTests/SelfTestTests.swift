@testable import Accelerometers
import Foundation
import Geometry
import SimulatedADXL345
import Testing

@Suite("ADXL345 self-test")
struct SelfTestTests {
    @Test func aHealthyPartPassesAtThreePointThreeVolts() throws {
        let rig = Rig()
        let report = try rig.driver.selfTest(supplyVoltage: 3.3)
        #expect(report.passed)
        #expect(report.axes.map(\.name) == ["x", "y", "z"])
        // The simulated part's response (+250, −250, +400 LSB at 2.5 V) scaled by Table 14.
        let expected = [250 * 1.77, -250 * 1.77, 400 * 1.47]
        for (axis, delta) in zip(report.axes, expected) {
            #expect(isClose(axis.delta, delta, within: 3), "\(axis.name): \(axis.delta)")
        }
        #expect(isClose(report.axes[0].minimum, 50 * 1.77, within: 1e-9))
        #expect(isClose(report.axes[2].maximum, 875 * 1.47, within: 1e-9))
    }

    @Test func aStuckAxisFailsAndOnlyThatAxis() throws {
        let rig = Rig(.init(selfTestResponse: Vector3(x: 250, y: -250, z: 0)))
        let report = try rig.driver.selfTest(supplyVoltage: 3.3)
        #expect(!report.passed)
        #expect(report.axes.map(\.passed) == [true, true, false])
    }

    @Test func limitsFollowTheSupplyVoltage() throws {
        // At 2.5 V a response of 400 on z is well inside 75…875; the same chip's X response of
        // 250 × 0.64 at 2.0 V is still above 50 × 0.64.
        let low = Rig(.init(supplyVoltage: 2.0))
        #expect(try low.driver.selfTest(supplyVoltage: 2.0).passed)
        // Telling the test the wrong voltage moves the limits: a 3.6 V part judged at 2.0 V fails.
        let mismatched = Rig(.init(supplyVoltage: 3.6, selfTestResponse: Vector3(x: 500, y: -500, z: 800)))
        #expect(try !mismatched.driver.selfTest(supplyVoltage: 2.0).passed)
    }

    @Test func supplyOutsideTheCharacterisedRangeIsRefused() {
        let rig = Rig()
        let error = #expect(throws: SensorError.self) { try rig.driver.selfTest(supplyVoltage: 5) }
        #expect(error?.code == .invalidSetting)
        #expect(error?.description.contains("3.3") == true)
    }

    @Test func theRunningConfigurationIsRestoredWithTheForceOff() throws {
        let rig = Rig()
        _ = try rig.driver.start(SamplingRequest(rateHz: 50, rangeG: 4))
        let before = rig.driver.configuration
        _ = try rig.driver.selfTest(supplyVoltage: 3.3)
        #expect(rig.driver.configuration == before)
        let lastFormat = rig.chip.writeLog.last { $0.register == ADXL345Register.dataFormat }
        #expect(lastFormat?.value == before?.dataFormat)
        #expect(lastFormat.map { $0.value & DataFormat.selfTest == 0 } == true)
        #expect(rig.chip.writeLog.last == RegisterWrite(register: 0x2D, value: 0x08))
    }

    @Test func aChipInStandbyIsLeftInStandby() throws {
        let rig = Rig()
        _ = try rig.driver.selfTest(supplyVoltage: 3.3)
        #expect(rig.driver.configuration == nil)
        #expect(rig.chip.writeLog.last == RegisterWrite(register: 0x2D, value: 0x00))
    }

    @Test func selfTestUsesTheDatasheetSetup() throws {
        let rig = Rig()
        _ = try rig.driver.selfTest(supplyVoltage: 3.3)
        let log = rig.chip.writeLog
        // ±16 g full resolution, 100 Hz normal power, then the same with SELF_TEST set.
        #expect(log.contains(RegisterWrite(register: 0x31, value: 0x0B)))
        #expect(log.contains(RegisterWrite(register: 0x2C, value: 0x0A)))
        #expect(log.contains(RegisterWrite(register: 0x31, value: 0x8B)))
    }
}

@Suite("Self-test figures for people")
struct SelfTestFiguresTests {
    @Test func everyFigureIsRoundedTheDifferenceToo() throws {
        let axis = SelfTestReport.Axis(name: "z", off: 3.333_33, on: -439.266_67, minimum: -1000.004, maximum: -100)
        let report = SelfTestReport(model: "ADXL345", supplyVoltage: 3.3, samplesPerMean: 20, axes: [axis], conditions: "test")
        let json = String(decoding: try JSONEncoder().encode(SelfTestFigures(report)), as: UTF8.self)
        #expect(json.contains(#""delta":-442.6"#) && !json.contains("99999"), "\(json)")
        #expect(json.contains(#""off":3.33"#) && json.contains(#""on":-439.27"#) && json.contains(#""minimum":-1000"#), "\(json)")
    }
}
